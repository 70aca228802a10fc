package codec

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
)

// A BlockSink receives the blocks a Partitioner finishes: part is the
// partition, block the block, valid only until the call returns (the
// Partitioner writes the next block into the same memory). An error it
// returns stops the Partitioner, whose later calls return it.
type BlockSink func(part int, block []byte) error

// RawWriterSink returns a BlockSink that writes partition i's blocks to
// ws[i], as checksummed frames of an arrowpack stream (RawWriter).
func RawWriterSink(ws []*RawWriter) BlockSink {
	return func(part int, block []byte) error {
		return ws[part].WriteBlock(block, Checksum(block))
	}
}

// DefaultPartitionBlockSize is the size a Partitioner's blocks grow to,
// uncompressed, when neither WithBlockRows nor WithBlockSize is given.
const DefaultPartitionBlockSize = 1 << 20

// WithMemoryLimit caps the memory a Partitioner holds for pending rows,
// over all partitions, at about n bytes: when the buffers of the pending
// rows (and the arrays the general path refers to) pass n, the largest
// pending partitions are finished early, their blocks handed to the sink
// and their memory dropped. A batch is scattered in pieces small enough
// that one piece adds at most n/8. 0, the default, sets no limit; a
// negative n is refused with an error wrapping ErrUnsupported.
func WithMemoryLimit(n int) Option {
	return func(cfg *config) {
		if n < 0 {
			cfg.fail(fmt.Errorf("%w: WithMemoryLimit(%d): the limit must not be negative", ErrUnsupported, n))
			return
		}
		cfg.memLimit = n
	}
}

// A Partitioner splits record batches of one schema into P partitions, as
// a shuffle writer does: Write takes a batch and one partition id per row
// and appends each row to its partition's pending block; a partition's
// block is finished once it reaches WithBlockRows rows or WithBlockSize
// bytes (DefaultPartitionBlockSize without either), or when Flush, Close
// or WithMemoryLimit says so, and handed to the sink. Each block is the
// block Encoder.AppendBatches writes for the partition's rows in order
// (byte for byte when uncompressed; compressed with the Encoder's options
// otherwise), so any Decoder or Reader of the schema reads it.
//
// Rows are copied once, from the batch into the partition's pending
// buffers, column by column: fixed-width values, bits, and the offsets and
// bytes of strings, binary and lists, through the children of structs,
// lists and fixed-size lists; dictionary columns scatter their indices
// and keep the dictionary for the block. Views, list views, unions and
// run-end encoded columns take a general path, which holds each row as a
// slice of the batch's array (retained) until the block is written.
// A Partitioner is not safe for concurrent use.
type Partitioner struct {
	enc     *Encoder
	sink    BlockSink
	n       int // partitions
	maxRows int
	maxSize int
	limit   int

	fast     []bool // column i is pended (fastKind)
	flat     []bool // column i is scattered column-major (flatKind)
	rowMajor bool   // some column is not flat
	gather   bool   // the range's flat columns are gathered (gathers)
	path     int8   // for tests: 1 always gathers, -1 never, 0 chooses
	srcs     []*src // column i's batch, read once per Write
	parts    []partition
	pends    [][][]pend // column i's pends, partition by partition (pendOf)
	room     []int      // rows partition q's block has room for
	held     int        // bytes held for pending rows over all partitions (partition.mem)

	// Per range of rows of a Write (scatter), per partition: its rows,
	// the bytes its block and the memory its buffers grow by; and, for
	// the columns that are not flat, the rows sorted by partition.
	counts   []int32
	add, mem []int
	starts   []int32
	idx      []int32
	ss       scatterScratch
	sc       scratch
	shift    []int32 // a column's row positions, its offset added

	// Columns with dictionaries (at any level): the last batch's.
	hasDict []bool
	dicts   [][]arrow.ArrayData

	cols   []int
	out    []byte
	err    error
	closed bool
}

// partition is one partition's pending block.
type partition struct {
	rows  int
	bytes int // the block's bytes, about
	mem   int // the memory held for the rows: buffers' capacity, pieces' share
	// pieceMem is the pieces' share of mem.
	pieceMem int
	live     []*pend   // column i's pended rows (fast columns), nil until used
	segs     [][]piece // column i's pieces: the general path's rows
	alive    bool      // live and segs are allocated
}

// piece is rows [off, off+n) (buffer coordinates) of d, retained.
type piece struct {
	d      arrow.ArrayData
	off, n int
}

// NewPartitioner returns a Partitioner of batches of schema into p
// partitions (1 <= p <= 1<<24) that hands each finished block to sink. It
// takes the Encoder's options (compression, WithBlockRows, WithBlockSize,
// WithMemoryLimit) and fails as NewEncoder does, or with an error wrapping
// ErrUnsupported for a p out of range or a nil sink.
func NewPartitioner(schema *arrow.Schema, p int, sink BlockSink, opts ...Option) (*Partitioner, error) {
	if p < 1 || p > 1<<24 {
		return nil, fmt.Errorf("%w: NewPartitioner: %d partitions; 1 to %d are supported", ErrUnsupported, p, 1<<24)
	}
	if sink == nil {
		return nil, fmt.Errorf("%w: NewPartitioner: a nil sink", ErrUnsupported)
	}
	enc, err := NewEncoder(schema, opts...)
	if err != nil {
		return nil, err
	}
	pt := &Partitioner{enc: enc, sink: sink, n: p, maxRows: math.MaxInt, maxSize: math.MaxInt,
		limit: enc.cfg.memLimit, parts: make([]partition, p), room: make([]int, p),
		counts: make([]int32, p), add: make([]int, p), mem: make([]int, p), starts: make([]int32, p+1),
		dicts: make([][]arrow.ArrayData, len(enc.plans)), pends: make([][][]pend, len(enc.plans)),
		cols: make([]int, len(enc.plans)+1), out: alignedAt(64<<10, 0)[:0]}
	if enc.cfg.blockRows > 0 {
		pt.maxRows = enc.cfg.blockRows
	}
	if enc.cfg.blockSize > 0 {
		pt.maxSize = enc.cfg.blockSize
	}
	if enc.cfg.blockRows <= 0 && enc.cfg.blockSize <= 0 {
		pt.maxSize = DefaultPartitionBlockSize
	}
	for q := range pt.room {
		pt.room[q] = pt.maxRows
	}
	for _, pl := range enc.plans {
		f := fastKind(pl, true)
		pt.fast = append(pt.fast, f)
		pt.flat = append(pt.flat, flatKind(pl))
		pt.rowMajor = pt.rowMajor || !flatKind(pl)
		pt.hasDict = append(pt.hasDict, hasDict(pl))
		var s *src
		if f {
			s = newSrc(pl)
		}
		pt.srcs = append(pt.srcs, s)
	}
	return pt, nil
}

// Partitions returns the number of partitions, P.
func (pt *Partitioner) Partitions() int { return pt.n }

// Write appends row i of rec to partition parts[i], for every row, and
// hands the blocks that reach their target to the sink. rec must have the
// Partitioner's schema (otherwise an error wraps ErrSchemaMismatch) and be
// a batch Encoder.Append accepts (otherwise ErrInvalidBatch); parts must
// hold one id below P per row (otherwise an error wrapping ErrInvalidBatch
// names the row). On those errors no row of rec reaches a partition, and
// the rows pending from earlier batches stay as they were. An error of the
// sink is returned, and returned again by every later call.
func (pt *Partitioner) Write(rec arrow.RecordBatch, parts []uint32) error {
	if pt.err != nil {
		return pt.err
	}
	if pt.closed {
		return fmt.Errorf("%w: Partitioner.Write after Close", ErrClosed)
	}
	if err := pt.enc.check(rec); err != nil {
		return err
	}
	rows := int(rec.NumRows())
	if len(parts) != rows {
		return fmt.Errorf("%w: %d partition ids for a batch of %d rows", ErrInvalidBatch, len(parts), rows)
	}
	for i, q := range parts {
		if uint64(q) >= uint64(pt.n) {
			return fmt.Errorf("%w: row %d has partition id %d; there are %d partitions", ErrInvalidBatch, i, q, pt.n)
		}
	}
	if rows == 0 {
		return nil
	}
	cols := rec.Columns()
	changed := false
	for i, col := range cols {
		if pt.hasDict[i] && pt.noteDicts(i, col.Data()) {
			changed = true
		}
	}
	if changed {
		// A block holds rows of one dictionary per column: the rows of
		// the last one go first.
		if err := pt.Flush(); err != nil {
			return err
		}
	}
	for i, col := range cols {
		if pt.fast[i] {
			pt.srcs[i].read(col.Data())
		}
	}
	defer func() {
		for _, s := range pt.srcs {
			if s != nil {
				s.release()
			}
		}
	}()
	step := rows
	if pt.limit > 0 {
		// Pieces of the batch that add at most limit/8 each.
		size := 1
		for _, col := range cols {
			size += int(col.Data().SizeInBytes())
		}
		if per := pt.limit / 8; size > per {
			step = max(1, int(int64(rows)*int64(per)/int64(size)))
		}
	}
	for lo := 0; lo < rows; lo += step {
		hi := min(rows, lo+step)
		if err := pt.scatter(cols, parts[lo:hi], lo); err != nil {
			return err
		}
	}
	return nil
}

// noteDicts records the dictionaries of column i of the batch being
// written (at every level of nesting), and reports whether they differ
// from the last batch's: not the same arrays and not equal.
func (pt *Partitioner) noteDicts(i int, d arrow.ArrayData) bool {
	now := dictsOf(d, pt.dicts[i][:0:0])
	last := pt.dicts[i]
	changed := len(last) != 0 && len(now) != len(last)
	for k := 0; k < len(last) && k < len(now) && !changed; k++ {
		changed = last[k] != now[k] && !sameDicts([]seg{{d: &dictOnly{last[k]}}, {d: &dictOnly{now[k]}}})
	}
	for _, x := range now {
		x.Retain()
	}
	for _, x := range last {
		x.Release()
	}
	pt.dicts[i] = now
	return changed
}

// dictsOf appends the dictionaries of d and its children, depth first.
func dictsOf(d arrow.ArrayData, out []arrow.ArrayData) []arrow.ArrayData {
	if dd := dictionaryOf(d); dd != nil {
		out = append(out, dd)
	}
	for _, c := range d.Children() {
		out = dictsOf(c, out)
	}
	return out
}

// dictOnly is an ArrayData whose dictionary is d, for sameDicts.
type dictOnly struct {
	arrow.ArrayData
}

func (o *dictOnly) Dictionary() arrow.ArrayData { return o.ArrayData }

// scatter appends rows [first, first+len(parts)) of the batch whose
// columns are cols to their partitions, finishing the blocks that reach
// their target on the way. It goes a range of rows at a time, each range
// ending where some partition's block reaches WithBlockRows: flat columns
// are scattered column-major over the range, the others partition by
// partition.
func (pt *Partitioner) scatter(cols []arrow.Array, parts []uint32, first int) error {
	pt.ss.size(pt.n)
	for lo := 0; lo < len(parts); {
		hi := pt.tally(parts, lo)
		rng, cnt := parts[lo:hi], pt.counts[:pt.n]
		add, mem := pt.add[:pt.n], pt.mem[:pt.n]
		clear(add)
		clear(mem)
		one := int(rng[0])
		if int(cnt[one]) != len(rng) {
			one = -1
		}
		pt.gather = one < 0 && pt.gathers(len(rng))
		if pt.rowMajor || pt.gather {
			pt.sortRows(rng, cnt)
		}
		for i, col := range cols {
			if pt.flat[i] {
				pt.scatterFlat(i, col.Data(), rng, first+lo, cnt, add, mem, one)
			}
		}
		if pt.rowMajor {
			pt.byPartition(cols, first+lo, cnt, add, mem)
		}
		for q, c := range cnt {
			if c == 0 {
				continue
			}
			pa := &pt.parts[q]
			pa.rows += int(c)
			pt.room[q] -= int(c)
			pa.bytes += add[q]
			pa.mem += mem[q]
			pt.held += mem[q]
			if pa.rows >= pt.maxRows || pa.bytes >= pt.maxSize {
				if err := pt.finish(q); err != nil {
					return err
				}
			}
		}
		lo = hi
	}
	if pt.limit > 0 {
		return pt.holdLimit()
	}
	return nil
}

// tally counts, in pt.counts, the rows from lo on that go to each
// partition, up to the row that fills some partition's block to
// WithBlockRows, and returns the end of the rows counted.
func (pt *Partitioner) tally(parts []uint32, lo int) int {
	cnt, room := pt.counts[:pt.n], pt.room
	clear(cnt)
	for r := lo; r < len(parts); r++ {
		q := parts[r]
		cnt[q]++
		if int(cnt[q]) == room[q] {
			return r + 1
		}
	}
	return len(parts)
}

// byPartition appends the rows of the columns that are not flat to their
// partitions, partition by partition (the rows sorted by sortRows): cnt[q]
// of the rows go to q.
func (pt *Partitioner) byPartition(cols []arrow.Array, first int, cnt []int32, add, mem []int) {
	for q, c := range cnt {
		if c != 0 {
			a, m := pt.appendRows(q, cols, pt.rowsOf(q), first)
			add[q] += a
			mem[q] += m
		}
	}
}

// appendRows appends rows first+rows[j] of the batch's columns cols that
// are not flat to partition q, and returns the bytes its block grows by
// and the memory its buffers and pieces grow by.
func (pt *Partitioner) appendRows(q int, cols []arrow.Array, rows []int32, first int) (add, mem int) {
	for i, col := range cols {
		if pt.flat[i] {
			continue
		}
		pa := &pt.parts[q]
		d := col.Data()
		if !pt.fast[i] {
			pieces := 0
			pt.part(q)
			pa.segs[i] = pt.appendPieces(pa.segs[i], d, rows, first, &pieces)
			add += pieces
			mem += pieces
			pa.pieceMem += pieces
			continue
		}
		pd := pt.pendOf(q, i)
		pos := rows
		if off := int32(first + d.Offset()); off != 0 {
			if cap(pt.shift) < len(rows) {
				pt.shift = make([]int32, len(rows), 2*len(rows))
			}
			pos = pt.shift[:len(rows)]
			for j, r := range rows {
				pos[j] = r + off
			}
		}
		h0 := pd.held()
		add += pd.appendRows(pt.srcs[i], pos, &pt.sc, 0)
		mem += pd.held() - h0
	}
	return add, mem
}

// appendPieces appends to ps a piece for each of the rows of d (the
// general path: each row its own seg, as AppendBatches of the rows one by
// one would have them), adding their likely bytes to *bytes.
func (pt *Partitioner) appendPieces(ps []piece, d arrow.ArrayData, rows []int32, first int, bytes *int) []piece {
	off := d.Offset() + first
	for _, r := range rows {
		d.Retain()
		ps = append(ps, piece{d: d, off: off + int(r), n: 1})
	}
	per := 1
	if n := d.Len(); n > 0 {
		per = max(1, int(d.SizeInBytes())/n)
	}
	*bytes += len(rows) * (per + int(sizeofPiece))
	return ps
}

// hasDict reports whether p's tree has a dictionary.
func hasDict(p *plan) bool {
	if p.kind == kDict {
		return true
	}
	for _, c := range p.children {
		if hasDict(c) {
			return true
		}
	}
	return false
}

// sizeofPiece is what a piece holds in the Partitioner itself.
const sizeofPiece = 24

// holdLimit finishes the largest pending partitions until the memory
// pending is under the limit.
func (pt *Partitioner) holdLimit() error {
	for pt.held > pt.limit {
		big, most := -1, 0
		for q := range pt.parts {
			if b := pt.parts[q].mem; b > most {
				big, most = q, b
			}
		}
		if big < 0 {
			return nil
		}
		if err := pt.finish(big); err != nil {
			return err
		}
	}
	return nil
}

// finish writes partition q's pending rows as a block, hands it to the
// sink and empties the partition.
func (pt *Partitioner) finish(q int) (err error) {
	pa := &pt.parts[q]
	if pa.rows == 0 {
		return nil
	}
	e := pt.enc
	c := e.encodings.get()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("partition %d: %w", q, e.recovered(r, nil))
		}
		e.putEncoding(c)
		pa.clear()
		pt.room[q] = pt.maxRows
		if pt.limit > 0 {
			// Under a limit, a finished block gives its memory back
			// (kept, it would be held by a partition that may stay
			// small), and the partition starts again from nothing.
			pt.held -= pa.mem
			for _, pd := range pa.live {
				if pd != nil {
					*pd = pend{}
				}
			}
			*pa = partition{}
		} else {
			pt.held -= pa.pieceMem
			pa.mem -= pa.pieceMem
			pa.pieceMem = 0
		}
		if err != nil {
			pt.err = err
		}
	}()
	c.segs = c.segs[:0]
	for i, p := range e.plans {
		pt.cols[i] = len(c.segs)
		for _, pc := range pa.segs[i] {
			s := c.pushed()
			s.set(pc.d, pc.off, pc.n)
			c.est += s.estimate(p)
		}
		if pd := pa.live[i]; pd != nil && pd.n > 0 {
			d := pd.build(p.dt)
			s := c.pushed()
			s.set(d, -1, -1)
			c.est += s.estimate(p)
		}
	}
	pt.cols[len(e.plans)] = len(c.segs)
	c.cols = pt.cols
	out := e.appendGathered(pt.out[:0], c, 0, pa.rows)
	if e.cfg.checksum {
		out = sealBlock(out, 0) // as AppendBatches seals its blocks
	}
	pt.out = out[:0]
	return pt.sink(q, out)
}

// clear empties pa, keeping the buffers of its live rows.
func (pa *partition) clear() {
	for i, ps := range pa.segs {
		for _, pc := range ps {
			pc.d.Release()
		}
		clear(ps)
		pa.segs[i] = ps[:0]
	}
	for _, pd := range pa.live {
		if pd != nil {
			pd.reset()
		}
	}
	pa.rows, pa.bytes = 0, 0
}

// Flush finishes the block of every partition with pending rows, in
// partition order, and hands them to the sink.
func (pt *Partitioner) Flush() error {
	if pt.err != nil {
		return pt.err
	}
	if pt.closed {
		return fmt.Errorf("%w: Partitioner.Flush after Close", ErrClosed)
	}
	for q := range pt.parts {
		if err := pt.finish(q); err != nil {
			return err
		}
	}
	return nil
}

// Close flushes what is pending and releases what the Partitioner holds.
// Later calls of Write and Flush fail with an error wrapping ErrClosed;
// Close again does nothing.
func (pt *Partitioner) Close() error {
	if pt.closed {
		return nil
	}
	err := pt.Flush()
	pt.closed = true
	pt.held = 0
	for q := range pt.parts {
		pt.parts[q].clear()
		pt.parts[q] = partition{}
	}
	clear(pt.pends)
	for i, ds := range pt.dicts {
		for _, d := range ds {
			d.Release()
		}
		pt.dicts[i] = nil
	}
	return err
}

// Held returns the bytes the Partitioner holds for pending rows over all
// partitions, which WithMemoryLimit bounds: the capacity of the buffers
// they are scattered into (kept from block to block without a limit) and
// the general path's share of the arrays it retains.
func (pt *Partitioner) Held() int { return pt.held }

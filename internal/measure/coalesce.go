package measure

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
)

// Coalescing: what writing many small batches costs end to end (written as
// a stream, then read back) when they are coalesced into large blocks by a
// codec.Writer with WithBlockRows, against the ways engines do it without
// arrowpack's help; and what AppendBatches costs against Append of one
// batch of the same rows, and against a plain copy of the block's bytes.

// The ways MeasureCoalescing compares, in the order of CoalesceResult.Ways.
const (
	WayCoalesced       = "arrowpack coalescing Writer"
	WayPerBatch        = "arrowpack, a block per batch"
	WayIPCPerBatch     = "IPC, a message per batch"
	WayConcatIPC       = "array.Concatenate, then IPC"
	WayConcatArrowpack = "array.Concatenate, then arrowpack"
	// WayFloor is no way of writing batches but a floor under all of them:
	// the coalesced stream's bytes copied into the writer and out of the
	// reader, each side checksumming them as a stream's frames are.
	WayFloor = "floor: the coalesced bytes copied and checksummed"
)

// Way is the end-to-end timing of one way of writing the small batches as a
// stream and reading them back.
type Way struct {
	// Name is one of the Way* constants.
	Name string `json:"name"`
	// Write and Read time writing all the batches as one stream into
	// memory and reading that stream back (one block is the whole stream):
	// medians of the runs with their range, the CPU time and the heap
	// allocations.
	Write Op `json:"write"`
	Read  Op `json:"read"`
	// Total is the write and read time of each run added, its median and
	// range.
	Total Op `json:"total"`
	// Bytes is the stream's size; Blocks the number of batches read back.
	Bytes  int64 `json:"bytes"`
	Blocks int   `json:"blocks"`
	// Ratio is this way's total time over the coalescing Writer's in the
	// same run (how many times slower than coalescing it is), the median
	// over the runs, RatioMin and RatioMax the smallest and largest; CPURatio
	// is the same of the median CPU times (0 where unknown).
	Ratio    float64 `json:"ratio_to_coalesced"`
	RatioMin float64 `json:"ratio_to_coalesced_min"`
	RatioMax float64 `json:"ratio_to_coalesced_max"`
	CPURatio float64 `json:"cpu_ratio_to_coalesced"`
	// Err says why the way could not be measured; empty when it was.
	Err string `json:"error,omitempty"`
}

// CoalesceResult is the measurement of one piece size.
type CoalesceResult struct {
	// Shape names the batches' shape; PieceRows is the rows of each of the
	// Pieces batches, and BlockRows the coalescing target.
	Shape     string `json:"shape"`
	PieceRows int    `json:"piece_rows"`
	Pieces    int    `json:"pieces"`
	BlockRows int    `json:"block_rows"`
	Ways      []Way  `json:"ways"`
}

// way is one way of writing the batches as a stream and reading it back,
// which read reports the batches of.
type way struct {
	write func(w io.Writer) error
	read  func(r io.Reader) (int, error)
}

// copyFloor returns the floor way for stream: its writer copies stream's
// pieces (its blocks, and first the bytes around them: header, frame
// headers, end frame) into a buffer of its own, checksums each and writes
// it; its reader reads each piece into a buffer of its own and checksums
// it. Each side allocates its buffer once per stream, as a Writer and a
// Reader do. Neither encodes nor decodes anything: any checksummed stream
// of these bytes costs at least this.
func copyFloor(stream []byte) (way, error) {
	sizes, err := streamPieces(stream)
	if err != nil {
		return way{}, err
	}
	crc := crc32.MakeTable(crc32.Castagnoli)
	largest := slices.Max(sizes)
	return way{
		write: func(w io.Writer) error {
			b := make([]byte, largest)
			at := 0
			for _, n := range sizes {
				at += copy(b, stream[at:at+n])
				_ = crc32.Checksum(b[:n], crc)
				if _, err := w.Write(b[:n]); err != nil {
					return err
				}
			}
			return nil
		},
		read: func(r io.Reader) (int, error) {
			b := make([]byte, largest)
			for _, n := range sizes {
				if _, err := io.ReadFull(r, b[:n]); err != nil {
					return 0, err
				}
				_ = crc32.Checksum(b[:n], crc)
			}
			return len(sizes) - 1, nil // the blocks
		},
	}, nil
}

// streamPieces returns the sizes of pieces that together are the arrowpack
// stream: the bytes around its blocks, then each block, as codec.Reader
// reports them.
func streamPieces(stream []byte) ([]int, error) {
	rd, err := codec.NewReader(bytes.NewReader(stream))
	if err != nil {
		return nil, err
	}
	defer rd.Release()
	sizes := []int{len(stream)}
	for rd.Next() {
		n := rd.BlockInfo().Size
		sizes[0] -= n
		sizes = append(sizes, n)
	}
	return sizes, rd.Err()
}

// MeasureCoalescing writes pieces (batches of one schema) as a stream and
// reads it back in each of the five ways, and times the floor under them
// (WayFloor), taking turns opts.Runs times, each run of a timing the same
// number of streams, for medians with their range: through a codec.Writer with
// WithBlockRows(blockRows); through a codec.Writer without it, a block per
// batch; as an IPC stream, a message per batch; and concatenated with
// array.Concatenate into batches of about blockRows rows, then written as
// IPC or arrowpack. Each way's stream is checked to read back to the pieces'
// rows before it is timed.
func MeasureCoalescing(shape string, pieces []arrow.RecordBatch, blockRows int, opts Options) (CoalesceResult, error) {
	if len(pieces) == 0 || blockRows < 1 {
		return CoalesceResult{}, errors.New("measure: no batches or no block size")
	}
	schema := pieces[0].Schema()
	res := CoalesceResult{Shape: shape, PieceRows: int(pieces[0].NumRows()), Pieces: len(pieces), BlockRows: blockRows}
	benchMu.Lock()
	defer benchMu.Unlock()

	apWrite := func(w io.Writer, recs []arrow.RecordBatch, o ...codec.Option) error {
		cw, err := codec.NewWriter(w, schema, o...)
		if err != nil {
			return err
		}
		return batches.WriteAll(cw, recs)
	}
	concatThen := func(write func(io.Writer, []arrow.RecordBatch) error) func(io.Writer) error {
		return func(w io.Writer) error {
			var groups []arrow.RecordBatch
			defer func() { batches.Release(groups) }()
			for start := 0; start < len(pieces); {
				end, rows := start, 0
				for end < len(pieces) && (end == start || rows+int(pieces[end].NumRows()) <= blockRows) {
					rows += int(pieces[end].NumRows())
					end++
				}
				g, err := concatenate(schema, pieces[start:end])
				if err != nil {
					return err
				}
				groups = append(groups, g)
				start = end
			}
			return write(w, groups)
		}
	}
	ipcWrite := func(w io.Writer, recs []arrow.RecordBatch) error {
		return batches.WriteAll(ipc.NewWriter(w, ipc.WithSchema(schema)), recs)
	}
	apPerBatch := func(w io.Writer, recs []arrow.RecordBatch) error { return apWrite(w, recs) }
	ways := []way{
		{func(w io.Writer) error { return apWrite(w, pieces, codec.WithBlockRows(blockRows)) }, readArrowpack},
		{func(w io.Writer) error { return apWrite(w, pieces) }, readArrowpack},
		{func(w io.Writer) error { return ipcWrite(w, pieces) }, readIPC},
		{concatThen(ipcWrite), readIPC},
		{concatThen(apPerBatch), readArrowpack},
	}
	names := []string{WayCoalesced, WayPerBatch, WayIPCPerBatch, WayConcatIPC, WayConcatArrowpack}
	res.Ways = make([]Way, len(ways)+1)
	streams := make([][]byte, len(ways)+1)
	var total int64
	for _, p := range pieces {
		total += p.NumRows()
	}
	for i, w := range ways {
		res.Ways[i].Name = names[i]
		var buf bytes.Buffer
		err := protect(func() error { return w.write(&buf) })
		if err == nil {
			streams[i] = buf.Bytes()
			err = protect(func() error { return checkStream(w.read, streams[i], pieces) })
		}
		if err != nil {
			res.Ways[i].Err = err.Error()
		}
	}
	floor := &res.Ways[len(res.Ways)-1]
	floor.Name = WayFloor
	if floor.Err = res.Ways[0].Err; floor.Err == "" {
		if fw, err := copyFloor(streams[0]); err != nil {
			floor.Err = err.Error()
		} else {
			ways = append(ways, fw)
			streams[len(ways)-1] = streams[0]
		}
	}
	var buf bytes.Buffer
	var turns []*turn
	var measured []int // the ways turns time, two turns each
	errs := make([]error, len(ways))
	blocks := make([]int, len(ways))
	for i, w := range ways {
		if res.Ways[i].Err != "" {
			continue
		}
		measured = append(measured, i)
		turns = append(turns,
			&turn{what: "write", err: &errs[i], run: func(int) error { buf.Reset(); return w.write(&buf) }},
			&turn{what: "read", err: &errs[i], run: func(int) error {
				n, err := w.read(bytes.NewReader(streams[i]))
				blocks[i] = n
				return err
			}})
	}
	takeTurns(1, turns, opts)
	for j, i := range measured {
		rw := &res.Ways[i]
		if errs[i] != nil {
			rw.Err = errs[i].Error()
			continue
		}
		rw.Write, rw.Read = summarize(turns[2*j].runs), summarize(turns[2*j+1].runs)
		rw.Total = addRuns(rw.Write, rw.Read)
		rw.Bytes, rw.Blocks = int64(len(streams[i])), blocks[i]
	}
	if base := res.Ways[0]; base.Err == "" {
		for i := range res.Ways {
			if w := &res.Ways[i]; w.Err == "" {
				w.Ratio, w.RatioMin, w.RatioMax = Spread(runRatios(w.Total, base.Total))
				if base.Total.CPUNsPerBlock > 0 {
					w.CPURatio = w.Total.CPUNsPerBlock / base.Total.CPUNsPerBlock
				}
			}
		}
	}
	return res, nil
}

// addRuns returns the timing of a and b run one after the other in each
// run: their times added run by run, the median and range of the sums,
// the median CPU times and allocations added.
func addRuns(a, b Op) Op {
	var sums []float64
	for i := range min(len(a.NsRuns), len(b.NsRuns)) {
		sums = append(sums, a.NsRuns[i]+b.NsRuns[i])
	}
	t := Op{NsRuns: sums, CPUNsPerBlock: a.CPUNsPerBlock + b.CPUNsPerBlock, AllocsPerBlock: a.AllocsPerBlock + b.AllocsPerBlock,
		AllocBytesPerBlock: a.AllocBytesPerBlock + b.AllocBytesPerBlock, Blocks: a.Blocks}
	t.NsPerBlock, t.NsMin, t.NsMax = Spread(sums)
	return t
}

// concatenate returns array.Concatenate's concatenation of recs.
func concatenate(schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	parts := make([]arrow.Array, len(recs))
	rows := int64(0)
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range cols {
		for k, r := range recs {
			parts[k] = r.Column(i)
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
		cols[i] = c
	}
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// readArrowpack reads an arrowpack stream to the end and returns the number
// of batches in it.
func readArrowpack(r io.Reader) (int, error) {
	rd, err := codec.NewReader(r)
	if err != nil {
		return 0, err
	}
	return CountBatches(rd)
}

// readIPC reads an IPC stream to the end and returns the number of batches
// in it.
func readIPC(r io.Reader) (int, error) {
	rd, err := ipc.NewReader(r)
	if err != nil {
		return 0, err
	}
	return CountBatches(rd)
}

// CountBatches reads rd to the end, releases it and returns the number of
// batches it held and the reader's error: how a timing reads a stream
// (codec.Reader and ipc.Reader are both array.RecordReaders).
func CountBatches(rd array.RecordReader) (int, error) {
	defer rd.Release()
	n := 0
	for rd.Next() {
		n++
	}
	return n, rd.Err()
}

// checkStream reads stream with read's reader and checks it holds the rows
// of pieces, in order.
func checkStream(read func(io.Reader) (int, error), stream []byte, pieces []arrow.RecordBatch) error {
	if _, err := read(bytes.NewReader(stream)); err != nil {
		return err
	}
	// Read again keeping the batches (the timed readers drop them).
	var rd array.RecordReader
	if r, err := codec.NewReader(bytes.NewReader(stream)); err == nil {
		rd = r
	} else if rd, err = ipc.NewReader(bytes.NewReader(stream)); err != nil {
		return err
	}
	got, err := batches.ReadAll(rd)
	rd.Release()
	defer batches.Release(got)
	if err != nil {
		return err
	}
	all, err := concatenate(pieces[0].Schema(), got)
	if err != nil {
		return err
	}
	defer all.Release()
	want, err := concatenate(pieces[0].Schema(), pieces)
	if err != nil {
		return err
	}
	defer want.Release()
	if !sameBatch(want, all) {
		return errors.New("the stream does not read back to the batches' rows")
	}
	return nil
}

// AppendBatchesResult compares, for one batch cut into pieces, encoding
// the pieces as one block (AppendBatches) with encoding the batch (Append)
// and with copying the block's bytes.
type AppendBatchesResult struct {
	Shape     string `json:"shape"`
	Rows      int    `json:"rows"`
	PieceRows int    `json:"piece_rows"`
	Bytes     int    `json:"bytes"`
	// AppendBatches, Append and Copy time AppendBatches of the pieces,
	// Append of the whole batch and a copy of the block's bytes: medians
	// of the runs with their range, the CPU time and the allocations.
	AppendBatches Op `json:"append_batches"`
	Append        Op `json:"append"`
	Copy          Op `json:"copy"`
	// PieceCopy times a copy of every buffer of the pieces (at every
	// level) into one buffer, walking their arrays, without encoding: a
	// floor under AppendBatches, which reads the same bytes from the same
	// places.
	PieceCopy Op `json:"piece_copy"`
	// CoalesceRatio is AppendBatches' time over Append's (target: at most
	// 1.3), PieceCopyRatio AppendBatches' over PieceCopy's and CopyRatio
	// Append's over Copy's (encode over copy), each the median of the
	// ratios within the runs with their range ([0] median, [1] smallest,
	// [2] largest). CPURatio and CopyCPURatio are the first and the last
	// of the median CPU times (0 where unknown).
	CoalesceRatio  [3]float64 `json:"coalesce_ratio"`
	PieceCopyRatio [3]float64 `json:"piece_copy_ratio"`
	CopyRatio      [3]float64 `json:"copy_ratio"`
	CPURatio       float64    `json:"coalesce_cpu_ratio"`
	CopyCPURatio   float64    `json:"copy_cpu_ratio"`
}

// MeasureAppendBatches cuts rec into batches of pieceRows rows (compact
// copies, as a partitioner makes) and times AppendBatches of them, Append
// of rec, a copy of rec's block and a copy of the pieces' buffers, taking
// turns opts.Runs times, each run of a timing the same number of calls.
// The two blocks must be byte for byte equal.
func MeasureAppendBatches(shape string, rec arrow.RecordBatch, pieceRows int, opts Options) (AppendBatchesResult, error) {
	res := AppendBatchesResult{Shape: shape, Rows: int(rec.NumRows()), PieceRows: pieceRows}
	pieces, err := Pieces(rec, pieceRows)
	if err != nil {
		return res, err
	}
	defer batches.Release(pieces)
	enc, err := codec.NewEncoder(rec.Schema())
	if err != nil {
		return res, err
	}
	one, err := enc.Append(nil, rec)
	if err != nil {
		return res, err
	}
	many, err := enc.AppendBatches(nil, pieces...)
	if err != nil {
		return res, err
	}
	if !bytes.Equal(one, many) {
		return res, fmt.Errorf("measure: AppendBatches of %d pieces differs from Append of the batch", len(pieces))
	}
	res.Bytes = len(one)
	benchMu.Lock()
	defer benchMu.Unlock()
	buf := alignedCopy(one)[:0]
	dst := alignedCopy(one)
	pieceDst := make([]byte, copyPieces(nil, pieces))
	var failed error
	turns := []*turn{
		{what: "AppendBatches", err: &failed, run: func(int) error { _, err := enc.AppendBatches(buf, pieces...); return err }},
		{what: "Append", err: &failed, run: func(int) error { _, err := enc.Append(buf, rec); return err }},
		{err: &failed, run: func(int) error { copy(dst, one); return nil }},
		{err: &failed, run: func(int) error { copyPieces(pieceDst, pieces); return nil }},
	}
	takeTurns(1, turns, opts)
	if failed != nil {
		return res, failed
	}
	res.AppendBatches, res.Append, res.Copy, res.PieceCopy = summarize(turns[0].runs), summarize(turns[1].runs), summarize(turns[2].runs), summarize(turns[3].runs)
	spread := func(a, b Op) (r [3]float64) {
		r[0], r[1], r[2] = Spread(runRatios(a, b))
		return r
	}
	res.CoalesceRatio = spread(res.AppendBatches, res.Append)
	res.PieceCopyRatio = spread(res.AppendBatches, res.PieceCopy)
	res.CopyRatio = spread(res.Append, res.Copy)
	if res.Append.CPUNsPerBlock > 0 && res.Copy.CPUNsPerBlock > 0 {
		res.CPURatio = res.AppendBatches.CPUNsPerBlock / res.Append.CPUNsPerBlock
		res.CopyCPURatio = res.Append.CPUNsPerBlock / res.Copy.CPUNsPerBlock
	}
	return res, nil
}

// copyPieces copies the bytes of every buffer of recs' arrays, children
// and dictionaries included, column by column, into dst (when dst is nil,
// only counts them) and returns their number.
func copyPieces(dst []byte, recs []arrow.RecordBatch) int {
	at := 0
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b == nil {
				continue
			}
			if dst != nil {
				copy(dst[at:], b.Bytes())
			}
			at += b.Len()
		}
		for _, c := range d.Children() {
			walk(c)
		}
		// (Dictionary holds a nil *array.Data, not a nil interface, when
		// there is none.)
		if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
			walk(dict)
		}
	}
	if len(recs) == 0 {
		return 0
	}
	for c := range int(recs[0].NumCols()) {
		for _, r := range recs {
			walk(r.Column(c).Data())
		}
	}
	return at
}

// Pieces cuts rec into batches of pieceRows rows (the last may be shorter),
// each a compact copy that owns its memory, as a partitioner makes. The
// caller releases them (batches.Release).
func Pieces(rec arrow.RecordBatch, pieceRows int) ([]arrow.RecordBatch, error) {
	if pieceRows < 1 {
		return nil, errors.New("measure: pieces of no rows")
	}
	var pieces []arrow.RecordBatch
	for i := int64(0); i < rec.NumRows(); i += int64(pieceRows) {
		s := rec.NewSlice(i, min(i+int64(pieceRows), rec.NumRows()))
		p, err := concatenate(rec.Schema(), []arrow.RecordBatch{s})
		s.Release()
		if err != nil {
			batches.Release(pieces)
			return nil, err
		}
		pieces = append(pieces, p)
	}
	return pieces, nil
}

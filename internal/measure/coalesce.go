package measure

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"text/tabwriter"

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
	// WriteNs and ReadNs are the times to write all the batches as one
	// stream into memory and to read that stream back, in nanoseconds.
	WriteNs float64 `json:"write_ns"`
	ReadNs  float64 `json:"read_ns"`
	// WriteCPUNs and ReadCPUNs are the CPU time (user and system, of the
	// whole process) per write and per read, 0 where unknown. On a machine
	// busy with other work they are steadier than the times, which count
	// the waits for a CPU too.
	WriteCPUNs float64 `json:"write_cpu_ns"`
	ReadCPUNs  float64 `json:"read_cpu_ns"`
	// Allocs is the number of heap allocations of a write and a read.
	Allocs float64 `json:"allocs"`
	// Bytes is the stream's size; Blocks the number of batches read back.
	Bytes  int64 `json:"bytes"`
	Blocks int   `json:"blocks"`
	// Ratio is (WriteNs+ReadNs) over the coalescing Writer's: how many
	// times slower than coalescing this way is; CPURatio the same of the CPU
	// times (0 where unknown).
	Ratio    float64 `json:"ratio_to_coalesced"`
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
// (WayFloor), taking turns opts.Runs times and keeping each way's fastest
// run: through a codec.Writer with
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
	unlock, err := lockBenchTime(opts)
	if err != nil {
		return res, err
	}
	defer unlock()

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
	for round := range opts.runs() {
		for i, w := range ways {
			rw := &res.Ways[i]
			if rw.Err != "" {
				continue
			}
			wop, wcpu, err := timeOpCPU(func(int) error { buf.Reset(); return w.write(&buf) })
			if err != nil {
				rw.Err = "write: " + err.Error()
				continue
			}
			blocks := 0
			rop, rcpu, err := timeOpCPU(func(int) error {
				n, err := w.read(bytes.NewReader(streams[i]))
				blocks = n
				return err
			})
			if err != nil {
				rw.Err = "read: " + err.Error()
				continue
			}
			if round == 0 || wop.NsPerBlock+rop.NsPerBlock < rw.WriteNs+rw.ReadNs {
				rw.WriteNs, rw.ReadNs = wop.NsPerBlock, rop.NsPerBlock
				rw.WriteCPUNs, rw.ReadCPUNs = wcpu, rcpu
				rw.Allocs = wop.AllocsPerBlock + rop.AllocsPerBlock
				rw.Bytes, rw.Blocks = int64(len(streams[i])), blocks
			}
		}
	}
	if base := res.Ways[0]; base.Err == "" {
		for i := range res.Ways {
			if w := &res.Ways[i]; w.Err == "" {
				w.Ratio = (w.WriteNs + w.ReadNs) / (base.WriteNs + base.ReadNs)
				if base.WriteCPUNs > 0 {
					w.CPURatio = (w.WriteCPUNs + w.ReadCPUNs) / (base.WriteCPUNs + base.ReadCPUNs)
				}
			}
		}
	}
	return res, nil
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
	// AppendBatchesNs, AppendNs and CopyNs are the times of AppendBatches
	// of the pieces, of Append of the whole batch and of copy of a block's
	// bytes.
	AppendBatchesNs float64 `json:"append_batches_ns"`
	AppendNs        float64 `json:"append_ns"`
	CopyNs          float64 `json:"copy_ns"`
	// AppendBatchesCPUNs, AppendCPUNs and CopyCPUNs are the same in CPU
	// time (of the whole process), 0 where unknown.
	AppendBatchesCPUNs float64 `json:"append_batches_cpu_ns"`
	AppendCPUNs        float64 `json:"append_cpu_ns"`
	CopyCPUNs          float64 `json:"copy_cpu_ns"`
	// PieceCopyNs is the time to copy every buffer of the pieces (at every
	// level) into one buffer, walking their arrays, without encoding: a
	// floor under AppendBatches, which reads the same bytes from the same
	// places. PieceCopyRatio is AppendBatchesNs / PieceCopyNs.
	PieceCopyNs    float64 `json:"piece_copy_ns"`
	PieceCopyRatio float64 `json:"piece_copy_ratio"`
	// Allocs is AppendBatches's heap allocations per call.
	Allocs float64 `json:"allocs"`
	// CoalesceRatio is AppendBatchesNs / AppendNs (target: at most 1.3);
	// CopyRatio is AppendNs / CopyNs (encode over copy). CPURatio and
	// CopyCPURatio are the same of the CPU times.
	CoalesceRatio float64 `json:"coalesce_ratio"`
	CopyRatio     float64 `json:"copy_ratio"`
	CPURatio      float64 `json:"coalesce_cpu_ratio"`
	CopyCPURatio  float64 `json:"copy_cpu_ratio"`
}

// MeasureAppendBatches cuts rec into batches of pieceRows rows (compact
// copies, as a partitioner makes) and times AppendBatches of them, Append
// of rec, and a copy of rec's block, taking turns opts.Runs times and
// keeping each one's fastest run. The two blocks must be byte for byte
// equal.
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
	unlock, err := lockBenchTime(opts)
	if err != nil {
		return res, err
	}
	defer unlock()
	buf := alignedCopy(one)[:0]
	dst := alignedCopy(one)
	pieceDst := make([]byte, copyPieces(nil, pieces))
	var pieceCPU float64
	ops := []struct {
		dst, cpu *float64
		run      func(int) error
	}{
		{&res.AppendBatchesNs, &res.AppendBatchesCPUNs, func(int) error { _, err := enc.AppendBatches(buf, pieces...); return err }},
		{&res.AppendNs, &res.AppendCPUNs, func(int) error { _, err := enc.Append(buf, rec); return err }},
		{&res.CopyNs, &res.CopyCPUNs, func(int) error { copy(dst, one); return nil }},
		{&res.PieceCopyNs, &pieceCPU, func(int) error { copyPieces(pieceDst, pieces); return nil }},
	}
	for round := range opts.runs() {
		for i, o := range ops {
			op, cpu, err := timeOpCPU(o.run)
			if err != nil {
				return res, err
			}
			if round == 0 || op.NsPerBlock < *o.dst {
				*o.dst = op.NsPerBlock
				if i == 0 {
					res.Allocs = op.AllocsPerBlock
				}
			}
			if round == 0 || cpu < *o.cpu {
				*o.cpu = cpu
			}
		}
	}
	res.CoalesceRatio = res.AppendBatchesNs / res.AppendNs
	res.PieceCopyRatio = res.AppendBatchesNs / res.PieceCopyNs
	res.CopyRatio = res.AppendNs / res.CopyNs
	if res.AppendCPUNs > 0 && res.CopyCPUNs > 0 {
		res.CPURatio = res.AppendBatchesCPUNs / res.AppendCPUNs
		res.CopyCPURatio = res.AppendCPUNs / res.CopyCPUNs
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

// timeOpCPU is timeOp of one block, which also returns the CPU time per
// run of op (0 if unknown): the process's CPU time over the timing divided
// by the runs of op it made, warm-up runs included.
func timeOpCPU(op func(i int) error) (Op, float64, error) {
	runs := 0
	start, ok := cpuTime()
	o, err := timeOp(1, func(i int) error { runs++; return op(i) })
	end, ok2 := cpuTime()
	if err != nil || !ok || !ok2 || runs == 0 {
		return o, 0, err
	}
	return o, float64((end - start).Nanoseconds()) / float64(runs), nil
}

// WriteCoalesceTables prints the results of MeasureAppendBatches and
// MeasureCoalescing as two tables.
func WriteCoalesceTables(w io.Writer, appends []AppendBatchesResult, ways []CoalesceResult) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\trows\tpiece rows\tAppendBatches\tAppend\tcopy\tpieces' copy\tAppendBatches/Append\t(CPU)\tAppend/copy\t(CPU)\tAppendBatches/pieces' copy\tallocs\t")
	for _, r := range appends {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f us\t%.1f us\t%.1f us\t%.1f us\t%.2fx\t%.2fx\t%.2fx\t%.2fx\t%.2fx\t%.0f\t\n", r.Shape, r.Rows, r.PieceRows,
			r.AppendBatchesNs/1e3, r.AppendNs/1e3, r.CopyNs/1e3, r.PieceCopyNs/1e3, r.CoalesceRatio, r.CPURatio, r.CopyRatio, r.CopyCPURatio, r.PieceCopyRatio, r.Allocs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range ways {
		fmt.Fprintf(w, "\n%d batches of %d %s rows, written as a stream and read back (blocks of %d rows):\n", r.Pieces, r.PieceRows, r.Shape, r.BlockRows)
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "way\twrite\tread\ttotal\tx coalesced\tCPU total\tx coalesced (CPU)\tbatches read\tbytes\tallocs\t")
		for _, wy := range r.Ways {
			if wy.Err != "" {
				fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\t\t\t\t\n", wy.Name, "failed: "+wy.Err)
				continue
			}
			fmt.Fprintf(tw, "%s\t%.2f ms\t%.2f ms\t%.2f ms\t%.1fx\t%.2f ms\t%.1fx\t%d\t%d\t%.0f\t\n", wy.Name, wy.WriteNs/1e6, wy.ReadNs/1e6,
				(wy.WriteNs+wy.ReadNs)/1e6, wy.Ratio, (wy.WriteCPUNs+wy.ReadCPUNs)/1e6, wy.CPURatio, wy.Blocks, wy.Bytes, wy.Allocs)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

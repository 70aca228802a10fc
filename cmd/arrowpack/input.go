package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/arrowpack/arrowpack/codec"
)

// format is a kind of input file.
type format int

const (
	formatIPCFile   format = iota + 1 // Arrow IPC file ("ARROW1")
	formatIPCStream                   // Arrow IPC stream
	formatParquet                     // Parquet ("PAR1")
	formatArrowpack                   // arrowpack stream ("APKS")
)

func (f format) String() string {
	switch f {
	case formatIPCFile:
		return "Arrow IPC file"
	case formatIPCStream:
		return "Arrow IPC stream"
	case formatParquet:
		return "Parquet file"
	case formatArrowpack:
		return "arrowpack stream"
	}
	return "unknown format"
}

// defaultBatchRows is the number of rows per batch read from Parquet.
const defaultBatchRows = 64 * 1024

// batchReader is what the readers of every input format have in common.
type batchReader interface {
	Schema() *arrow.Schema
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
	Release()
}

// readAtSeeker is what the IPC file and Parquet readers read from.
type readAtSeeker interface {
	io.Reader
	io.ReaderAt
	io.Seeker
}

// input is an open input, a file or standard input ("-"), read batch by
// batch. Whatever it holds, its readers' failures, panics included, come out
// of Err as errors.
type input struct {
	path   string // as given; "-" for standard input
	format format
	size   int64           // bytes of the input; -1 while unknown (a pipe)
	f      *os.File        // the file, nil for standard input
	read   *countingReader // counts the bytes a stream reader consumed
	r      batchReader
	apk    *codec.Reader     // the reader when format is formatArrowpack
	ipcf   *ipc.FileReader   // the reader when format is formatIPCFile
	ra     readAtSeeker      // what ipcf reads
	ipcTap *tapMessageReader // the message reader when format is formatIPCStream
	pq     *file.Reader      // the reader when format is formatParquet
	pqa    *pqarrow.FileReader
	// int96 names the top-level fields of a Parquet input that hold
	// legacy INT96 timestamps, which have no time zone, still read as
	// timestamp[ns, tz=UTC] (inside a type zoneless cannot rebuild).
	int96  []string
	extra  func() // releases what the reader holds beyond itself
	err    error
	closed bool

	batches, rows int64 // read so far
	// batchStart is the offset in the input where the current (or the
	// failing) batch of a stream starts; damageAt is where reading failed
	// in a stream, -1 if it did not or the offset is unknown.
	batchStart, damageAt int64
}

// name is how messages call the input.
func (in *input) name() string {
	if in.path == "-" {
		return "stdin"
	}
	return in.path
}

// openInput opens path ("-" for stdin) and detects its format from its
// first bytes. batchRows is the number of rows per batch read from a
// Parquet file. Inputs that cannot seek (stdin, a pipe) are read as they
// come when they hold a stream; an IPC file or a Parquet file, which need
// random access, are read into memory first.
func openInput(path string, stdin io.Reader, batchRows int) (_ *input, err error) {
	in := &input{path: path, size: -1, damageAt: -1}
	var src io.Reader
	var ra readAtSeeker
	if path == "-" {
		if stdin == nil {
			return nil, errors.New("no standard input")
		}
		src = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		in.f = f
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a directory", path)
		}
		if st.Mode().IsRegular() {
			in.size, ra = st.Size(), f
		}
		src = f
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: reading the %s: %v", in.name(), in.format, p)
		}
		if err != nil {
			in.Close()
		}
	}()
	br := bufio.NewReaderSize(src, 1<<20)
	magic, err := br.Peek(8)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", in.name(), err)
	}
	if in.format, err = detect(magic, in.size); err != nil {
		return nil, fmt.Errorf("%s: %w", in.name(), err)
	}
	if ra == nil && (in.format == formatIPCFile || in.format == formatParquet) {
		// These formats are read from their end: hold the input in memory.
		b, err := io.ReadAll(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.name(), err)
		}
		ra = bytes.NewReader(b)
		in.size = int64(len(b))
	}
	in.read = &countingReader{r: br}
	// No body in the input can be larger than the input: a corrupted length
	// must not make the IPC reader allocate more. For a pipe, whose size is
	// unknown, the arrowpack limit holds.
	limit := ipc.WithBodySizeLimit(codec.DefaultMaxBlockSize)
	if in.size >= 0 {
		limit = ipc.WithBodySizeLimit(max(in.size, 1))
	}
	mem := memory.DefaultAllocator
	switch in.format {
	case formatIPCFile:
		in.ra = ra
		fr, err := ipc.NewFileReader(ra, limit, ipc.WithAllocator(mem))
		if err != nil {
			return nil, fmt.Errorf("%s: not a readable Arrow IPC file: %v", in.name(), err)
		}
		in.r, in.ipcf = &ipcFileReader{r: fr}, fr
	case formatIPCStream:
		// Through a message reader of its own: ipc.NewReader would not
		// apply the body limit, and inspect learns each batch's size and
		// compression from it.
		in.ipcTap = newTapMessageReader(in.read, limit, ipc.WithAllocator(mem))
		r, err := ipc.NewReaderFromMessageReader(in.ipcTap, limit, ipc.WithAllocator(mem))
		if err != nil {
			return nil, fmt.Errorf("%s: the Arrow IPC stream's schema is unreadable: %v", in.name(), err)
		}
		in.r = r
	case formatParquet:
		if err := openParquet(in, ra, batchRows, mem); err != nil {
			return nil, err
		}
	case formatArrowpack:
		r, err := codec.NewReader(in.read)
		if err != nil {
			return nil, fmt.Errorf("%s: the arrowpack stream's header or schema is unreadable: %s", in.name(), codecDetail(err))
		}
		in.r, in.apk = r, r
	}
	return in, nil
}

// openParquet opens the Parquet file in ra for in, with a message that
// names the cause for what arrow-go cannot read: encryption, a codec it
// lacks.
func openParquet(in *input, ra readAtSeeker, batchRows int, mem memory.Allocator) error {
	pf, err := file.NewParquetReader(ra)
	if err != nil {
		if strings.Contains(err.Error(), "encrypt") {
			return fmt.Errorf("%s is an encrypted Parquet file: arrowpack has no keys to decrypt it (%v)", in.name(), err)
		}
		return fmt.Errorf("%s: not a readable Parquet file: %v", in.name(), err)
	}
	in.pq = pf
	in.extra = func() { pf.Close() }
	md := pf.MetaData()
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return fmt.Errorf("%s: row group %d column %d: %v", in.name(), g, c, err)
			}
			col := cc.PathInSchema().String()
			if cc.CryptoMetadata() != nil {
				return fmt.Errorf("%s: column %s is encrypted: arrowpack has no keys to decrypt it", in.name(), col)
			}
			if _, err := compress.GetCodec(cc.Compression()); err != nil {
				return fmt.Errorf("%s: column %s is compressed with %s, a Parquet codec arrow-go cannot decompress",
					in.name(), col, cc.Compression())
			}
		}
	}
	int96 := map[int]bool{}
	for i := range md.Schema.NumColumns() {
		if md.Schema.Column(i).PhysicalType() == parquet.Types.Int96 {
			int96[i] = true
		}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(batchRows)}, mem)
	if err != nil {
		return fmt.Errorf("%s: reading the Parquet schema: %v", in.name(), err)
	}
	in.pqa = fr
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return fmt.Errorf("%s: reading the Parquet file: %v", in.name(), err)
	}
	in.r = rr
	fields, meta := slices.Clone(rr.Schema().Fields()), rr.Schema().Metadata()
	retyped := make([]bool, len(fields))
	if len(int96) > 0 && len(fr.Manifest.Fields) == len(fields) {
		var origin []arrow.Field
		if o := fr.Manifest.OriginSchema; o != nil && o.NumFields() == len(fields) {
			origin = o.Fields()
		}
		for i := range fields {
			var o arrow.DataType
			if origin != nil {
				o = origin[i].Type
			}
			t, changed, left := zoneless(&fr.Manifest.Fields[i], int96, o)
			if changed {
				fields[i].Type, retyped[i] = t, true
			}
			if left {
				in.int96 = append(in.int96, fields[i].Name)
			}
		}
	}
	// The record reader's schema lacks the file's key-value metadata;
	// the file reader's has it.
	full, err := fr.Schema()
	withMeta := err == nil && full.Metadata().Len() > 0 && fieldsDiff(full, rr.Schema()) == ""
	if withMeta {
		meta = full.Metadata()
	}
	if withMeta || slices.Contains(retyped, true) {
		in.r = &withSchema{batchReader: rr, schema: arrow.NewSchema(fields, &meta), retyped: retyped}
	}
	return nil
}

// zoneless returns the type of the Parquet field sf with each legacy INT96
// timestamp in it (the leaf columns int96), which pqarrow reads as
// timestamp[ns, tz=UTC], as timestamp[ns] without a time zone: INT96 has
// none. origin is the field's type in the file's stored Arrow schema (nil if
// none), whose zone pqarrow gave back and which is kept. changed says whether
// the type differs from sf's; left whether an INT96 timestamp in it keeps
// the zone UTC, inside a type zoneless does not rebuild (an extension, say).
func zoneless(sf *pqarrow.SchemaField, int96 map[int]bool, origin arrow.DataType) (t arrow.DataType, changed, left bool) {
	t = sf.Field.Type
	if sf.IsLeaf() {
		ts, ok := t.(*arrow.TimestampType)
		if !int96[sf.ColIndex] || !ok || ts.TimeZone != "UTC" {
			return t, false, false
		}
		if o, ok := origin.(*arrow.TimestampType); ok && o.TimeZone != "" {
			return t, false, false
		}
		return &arrow.TimestampType{Unit: ts.Unit}, true, false
	}
	var ofields, fields []arrow.Field
	if o, ok := origin.(arrow.NestedType); ok && o.ID() == t.ID() {
		ofields = o.Fields()
	}
	if n, ok := t.(arrow.NestedType); ok && len(n.Fields()) == len(sf.Children) {
		fields = slices.Clone(n.Fields())
	}
	for i := range sf.Children {
		var o arrow.DataType
		if i < len(ofields) {
			o = ofields[i].Type
		}
		ct, c, l := zoneless(&sf.Children[i], int96, o)
		left = left || l || c && fields == nil
		if c && fields != nil {
			fields[i].Type, changed = ct, true
		}
	}
	if !changed {
		return t, false, left
	}
	switch t := t.(type) {
	case *arrow.StructType:
		return arrow.StructOf(fields...), true, left
	case *arrow.ListType:
		return arrow.ListOfField(fields[0]), true, left
	case *arrow.LargeListType:
		return arrow.LargeListOfField(fields[0]), true, left
	case *arrow.FixedSizeListType:
		return arrow.FixedSizeListOfField(t.Len(), fields[0]), true, left
	case *arrow.MapType:
		if kv, ok := fields[0].Type.(*arrow.StructType); ok && kv.NumFields() == 2 && !kv.Field(0).Nullable {
			m := arrow.MapOfFields(kv.Field(0), kv.Field(1))
			m.KeysSorted = t.KeysSorted
			return m, true, left
		}
	}
	return t, false, true
}

// retype returns the buffers of d under the type t, of d's layout (the
// types of some of its children changed, not their buffers). The caller
// releases it.
func retype(d arrow.ArrayData, t arrow.DataType) arrow.ArrayData {
	if arrow.TypeEqual(d.DataType(), t) {
		d.Retain()
		return d
	}
	var fields []arrow.Field
	if n, ok := t.(arrow.NestedType); ok {
		fields = n.Fields()
	}
	kids := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		kids[i] = retype(c, fields[i].Type)
	}
	out := array.NewData(t, d.Len(), d.Buffers(), kids, d.NullN(), d.Offset())
	for _, k := range kids {
		k.Release()
	}
	return out
}

// withSchema gives the batches of a reader another schema of the same
// fields: with metadata the reader's lacks, or, for the columns retyped,
// another type of the same layout (zoneless).
type withSchema struct {
	batchReader
	schema  *arrow.Schema
	retyped []bool
	rec     arrow.RecordBatch
}

func (w *withSchema) Schema() *arrow.Schema { return w.schema }

func (w *withSchema) Next() bool {
	if w.rec != nil {
		w.rec.Release()
		w.rec = nil
	}
	if !w.batchReader.Next() {
		return false
	}
	r := w.batchReader.RecordBatch()
	cols := r.Columns()
	if slices.Contains(w.retyped, true) {
		cols = slices.Clone(cols)
		for i, ok := range w.retyped {
			if ok {
				d := retype(cols[i].Data(), w.schema.Field(i).Type)
				cols[i] = array.MakeFromData(d)
				d.Release()
				defer cols[i].Release()
			}
		}
	}
	w.rec = array.NewRecordBatch(w.schema, cols, r.NumRows())
	return true
}

func (w *withSchema) RecordBatch() arrow.RecordBatch { return w.rec }

func (w *withSchema) Release() {
	if w.rec != nil {
		w.rec.Release()
		w.rec = nil
	}
	w.batchReader.Release()
}

// codecDetail returns the message of a codec error without the sentinel's
// own words ("arrowpack: corrupt input: "), for errors that are not about a
// block.
func codecDetail(err error) string {
	msg := err.Error()
	for _, s := range []error{codec.ErrCorrupt, codec.ErrSchemaMismatch, codec.ErrUnsupported} {
		if rest, ok := strings.CutPrefix(msg, s.Error()+": "); ok {
			return rest
		}
	}
	return msg
}

// detect tells the format of an input of size bytes (-1 if unknown) from
// its first bytes.
func detect(magic []byte, size int64) (format, error) {
	switch {
	case len(magic) == 0:
		return 0, errors.New("the input is empty")
	case bytes.HasPrefix(magic, ipc.Magic):
		return formatIPCFile, nil
	case bytes.HasPrefix(magic, []byte("PAR1")):
		return formatParquet, nil
	case bytes.HasPrefix(magic, []byte("PARE")):
		return 0, errors.New("an encrypted Parquet file (encrypted footer): arrowpack has no keys to decrypt it")
	case bytes.HasPrefix(magic, []byte("APKS")):
		return formatArrowpack, nil
	case bytes.HasPrefix(magic, []byte("APKM")):
		return 0, errors.New("a map output of a shuffle: show its index with 'arrowpack partitions', read a partition with 'arrowpack fetch'")
	case bytes.HasPrefix(magic, []byte("APK1")):
		return 0, errors.New("a single arrowpack block, not an arrowpack stream")
	case bytes.HasPrefix(magic, []byte{0xff, 0xff, 0xff, 0xff}):
		return formatIPCStream, nil
	case len(magic) >= 4:
		// An IPC stream in the format before 0.15 starts with the length
		// of its first message.
		n := int64(int32(binary.LittleEndian.Uint32(magic)))
		if n > 0 && (size < 0 && n < 1<<30 || n < size) {
			return formatIPCStream, nil
		}
	}
	return 0, errors.New("not an Arrow IPC, Parquet or arrowpack file")
}

// Schema returns the input's schema.
func (in *input) Schema() *arrow.Schema { return in.r.Schema() }

// Next advances to the next batch and reports whether there is one; Err
// tells, after false, whether reading ended cleanly.
func (in *input) Next() (ok bool) {
	if in.err != nil || in.closed {
		return false
	}
	in.batchStart = in.read.n.Load()
	defer func() {
		if p := recover(); p != nil {
			in.fail(fmt.Errorf("%s: reading the %s: %v", in.name(), in.format, p))
			ok = false
		}
	}()
	if in.r.Next() {
		if in.format != formatArrowpack {
			if err := validBatch(in.r.RecordBatch()); err != nil {
				in.fail(fmt.Errorf("%s: batch %d of the %s is invalid: %w", in.name(), in.batches, in.format, err))
				return false
			}
		}
		in.batches++
		in.rows += in.r.RecordBatch().NumRows()
		return true
	}
	if err := in.r.Err(); err != nil && err != io.EOF {
		if in.format == formatArrowpack {
			in.fail(fmt.Errorf("%s: %w", in.name(), err))
		} else {
			in.fail(fmt.Errorf("%s: reading the %s: %w", in.name(), in.format, err))
		}
	}
	return false
}

// fail ends the reading with err, noting where a stream's damage starts.
func (in *input) fail(err error) {
	in.err = err
	if in.format == formatArrowpack || in.format == formatIPCStream {
		in.damageAt = in.batchStart
	}
}

// RecordBatch returns the current batch, valid until the next call of Next.
func (in *input) RecordBatch() arrow.RecordBatch { return in.r.RecordBatch() }

// Err returns the error that ended the reading, or nil.
func (in *input) Err() error { return in.err }

// progress is how far the reading is: done of total units (total -1 when
// unknown).
type progress struct {
	done, total int64
	unit        string // "bytes", "rows" or "batches"
}

// Progress tells how far the reading is, in what the input can count
// exactly: the rows of a Parquet file (from its footer), the batches of an
// IPC file, the bytes of a stream.
func (in *input) Progress() progress {
	switch in.format {
	case formatParquet:
		return progress{in.rows, in.pq.NumRows(), "rows"}
	case formatIPCFile:
		return progress{in.batches, int64(in.ipcf.NumRecords()), "batches"}
	}
	done := in.read.n.Load()
	if in.size >= 0 {
		done = min(done, in.size)
	}
	return progress{done, in.size, "bytes"}
}

// bytesRead returns the bytes of the input read so far: all of a file read
// with random access, what a stream reader consumed of a stream.
func (in *input) bytesRead() int64 {
	if in.format == formatParquet || in.format == formatIPCFile {
		return in.size
	}
	return in.read.n.Load()
}

// Close releases the reader and closes the file.
func (in *input) Close() {
	if in.closed {
		return
	}
	in.closed = true
	func() {
		defer func() { recover() }()
		if in.r != nil {
			in.r.Release()
		}
		if in.extra != nil {
			in.extra()
		}
	}()
	if in.f != nil {
		in.f.Close()
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// ipcFileReader reads the batches of an Arrow IPC file in order.
type ipcFileReader struct {
	r   *ipc.FileReader
	i   int
	rec arrow.RecordBatch
	err error
}

func (r *ipcFileReader) Schema() *arrow.Schema { return r.r.Schema() }

func (r *ipcFileReader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.err != nil || r.i >= r.r.NumRecords() {
		return false
	}
	r.rec, r.err = r.r.RecordBatchAt(r.i)
	if r.err != nil {
		r.err = fmt.Errorf("batch %d: %w", r.i, r.err)
		return false
	}
	r.i++
	return true
}

func (r *ipcFileReader) RecordBatch() arrow.RecordBatch { return r.rec }

func (r *ipcFileReader) Err() error { return r.err }

func (r *ipcFileReader) Release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	r.r.Close()
}

// sameBatch reports whether a and b hold the same values, NaNs equal to
// NaNs. Dictionary columns are compared by value: Parquet, for one, gives
// a dictionary back with other indices into another dictionary.
func sameBatch(a, b arrow.RecordBatch) bool {
	if array.RecordEqual(a, b) {
		return true
	}
	if a.NumCols() != b.NumCols() || a.NumRows() != b.NumRows() {
		return false
	}
	for i := range a.Columns() {
		ca, cb := a.Column(i), b.Column(i)
		if !arrow.TypeEqual(ca.DataType(), cb.DataType()) {
			// An extension type Parquet gives back as its storage.
			ca, cb = storageOf(ca), storageOf(cb)
		}
		if !arrow.TypeEqual(ca.DataType(), cb.DataType()) {
			// A type Parquet gives back as another (date64 as date32, a
			// list's child renamed), which convert announced: the values
			// must print the same.
			if !sameText(ca, cb) {
				return false
			}
			continue
		}
		if da, ok := ca.(*array.Dictionary); ok {
			db, ok := cb.(*array.Dictionary)
			if !ok || !sameDictValues(da, db) {
				return false
			}
			continue
		}
		if !array.ApproxEqual(ca, cb, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			return false
		}
	}
	return true
}

// storageOf returns an extension array's storage, any other array as it
// is.
func storageOf(a arrow.Array) arrow.Array {
	if ext, ok := a.(array.ExtensionArray); ok {
		return ext.Storage()
	}
	return a
}

// sameText reports whether columns a and b of one length print the same
// values row by row, by cat's rule (appendJSON).
func sameText(a, b arrow.Array) bool {
	var ta, tb []byte
	for i := range a.Len() {
		var errA, errB error
		ta, errA = appendJSON(ta[:0], a, i)
		tb, errB = appendJSON(tb[:0], b, i)
		if errA != nil || errB != nil || !bytes.Equal(ta, tb) {
			return false
		}
	}
	return true
}

// sameDictValues reports whether dictionary arrays a and b of one length
// hold the same values row by row, whatever their indices.
func sameDictValues(a, b *array.Dictionary) bool {
	if !arrow.TypeEqual(a.Dictionary().DataType(), b.Dictionary().DataType()) {
		return false
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) {
			return false
		}
		if a.IsNull(i) {
			continue
		}
		ia, ib := int64(a.GetValueIndex(i)), int64(b.GetValueIndex(i))
		if !array.SliceApproxEqual(a.Dictionary(), ia, ia+1, b.Dictionary(), ib, ib+1, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			return false
		}
	}
	return true
}

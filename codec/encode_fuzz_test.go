package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The encode side of the structured fuzzing: batches built field by field
// with array.NewData from the fuzzer's bytes, following the schema drawn
// as FuzzStructured draws it, with hostile offsets, lengths, type ids, run
// ends, views, null counts and children (see arrayBuilder). Whatever the
// batch, the encoder must refuse it with an error or write a block that
// decodes to an equal batch, within a heap bounded by the batch's bytes.

// arrayBuilder draws arrays from choices; bad lists the hostile choices
// made, for failure messages.
type arrayBuilder struct {
	c    *choices
	bad  []string
	view int // bytes the views drawn reference
}

// hostile decides whether the choice what goes wrong, and how (one of n
// ways), or -1.
func (b *arrayBuilder) hostile(what string, n int) int {
	h := b.c.hostile(n)
	if h >= 0 {
		b.bad = append(b.bad, fmt.Sprintf("%s %d", what, h))
	}
	return h
}

func (b *arrayBuilder) rows() int {
	if b.c.oneIn(8) {
		if b.c.oneIn(8) {
			// Enough rows for Light's lightweight sections; past the
			// input's bytes the values are zeros and empty strings,
			// runs and repeats (run-length and dictionary sections).
			return minLightRows + b.c.intn(1024)
		}
		return b.c.intn(200)
	}
	return b.c.intn(8)
}

func leBytes[T int16 | int32 | int64](v []T) *memory.Buffer {
	size := int(binaryWidth[T]())
	out := make([]byte, len(v)*size)
	for i, x := range v {
		switch size {
		case 2:
			binary.LittleEndian.PutUint16(out[2*i:], uint16(x))
		case 4:
			binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
		default:
			binary.LittleEndian.PutUint64(out[8*i:], uint64(x))
		}
	}
	return memory.NewBufferBytes(out)
}

func binaryWidth[T int16 | int32 | int64]() int {
	var z T
	switch any(z).(type) {
	case int16:
		return 2
	case int32:
		return 4
	}
	return 8
}

// array draws an array of type dt with n rows (after its offset, which
// it also draws), nullable or not.
func (b *arrayBuilder) array(dt arrow.DataType, n int, nullable bool) arrow.ArrayData {
	if dt.ID() == arrow.EXTENSION {
		s := b.array(dt.(arrow.ExtensionType).StorageType(), n, nullable)
		if dict := dictionaryOf(s); dict != nil {
			return array.NewDataWithDictionary(dt, s.Len(), s.Buffers(), s.NullN(), s.Offset(), dict.(*array.Data))
		}
		return array.NewData(dt, s.Len(), s.Buffers(), s.Children(), s.NullN(), s.Offset())
	}
	off := b.c.intn(3)
	m := off + n
	if h := b.hostile("length", 2); h >= 0 {
		// More rows than the buffers hold: by one, or by a million, which
		// no allocation may follow. (Not 2^31: arrays without buffers,
		// null or of no fields, would hold that many legitimately, and
		// comparing them would take minutes; TestEncodeRefusesInvalid
		// has a view array claiming 2^31-1 rows.)
		n = []int{n + 1, n + 1<<20}[h]
	}
	var valid *memory.Buffer
	nulls := 0
	switch dt.ID() {
	case arrow.NULL:
		nulls = n
		if b.hostile("null count of a null array", 1) >= 0 {
			nulls = 0
		}
		return array.NewData(dt, n, []*memory.Buffer{nil}, nil, nulls, off)
	case arrow.SPARSE_UNION, arrow.DENSE_UNION, arrow.RUN_END_ENCODED:
	default:
		if nullable && b.c.oneIn(2) {
			bm := b.c.bytes((m + 7) / 8)
			nulls = n - countOnes(bm, off, min(n, m))
			switch b.hostile("null count", 4) {
			case 0:
				nulls++
			case 1:
				nulls = 0
			case 2:
				nulls = -1 // unknown: fine
			case 3:
				bm = bm[:len(bm)/2]
			}
			valid = memory.NewBufferBytes(bm)
		} else if b.hostile("null count without a bitmap", 1) >= 0 {
			nulls = 1
		}
	}
	mk := func(bufs []*memory.Buffer, children []arrow.ArrayData) arrow.ArrayData {
		bufs[0] = valid
		return array.NewData(dt, n, bufs, children, nulls, off)
	}
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return mk([]*memory.Buffer{nil, b.shortened(b.c.bytes((m + 7) / 8))}, nil)
	case arrow.FixedWidthDataType:
		if _, ok := dt.(*arrow.DictionaryType); !ok {
			return mk([]*memory.Buffer{nil, b.shortened(b.c.bytes(m * t.BitWidth() / 8))}, nil)
		}
	}
	switch t := dt.(type) {
	case *arrow.StringType, *arrow.BinaryType:
		offs, data := b.varData(m, dt.ID() == arrow.STRING, false)
		return mk([]*memory.Buffer{nil, leBytes(toInt32(offs)), memory.NewBufferBytes(data)}, nil)
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		offs, data := b.varData(m, dt.ID() == arrow.LARGE_STRING, true)
		return mk([]*memory.Buffer{nil, leBytes(offs), memory.NewBufferBytes(data)}, nil)
	case *arrow.StringViewType, *arrow.BinaryViewType:
		return mk(b.views(m, dt.ID() == arrow.STRING_VIEW), nil)
	case *arrow.ListType, *arrow.MapType:
		offs, size := b.listOffsets(m, false)
		return mk([]*memory.Buffer{nil, leBytes(toInt32(offs))}, b.children(dt, size))
	case *arrow.LargeListType:
		offs, size := b.listOffsets(m, true)
		return mk([]*memory.Buffer{nil, leBytes(offs)}, b.children(dt, size))
	case *arrow.FixedSizeListType:
		size := m * int(t.Len())
		if b.hostile("fixed-size list child", 1) >= 0 {
			size--
		}
		return mk([]*memory.Buffer{nil}, b.children(dt, max(size, 0)))
	case *arrow.ListViewType:
		offs, sizes, size := b.listViews(m, false)
		return mk([]*memory.Buffer{nil, leBytes(toInt32(offs)), leBytes(toInt32(sizes))}, b.children(dt, size))
	case *arrow.LargeListViewType:
		offs, sizes, size := b.listViews(m, true)
		return mk([]*memory.Buffer{nil, leBytes(offs), leBytes(sizes)}, b.children(dt, size))
	case *arrow.StructType:
		size := m
		if b.hostile("struct child", 1) >= 0 {
			size--
		}
		return mk([]*memory.Buffer{nil}, b.children(dt, max(size, 0)))
	case *arrow.SparseUnionType:
		ids := b.typeIDs(t, m)
		return array.NewData(dt, n, []*memory.Buffer{nil, memory.NewBufferBytes(ids)}, b.children(dt, m), 0, off)
	case *arrow.DenseUnionType:
		ids := b.typeIDs(t, m)
		offs, lens := b.denseOffsets(t, ids)
		var children []arrow.ArrayData
		for i, f := range t.Fields() {
			children = append(children, b.array(f.Type, lens[i], f.Nullable))
		}
		return array.NewData(dt, n, []*memory.Buffer{nil, memory.NewBufferBytes(ids), leBytes(offs)}, children, 0, off)
	case *arrow.DictionaryType:
		size := 1 + b.c.intn(5)
		dict := b.array(t.ValueType, size, true)
		width := t.IndexType.(arrow.FixedWidthDataType).BitWidth() / 8
		idx := make([]byte, m*width)
		for i := range m {
			v := int64(b.c.intn(size))
			switch b.hostile("dictionary index", 2) {
			case 0:
				v = int64(dict.Len())
			case 1:
				v = -1
			}
			putUint(idx, i, width, uint64(v))
		}
		if b.hostile("no dictionary", 1) >= 0 {
			return array.NewData(dt, n, []*memory.Buffer{valid, memory.NewBufferBytes(idx)}, nil, nulls, off)
		}
		return array.NewDataWithDictionary(dt, n, []*memory.Buffer{valid, memory.NewBufferBytes(idx)}, nulls, off, dict.(*array.Data))
	case *arrow.RunEndEncodedType:
		return b.runEndEncoded(t, n, off, m)
	}
	panic("arrayBuilder: no builder for " + dt.String())
}

func countOnes(bm []byte, off, n int) int {
	k := 0
	for i := off; i < off+n; i++ {
		if i/8 < len(bm) && bm[i/8]>>(i%8)&1 == 1 {
			k++
		}
	}
	return k
}

func toInt32(v []int64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// shortened returns b as a buffer, or (hostile) cut short.
func (b *arrayBuilder) shortened(buf []byte) *memory.Buffer {
	if len(buf) > 0 && b.hostile("short buffer", 1) >= 0 {
		buf = buf[:len(buf)-1-b.c.intn(len(buf))]
	}
	return memory.NewBufferBytes(buf)
}

// children draws the child arrays of a nested type, each of n rows (a
// dense union's are drawn apart); the entries of a map and their keys get
// no nulls unless hostile.
func (b *arrayBuilder) children(dt arrow.DataType, n int) []arrow.ArrayData {
	fields := childFields(dt)
	if len(fields) > 0 && b.hostile("missing child", 1) >= 0 {
		fields = fields[:len(fields)-1]
	}
	var out []arrow.ArrayData
	for _, f := range fields {
		nullable := f.Nullable
		if _, isMap := dt.(*arrow.MapType); isMap && b.hostile("null map entries", 1) < 0 {
			nullable = false
		}
		out = append(out, b.array(f.Type, n, nullable))
	}
	return out
}

// wildOffset is what a hostile choice puts in an offset or run end.
func (b *arrayBuilder) wildOffset(prev, size int64, large bool) int64 {
	vals := []int64{prev - 1, size + 1, -1, math.MaxInt32 - 15, 1 << 40, math.MaxInt32}
	v := vals[b.c.intn(len(vals))]
	if !large && v > math.MaxInt32 {
		v = math.MaxInt32
	}
	return v
}

// varData draws the offsets and data of m binary or string values,
// starting at a drawn offset.
// fuzzWords are the strings of a large batch's string columns of few
// distinct values.
var fuzzWords = []string{"north", "south-east", "ouest", "nord-est-é"}

func (b *arrayBuilder) varData(m int, utf bool, large bool) ([]int64, []byte) {
	offs := make([]int64, m+1)
	var data []byte
	data = append(data, b.c.bytes(b.c.intn(3))...)
	offs[0] = int64(len(data))
	pool := m >= minLightRows && b.c.oneIn(2)
	shared := m >= minLightRows && !pool && b.c.oneIn(2)
	for i := range m {
		if pool {
			// Few distinct strings: Light's string dictionary.
			data = append(data, fuzzWords[b.c.intn(len(fuzzWords))]...)
			offs[i+1] = int64(len(data))
			continue
		}
		if shared {
			// Strings that share a prefix with the one before, as
			// sorted keys do: Light's front-coded sections.
			prev := data[offs[max(i-1, 0)]:offs[i]]
			data = append(data, prev[:min(b.c.intn(len(prev)+1), 16)]...)
			for range 1 + b.c.intn(3) {
				data = append(data, 'a'+byte(b.c.intn(26)))
			}
			offs[i+1] = int64(len(data))
			continue
		}
		l := b.c.intn(7)
		switch {
		case !utf:
			data = append(data, b.c.bytes(l)...)
		case b.c.oneIn(4):
			for range l {
				data = append(data, "é"...)
			}
		default:
			for range l {
				data = append(data, 'a'+byte(b.c.intn(26)))
			}
		}
		if utf && l > 0 && b.hostile("invalid UTF-8", 1) >= 0 {
			data[len(data)-1] = 0xff
		}
		offs[i+1] = int64(len(data))
	}
	data = append(data, b.c.bytes(b.c.intn(3))...)
	if h := b.hostile("offset", 2); h >= 0 {
		j := b.c.intn(m + 1)
		if h == 0 {
			offs[j] = b.wildOffset(offs[max(j-1, 0)], int64(len(data)), large)
		} else if m > 0 && utf {
			offs[j] = max(offs[j]-1, 0) // inside "é", perhaps
		}
	}
	if len(data) > 0 && b.hostile("data", 1) >= 0 {
		data = data[:len(data)-1]
	}
	return offs, data
}

// views draws the buffers of m string or binary views: inline values, and
// longer ones in one of two data buffers, anywhere in them.
func (b *arrayBuilder) views(m int, utf bool) []*memory.Buffer {
	vb := make([]byte, 16*m)
	data := [][]byte{b.c.bytes(b.c.intn(4)), nil}
	for i := range m {
		l := b.c.intn(24)
		val := make([]byte, l)
		for j := range val {
			val[j] = 'a' + byte(b.c.intn(26))
		}
		if utf && l > 0 && b.c.oneIn(4) {
			val = append(val[:l-1], "é"...)
			l++
		}
		if l > 0 && b.hostile("view bytes", 1) >= 0 {
			val[b.c.intn(l)] = 0xff
		}
		v := vb[16*i : 16*i+16]
		binary.LittleEndian.PutUint32(v, uint32(l))
		if l <= 12 {
			copy(v[4:], val)
			if b.hostile("inline view padding", 1) >= 0 && l < 12 {
				v[15] = 1
			}
		} else {
			k := b.c.intn(2)
			data[k] = append(data[k], b.c.bytes(b.c.intn(3))...)
			at := len(data[k])
			data[k] = append(data[k], val...)
			copy(v[4:8], val)
			binary.LittleEndian.PutUint32(v[8:], uint32(k))
			binary.LittleEndian.PutUint32(v[12:], uint32(at))
			b.view += l
			switch b.hostile("view", 4) {
			case 0:
				binary.LittleEndian.PutUint32(v[8:], 2+uint32(b.c.intn(3)))
			case 1:
				binary.LittleEndian.PutUint32(v[12:], uint32(len(data[k])))
			case 2:
				v[4] ^= 1
			case 3:
				binary.LittleEndian.PutUint32(v, 0x80000000|uint32(b.c.intn(1000)))
			}
		}
	}
	bufs := []*memory.Buffer{nil, memory.NewBufferBytes(vb)}
	for _, d := range data {
		bufs = append(bufs, memory.NewBufferBytes(d))
	}
	if b.hostile("view data buffers", 1) >= 0 {
		bufs = bufs[:2]
	}
	return bufs
}

// listOffsets draws the offsets of m lists and the child length.
func (b *arrayBuilder) listOffsets(m int, large bool) ([]int64, int) {
	offs := make([]int64, m+1)
	offs[0] = int64(b.c.intn(3))
	for i := range m {
		offs[i+1] = offs[i] + int64(b.c.intn(4))
	}
	size := int(offs[m]) + b.c.intn(2)
	if b.hostile("list offset", 1) >= 0 {
		j := b.c.intn(m + 1)
		offs[j] = b.wildOffset(offs[max(j-1, 0)], int64(size), large)
	}
	return offs, size
}

// listViews draws the offsets and sizes of m list views and the child
// length.
func (b *arrayBuilder) listViews(m int, large bool) ([]int64, []int64, int) {
	size := b.c.intn(2*m + 2)
	offs, sizes := make([]int64, m), make([]int64, m)
	for i := range m {
		offs[i] = int64(b.c.intn(size + 1))
		sizes[i] = int64(b.c.intn(size - int(offs[i]) + 1))
		switch b.hostile("list view", 3) {
		case 0:
			sizes[i] = int64(size) - offs[i] + 1
		case 1:
			sizes[i] = -1
		case 2:
			offs[i] = b.wildOffset(0, int64(size), large)
		}
	}
	return offs, sizes, size
}

// typeIDs draws m union type ids, each naming a child unless hostile.
func (b *arrayBuilder) typeIDs(t arrow.UnionType, m int) []byte {
	codes := t.TypeCodes()
	ids := make([]byte, m)
	for i := range ids {
		ids[i] = byte(codes[b.c.intn(len(codes))])
		if b.hostile("type id", 1) >= 0 {
			ids[i] = byte(b.c.intn(256))
		}
	}
	return ids
}

// denseOffsets draws the offsets of a dense union's rows, in order within
// each child, and each child's length.
func (b *arrayBuilder) denseOffsets(t *arrow.DenseUnionType, ids []byte) ([]int32, []int) {
	next := make([]int, len(t.Fields()))
	offs := make([]int32, len(ids))
	for i, id := range ids {
		c := t.ChildIDs()[int8(id)&127]
		if c < 0 || c >= len(next) {
			c = 0
		}
		next[c] += b.c.intn(2)
		offs[i] = int32(next[c])
		next[c]++
		switch b.hostile("dense offset", 3) {
		case 0:
			offs[i] = -1
		case 1:
			offs[i] = int32(next[c] + 5)
		case 2:
			offs[i] = 0
		}
	}
	for c := range next {
		next[c] += b.c.intn(2)
	}
	return offs, next
}

// runEndEncoded draws a run-end encoded array of n rows at offset off: run
// ends strictly increasing up to m or a little past, and their values.
func (b *arrayBuilder) runEndEncoded(t *arrow.RunEndEncodedType, n, off, m int) arrow.ArrayData {
	var ends []int64
	end := int64(0)
	for end < int64(m) {
		end += int64(1 + b.c.intn(4))
		ends = append(ends, end)
	}
	if len(ends) > 0 {
		switch b.hostile("run end", 3) {
		case 0:
			j := b.c.intn(len(ends))
			ends[j] = b.wildOffset(ends[max(j-1, 0)], end, t.RunEnds().ID() == arrow.INT64)
		case 1:
			ends[len(ends)-1] = int64(m) - 1
		case 2:
			ends[0] = 0
		}
	}
	var reBuf *memory.Buffer
	switch t.RunEnds().ID() {
	case arrow.INT16:
		v := make([]int16, len(ends))
		for i, e := range ends {
			v[i] = int16(e)
		}
		reBuf = leBytes(v)
	case arrow.INT32:
		reBuf = leBytes(toInt32(ends))
	default:
		reBuf = leBytes(ends)
	}
	var reValid *memory.Buffer
	reNulls := 0
	if len(ends) > 0 && b.hostile("null run end", 1) >= 0 {
		reValid, reNulls = memory.NewBufferBytes(make([]byte, (len(ends)+7)/8)), len(ends)
	}
	re := array.NewData(t.RunEnds(), len(ends), []*memory.Buffer{reValid, reBuf}, nil, reNulls, 0)
	runs := len(ends)
	if b.hostile("run values", 1) >= 0 {
		runs = max(runs-1, 0)
	}
	vals := b.array(t.Encoded(), runs, true)
	return array.NewData(t, n, []*memory.Buffer{nil}, []arrow.ArrayData{re, vals}, 0, off)
}

// runEncode builds a batch from data and checks the encoder's property on
// it: Append and AppendBatches of it twice either fail with an error that
// wraps ErrInvalidBatch or ErrUnsupported, or write a block that decodes
// to equal batches; within encodeAllocBound of the batch's bytes.
func runEncode(t *testing.T, data []byte) error {
	c := newChoices(data)
	schema := drawSchema(c)
	b := &arrayBuilder{c: c}
	rows := b.rows()
	cols := make([]arrow.Array, schema.NumFields())
	size := 0
	for i, f := range schema.Fields() {
		d := b.array(f.Type, rows, f.Nullable)
		cols[i] = rawArray{d: d}
		size += bufferBytes(d)
	}
	size += b.view
	rec := rawBatch{schema: schema, cols: cols, rows: int64(rows)}
	what := fmt.Sprintf("schema %s, %d rows, hostile %q", schema, rows, b.bad)
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("panic: %v (%s)\n%s", p, what, debug.Stack())
		}
	}()
	return checkEncodeFuzz(t, rec, size, what)
}

// checkEncodeFuzz is checkEncode for fuzzing: Append without compression
// and with LZ4 and Light must agree, and AppendBatches(rec, rec) must fail or decode
// to rec twice over; it may fail where Append does not only with
// ErrUnsupported (two batches may not fit one block).
func checkEncodeFuzz(t *testing.T, rec arrow.RecordBatch, size int, what string) error {
	var first error
	for i, comp := range []Compression{None, LZ4, Light} {
		enc, err := NewEncoder(rec.Schema(), WithCompression(comp))
		if err != nil {
			t.Fatal(err)
		}
		var block []byte
		spent := allocated(func() { block, err = enc.Append(nil, rec) })
		if bound := encodeAllocBound(size); spent > bound {
			t.Fatalf("%s: Append of a batch of %d bytes allocated %d bytes; the bound is %d (err %v) (%s)", comp, size, spent, bound, err, what)
		}
		if i == 0 {
			first = err
		} else if (err == nil) != (first == nil) {
			t.Fatalf("Append without compression: %v; with %s: %v (%s)", first, comp, err, what)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidBatch) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrSchemaMismatch) {
				t.Fatalf("%s: Append: %v, wraps no sentinel of the encoder (%s)", comp, err, what)
			}
			continue
		}
		checkDecodesEqualFuzz(t, rec, block, 1, what)
	}
	enc, err := NewEncoder(rec.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var block []byte
	spent := allocated(func() { block, err = enc.AppendBatches(nil, rec, rec) })
	if bound := encodeAllocBound(2 * size); spent > bound {
		t.Fatalf("AppendBatches of two batches of %d bytes allocated %d bytes; the bound is %d (err %v) (%s)", size, spent, bound, err, what)
	}
	// (AppendBatches may take twice a batch Append refuses: the block of
	// a concatenation leaves out the child elements of null list views,
	// which a lone batch's block holds, faults included.)
	switch {
	case err != nil && first == nil && !errors.Is(err, ErrUnsupported):
		t.Fatalf("AppendBatches refused twice a batch Append takes: %v (%s)", err, what)
	case err == nil:
		checkDecodesEqualFuzz(t, rec, block, 2, what)
	}
	return first
}

// checkDecodesEqualFuzz decodes block and checks it holds rec k times
// over.
func checkDecodesEqualFuzz(t *testing.T, rec arrow.RecordBatch, block []byte, k int, what string) {
	dec, err := NewDecoder(rec.Schema())
	if err != nil {
		t.Fatal(err)
	}
	out, err := dec.Decode(block)
	if err != nil {
		t.Fatalf("the encoder wrote a block the decoder refuses: %v (%s)", err, what)
	}
	defer out.Release()
	n := rec.NumRows()
	if out.NumRows() != int64(k)*n {
		t.Fatalf("decoded %d rows, want %d (%s)", out.NumRows(), int64(k)*n, what)
	}
	for i, col := range rec.Columns() {
		want, err := makeArray(col.Data())
		if err != nil {
			t.Fatalf("column %d: the encoder accepted an array arrow-go refuses: %v (%s)", i, err, what)
		}
		for j := range k {
			got := array.NewSlice(out.Column(i), int64(j)*n, int64(j+1)*n)
			if !array.ApproxEqual(want, got, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				t.Errorf("column %d, copy %d decodes to another array:\n got %v\nwant %v\n(%s)", i, j, got, want, what)
			}
			got.Release()
		}
		want.Release()
	}
}

// TestEncodeStructured runs runEncode on seeded random inputs (one in
// three builds a batch with no hostile choice).
func TestEncodeStructured(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	accepted, refused := 0, 0
	for i, data := range structSeeds(n) {
		t.Run("", func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("input %d of structSeeds", i)
				}
			}()
			if runEncode(t, data) == nil {
				accepted++
			} else {
				refused++
			}
		})
		if t.Failed() {
			break
		}
	}
	t.Logf("%d batches encoded and decoded equal, %d refused", accepted, refused)
	// The builder must reach both sides of the property.
	if accepted < n/10 || refused < n/10 {
		t.Errorf("%d of %d batches accepted, %d refused: the builder is too tame or too hostile", accepted, n, refused)
	}
}

// FuzzEncode checks the encoder's property (see runEncode) on batches built
// field by field from the fuzzer's bytes.
func FuzzEncode(f *testing.F) {
	for _, s := range structSeeds(32) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { runEncode(t, data) })
}

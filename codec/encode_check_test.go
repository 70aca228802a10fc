package codec

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rawArray is an arrow.Array that is nothing but its ArrayData, unchecked:
// what a buggy operator hands over when it builds arrays with
// array.NewData and no validation, including arrays arrow-go's
// constructors would refuse. The encoder reads only Data.
type rawArray struct {
	arrow.Array // nil: only the methods below are called
	d           arrow.ArrayData
}

func (a rawArray) Data() arrow.ArrayData    { return a.d }
func (a rawArray) DataType() arrow.DataType { return a.d.DataType() }
func (a rawArray) Len() int                 { return a.d.Len() }
func (a rawArray) Retain()                  {}
func (a rawArray) Release()                 {}

// rawBatch is a RecordBatch of rawArrays, with whatever schema it is given
// (nil too).
type rawBatch struct {
	arrow.RecordBatch // nil: only the methods below are called
	schema            *arrow.Schema
	cols              []arrow.Array
	rows              int64
}

func (b rawBatch) Schema() *arrow.Schema                 { return b.schema }
func (b rawBatch) NumRows() int64                        { return b.rows }
func (b rawBatch) NumCols() int64                        { return int64(len(b.cols)) }
func (b rawBatch) Columns() []arrow.Array                { return b.cols }
func (b rawBatch) Column(i int) arrow.Array              { return b.cols[i] }
func (b rawBatch) ColumnName(i int) string               { return b.schema.Field(i).Name }
func (b rawBatch) Retain()                               {}
func (b rawBatch) Release()                              {}
func (b rawBatch) String() string                        { return fmt.Sprintf("rawBatch of %d rows", b.rows) }
func (b rawBatch) NewSlice(i, j int64) arrow.RecordBatch { panic("rawBatch: NewSlice") }

// oneColumn returns a batch whose only column, "c", is d.
func oneColumn(d arrow.ArrayData) rawBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: d.DataType(), Nullable: true}}, nil)
	return rawBatch{schema: schema, cols: []arrow.Array{rawArray{d: d}}, rows: int64(d.Len())}
}

// bufferBytes returns the bytes of every buffer of d, its children and its
// dictionary: what a batch really holds.
func bufferBytes(d arrow.ArrayData) int {
	n := 0
	for _, b := range d.Buffers() {
		if b != nil {
			n += b.Len()
		}
	}
	for _, c := range d.Children() {
		n += bufferBytes(c)
	}
	if dict := dictionaryOf(d); dict != nil {
		n += bufferBytes(dict)
	}
	return n
}

// encodeAllocBound is what encoding a batch may allocate: 4 bytes per byte
// of its buffers and of the values its string views reference (the block,
// grown by doubling, and a compressed copy), plus 4 MiB of fixed costs (a
// compressor's tables, pools).
func encodeAllocBound(bufBytes int) uint64 { return 4*uint64(bufBytes) + 4<<20 }

// checkEncode checks the property the encoder holds for rec: Append
// (without compression into nil and into a dst whose end is not 8-byte
// aligned, and with LZ4 into nil) returns an error wrapping
// ErrInvalidBatch or ErrUnsupported and dst unchanged, or a block that
// decodes to a batch equal to rec; all three give the same answer; and
// none allocates more than encodeAllocBound of size. It returns Append's
// error.
func checkEncode(t testing.TB, rec arrow.RecordBatch, size int) error {
	t.Helper()
	var first error
	for i, comp := range []Compression{None, None, LZ4} {
		enc, err := NewEncoder(rec.Schema(), WithCompression(comp))
		if err != nil {
			t.Fatal(err)
		}
		var dst []byte
		if i == 1 {
			dst = append(make([]byte, 0, 64), "prefix"...)
		}
		var block []byte
		spent := allocated(func() { block, err = enc.Append(dst, rec) })
		if bound := encodeAllocBound(size); spent > bound {
			t.Errorf("%s: Append of a batch of %d buffer bytes allocated %d bytes; the bound is %d (err %v)", comp, size, spent, bound, err)
		}
		if i == 0 {
			first = err
		} else if (err == nil) != (first == nil) {
			t.Fatalf("Append without compression: %v; then (%d, %s): %v", first, i, comp, err)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidBatch) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("%s: Append: %v, wraps neither ErrInvalidBatch nor ErrUnsupported", comp, err)
			}
			if !bytes.Equal(block, dst) {
				t.Fatalf("%s: Append returned %d bytes on error, not dst", comp, len(block))
			}
			continue
		}
		checkDecodesEqual(t, rec, block[len(dst):])
	}
	return first
}

// checkDecodesEqual decodes block and checks the batch is equal to rec,
// whose columns arrow-go must accept as arrays (the encoder took them).
func checkDecodesEqual(t testing.TB, rec arrow.RecordBatch, block []byte) {
	t.Helper()
	dec, err := NewDecoder(rec.Schema())
	if err != nil {
		t.Fatal(err)
	}
	out, err := dec.Decode(block)
	if err != nil {
		t.Fatalf("Append wrote a block that Decode refuses: %v", err)
	}
	defer out.Release()
	for i, col := range rec.Columns() {
		want, err := makeArray(col.Data())
		if err != nil {
			t.Fatalf("column %d: the encoder accepted an array arrow-go refuses: %v", i, err)
		}
		eq := array.Equal(want, out.Column(i))
		if !eq {
			t.Errorf("column %d decodes to another array:\n got %v\nwant %v", i, out.Column(i), want)
		}
		want.Release()
	}
}

// makeArray is array.MakeFromData, with its panics made errors.
func makeArray(d arrow.ArrayData) (a arrow.Array, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return array.MakeFromData(d), nil
}

func bytesBuffer(b []byte) *memory.Buffer { return memory.NewBufferBytes(b) }

func int16Buffer(v ...int16) *memory.Buffer {
	return memory.NewBufferBytes(arrow.Int16Traits.CastToBytes(v))
}

// validity returns a validity bitmap buffer of the given bits.
func validity(bits ...bool) *memory.Buffer { return memory.NewBufferBytes(bitmap(bits)) }

// view16 returns a string view of s: inline when short, otherwise pointing
// at offset off of data buffer idx.
func view16(s string, idx, off uint32) []byte {
	v := make([]byte, 16)
	v[0], v[1], v[2], v[3] = byte(len(s)), byte(len(s)>>8), byte(len(s)>>16), byte(len(s)>>24)
	if len(s) <= 12 {
		copy(v[4:], s)
		return v
	}
	copy(v[4:8], s)
	v[8], v[12] = byte(idx), byte(off)
	v[9], v[13] = byte(idx>>8), byte(off>>8)
	return v
}

// badBatchCase is an array built field by field that breaks an invariant
// the decoder checks, and what the error must name: the column path and
// the row.
type badBatchCase struct {
	d    arrow.ArrayData
	path string
	row  int
}

// badBatchCases are the classes of issue 18: each array breaks one
// invariant of FORMAT.md's list, as a buggy operator's might.
func badBatchCases() map[string]badBatchCase {
	str, lstr, bin := arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary
	i64, i32 := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32
	nd := func(dt arrow.DataType, n int, bufs []*memory.Buffer, children []arrow.ArrayData, nulls, off int) arrow.ArrayData {
		return array.NewData(dt, n, bufs, children, nulls, off)
	}
	ints := func(n int) arrow.ArrayData {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(i)
		}
		return nd(i64, n, []*memory.Buffer{nil, int64Buffer(v...)}, nil, 0, 0)
	}
	abcd := bytesBuffer([]byte("abcd"))
	structOf := arrow.StructOf(arrow.Field{Name: "x", Type: i64, Nullable: true}, arrow.Field{Name: "s", Type: str, Nullable: true})
	sparse := arrow.SparseUnionOf([]arrow.Field{{Name: "a", Type: i64, Nullable: true}, {Name: "b", Type: i64, Nullable: true}}, []arrow.UnionTypeCode{0, 5})
	dense := arrow.DenseUnionOf([]arrow.Field{{Name: "a", Type: i64, Nullable: true}, {Name: "b", Type: i64, Nullable: true}}, []arrow.UnionTypeCode{0, 5})
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: str}
	ree := arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int16, i64)
	strs := func(vals ...string) arrow.ArrayData {
		offs := []int32{0}
		var data []byte
		for _, v := range vals {
			data = append(data, v...)
			offs = append(offs, int32(len(data)))
		}
		return nd(str, len(vals), []*memory.Buffer{nil, int32Buffer(offs...), bytesBuffer(data)}, nil, 0, 0)
	}
	dictWith := func(idx ...int8) arrow.ArrayData {
		b := make([]byte, len(idx))
		for i, v := range idx {
			b[i] = byte(v)
		}
		return array.NewDataWithDictionary(dictType, len(idx), []*memory.Buffer{nil, bytesBuffer(b)}, 0, 0, strs("x", "y").(*array.Data))
	}
	views := func(vs ...[]byte) *memory.Buffer { return bytesBuffer(bytes.Join(vs, nil)) }
	long := "abcdefghijklmnop" // 16 bytes: out of line
	return map[string]badBatchCase{
		"string offsets decrease":           {nd(str, 3, []*memory.Buffer{nil, int32Buffer(0, 3, 1, 4), abcd}, nil, 0, 0), "c", 1},
		"binary offsets decrease":           {nd(bin, 3, []*memory.Buffer{nil, int32Buffer(0, 3, 1, 4), abcd}, nil, 0, 0), "c", 1},
		"string middle offset 2^31-16":      {nd(str, 2, []*memory.Buffer{nil, int32Buffer(0, math.MaxInt32-15, 4), abcd}, nil, 0, 0), "c", 0},
		"large_string middle offset 2^40":   {nd(lstr, 2, []*memory.Buffer{nil, int64Buffer(0, 1<<40, 4), abcd}, nil, 0, 0), "c", 0},
		"large_string last offset 2^40":     {nd(lstr, 2, []*memory.Buffer{nil, int64Buffer(0, 2, 1<<40), abcd}, nil, 0, 0), "c", 1},
		"string last offset 2^31-16":        {nd(str, 2, []*memory.Buffer{nil, int32Buffer(0, 2, math.MaxInt32-15), abcd}, nil, 0, 0), "c", 1},
		"large_string last offset 1 GiB":    {nd(lstr, 2, []*memory.Buffer{nil, int64Buffer(0, 2, 1<<30), abcd}, nil, 0, 0), "c", 1},
		"string invalid UTF-8":              {strs("ok", "\xff\xfe", "fine"), "c", 1},
		"string starting inside a char":     {nd(str, 2, []*memory.Buffer{nil, int32Buffer(0, 1, 2), bytesBuffer([]byte("é"))}, nil, 0, 0), "c", 0},
		"list offsets decrease":             {nd(arrow.ListOf(i64), 3, []*memory.Buffer{nil, int32Buffer(0, 3, 1, 4)}, []arrow.ArrayData{ints(4)}, 0, 0), "c", 1},
		"large list middle offset 2^40":     {nd(arrow.LargeListOf(i64), 2, []*memory.Buffer{nil, int64Buffer(0, 1<<40, 4)}, []arrow.ArrayData{ints(4)}, 0, 0), "c", 0},
		"list child string invalid UTF-8":   {nd(arrow.ListOf(str), 1, []*memory.Buffer{nil, int32Buffer(0, 3)}, []arrow.ArrayData{strs("a", "b", "\xc3")}, 0, 0), "c.item", 2},
		"struct child string bad offsets":   {nd(structOf, 2, []*memory.Buffer{nil}, []arrow.ArrayData{ints(2), nd(str, 2, []*memory.Buffer{nil, int32Buffer(0, 3, 2), abcd}, nil, 0, 0)}, 0, 0), "c.s", 1},
		"dictionary index outside":          {dictWith(0, 1, 2), "c", 2},
		"dictionary negative index":         {dictWith(0, -1), "c", 1},
		"sparse union type id of no child":  {nd(sparse, 2, []*memory.Buffer{nil, bytesBuffer([]byte{0, 7})}, []arrow.ArrayData{ints(2), ints(2)}, 0, 0), "c", 1},
		"dense union type id of no child":   {nd(dense, 2, []*memory.Buffer{nil, bytesBuffer([]byte{0, 7}), int32Buffer(0, 0)}, []arrow.ArrayData{ints(2), ints(2)}, 0, 0), "c", 1},
		"dense union offsets go back":       {nd(dense, 3, []*memory.Buffer{nil, bytesBuffer([]byte{5, 0, 5}), int32Buffer(1, 0, 0)}, []arrow.ArrayData{ints(2), ints(2)}, 0, 0), "c", 2},
		"dense union offset past child":     {nd(dense, 2, []*memory.Buffer{nil, bytesBuffer([]byte{5, 0}), int32Buffer(2, 0)}, []arrow.ArrayData{ints(2), ints(2)}, 0, 0), "c", 0},
		"dense union negative offset":       {nd(dense, 2, []*memory.Buffer{nil, bytesBuffer([]byte{0, 5}), int32Buffer(0, -1)}, []arrow.ArrayData{ints(2), ints(2)}, 0, 0), "c", 1},
		"run ends decrease":                 {nd(ree, 4, []*memory.Buffer{nil}, []arrow.ArrayData{nd(arrow.PrimitiveTypes.Int16, 3, []*memory.Buffer{nil, int16Buffer(2, 1, 4)}, nil, 0, 0), ints(3)}, 0, 0), "c.run_ends", 1},
		"run ends not positive":             {nd(ree, 4, []*memory.Buffer{nil}, []arrow.ArrayData{nd(arrow.PrimitiveTypes.Int16, 2, []*memory.Buffer{nil, int16Buffer(0, 4)}, nil, 0, 0), ints(2)}, 0, 0), "c.run_ends", 0},
		"run ends short of length":          {nd(ree, 5, []*memory.Buffer{nil}, []arrow.ArrayData{nd(arrow.PrimitiveTypes.Int16, 2, []*memory.Buffer{nil, int16Buffer(2, 4)}, nil, 0, 0), ints(2)}, 0, 0), "c", 4},
		"run ends with nulls":               {nd(ree, 4, []*memory.Buffer{nil}, []arrow.ArrayData{nd(arrow.PrimitiveTypes.Int16, 2, []*memory.Buffer{validity(true, false), int16Buffer(2, 4)}, nil, 1, 0), ints(2)}, 0, 0), "c.run_ends", 1},
		"string view past its buffer":       {nd(arrow.BinaryTypes.StringView, 2, []*memory.Buffer{nil, views(view16("ab", 0, 0), view16(long, 0, 2)), bytesBuffer([]byte(long))}, nil, 0, 0), "c", 1},
		"string view of no buffer":          {nd(arrow.BinaryTypes.StringView, 2, []*memory.Buffer{nil, views(view16("ab", 0, 0), view16(long, 1, 0)), bytesBuffer([]byte(long))}, nil, 0, 0), "c", 1},
		"string view negative length":       {nd(arrow.BinaryTypes.StringView, 1, []*memory.Buffer{nil, views([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})}, nil, 0, 0), "c", 0},
		"string view invalid UTF-8 inline":  {nd(arrow.BinaryTypes.StringView, 2, []*memory.Buffer{nil, views(view16("ab", 0, 0), view16("a\xffb", 0, 0))}, nil, 0, 0), "c", 1},
		"string view invalid UTF-8":         {nd(arrow.BinaryTypes.StringView, 1, []*memory.Buffer{nil, views(view16("abcd\xffefghijklmn", 0, 0)), bytesBuffer([]byte("abcd\xffefghijklmn"))}, nil, 0, 0), "c", 0},
		"string view prefix differs":        {nd(arrow.BinaryTypes.StringView, 1, []*memory.Buffer{nil, views(view16(long, 0, 0)), bytesBuffer([]byte("xbcdefghijklmnop"))}, nil, 0, 0), "c", 0},
		"string view not zero-padded":       {nd(arrow.BinaryTypes.StringView, 2, []*memory.Buffer{nil, views(view16("ab", 0, 0), append(view16("ab", 0, 0)[:15], 1))}, nil, 0, 0), "c", 1},
		"string view 2^31-1 rows":           {nd(arrow.BinaryTypes.StringView, math.MaxInt32, []*memory.Buffer{nil, views(view16("ab", 0, 0))}, nil, 0, 0), "c", 1},
		"list view outside child":           {nd(arrow.ListViewOf(i64), 2, []*memory.Buffer{nil, int32Buffer(0, 3), int32Buffer(2, 2)}, []arrow.ArrayData{ints(4)}, 0, 0), "c", 1},
		"list view negative size":           {nd(arrow.ListViewOf(i64), 2, []*memory.Buffer{nil, int32Buffer(0, 1), int32Buffer(2, -1)}, []arrow.ArrayData{ints(4)}, 0, 0), "c", 1},
		"null count of 0 over nulls":        {nd(i64, 3, []*memory.Buffer{validity(true, false, true), int64Buffer(1, 2, 3)}, nil, 0, 0), "c", 1},
		"null count without a bitmap":       {nd(i64, 3, []*memory.Buffer{nil, int64Buffer(1, 2, 3)}, nil, 2, 0), "c", 0},
		"null count above the bitmap's":     {nd(str, 2, []*memory.Buffer{validity(true, true), int32Buffer(0, 1, 2), abcd}, nil, 1, 0), "c", 0},
		"null count below the bitmap's":     {nd(i64, 10, []*memory.Buffer{validity(true, true, true, false, true, true, true, true, false, true), int64Buffer(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)}, nil, 1, 0), "c", 3},
		"null count of a slice, bit offset": {nd(i64, 3, []*memory.Buffer{validity(true, true, false, true, true), int64Buffer(0, 1, 2, 3, 4)}, nil, 2, 2), "c", 0},
		"null count of no rows":             {nd(i64, 0, []*memory.Buffer{validity(true), int64Buffer(1)}, nil, 2, 0), "c", 0},
		"struct without children":           {nd(structOf, 2, []*memory.Buffer{nil}, nil, 0, 0), "c", 0},
		"struct child too short":            {nd(structOf, 3, []*memory.Buffer{nil}, []arrow.ArrayData{ints(3), strs("a", "b")}, 0, 0), "c.s", 2},
		"list without a child":              {nd(arrow.ListOf(i64), 1, []*memory.Buffer{nil, int32Buffer(0, 1)}, nil, 0, 0), "c", 0},
		"run-end encoded without values":    {nd(ree, 2, []*memory.Buffer{nil}, []arrow.ArrayData{nd(arrow.PrimitiveTypes.Int16, 1, []*memory.Buffer{nil, int16Buffer(2)}, nil, 0, 0)}, 0, 0), "c", 0},
		"string without a data buffer":      {nd(str, 1, []*memory.Buffer{nil, int32Buffer(0, 1)}, nil, 0, 0), "c", 0},
		"dictionary without a dictionary":   {nd(dictType, 1, []*memory.Buffer{nil, bytesBuffer([]byte{0})}, nil, 0, 0), "c", 0},
		"map with a null key":               {mapWithNullKey(), "c.entries.key", 1},
		"fixed-size list child too short":   {nd(arrow.FixedSizeListOf(2, i32), 2, []*memory.Buffer{nil}, []arrow.ArrayData{nd(i32, 3, []*memory.Buffer{nil, int32Buffer(1, 2, 3)}, nil, 0, 0)}, 0, 0), "c", 1},
		"string offsets at an offset":       {nd(str, 1, []*memory.Buffer{nil, int32Buffer(0, 2, 1, 4), abcd}, nil, 0, 1), "c", 0},
		"large_binary offsets past 2^32":    {nd(arrow.BinaryTypes.LargeBinary, 1, []*memory.Buffer{nil, int64Buffer(1<<32, 1<<32+5), shortBuffer(8)}, nil, 0, 0), "c", 0},
		"nested list of bad struct strings": {nd(arrow.ListOf(structOf), 1, []*memory.Buffer{nil, int32Buffer(0, 2)}, []arrow.ArrayData{nd(structOf, 2, []*memory.Buffer{nil}, []arrow.ArrayData{ints(2), strs("a", "\xe2\x82")}, 0, 0)}, 0, 0), "c.item.s", 1},
	}
}

// mapWithNullKey returns a map array of one row of two entries whose second
// key is null.
func mapWithNullKey() arrow.ArrayData {
	mt := arrow.MapOf(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64)
	keys := array.NewData(arrow.PrimitiveTypes.Int64, 2, []*memory.Buffer{validity(true, false), int64Buffer(1, 2)}, nil, 1, 0)
	vals := array.NewData(arrow.PrimitiveTypes.Int64, 2, []*memory.Buffer{nil, int64Buffer(1, 2)}, nil, 0, 0)
	entries := array.NewData(mt.Elem(), 2, []*memory.Buffer{nil}, []arrow.ArrayData{keys, vals}, 0, 0)
	return array.NewData(mt, 1, []*memory.Buffer{nil, int32Buffer(0, 2)}, []arrow.ArrayData{entries}, 0, 0)
}

// TestEncodeRefusesInvalid checks, for each class of invalid array, that
// Append refuses it with an error wrapping ErrInvalidBatch that names the
// column and the row, before allocating more than the batch's buffers
// justify, and that the Encoder then encodes a good batch as before.
func TestEncodeRefusesInvalid(t *testing.T) {
	for name, tc := range badBatchCases() {
		t.Run(name, func(t *testing.T) {
			rec := oneColumn(tc.d)
			err := checkEncode(t, rec, bufferBytes(tc.d))
			if !errors.Is(err, ErrInvalidBatch) {
				t.Fatalf("Append: %v, want an error wrapping ErrInvalidBatch", err)
			}
			msg := err.Error()
			if want := fmt.Sprintf("column %s, row %d:", tc.path, tc.row); !strings.Contains(msg, want) {
				t.Errorf("error %q does not say %q", msg, want)
			}
		})
	}
}

// TestEncodeNilSchema checks that a batch whose Schema is nil is refused
// with an error, not a panic.
func TestEncodeNilSchema(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.PrimitiveTypes.Int64}}, nil)
	enc, err := NewEncoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	rec := rawBatch{cols: []arrow.Array{}, rows: 0}
	if _, err := enc.Append(nil, rec); !errors.Is(err, ErrSchemaMismatch) {
		t.Fatalf("Append of a batch without a schema: %v, want ErrSchemaMismatch", err)
	}
	if _, err := enc.AppendBatches(nil, rec, rec); !errors.Is(err, ErrSchemaMismatch) {
		t.Fatalf("AppendBatches of batches without a schema: %v, want ErrSchemaMismatch", err)
	}
}

// TestAppendBatchesNamesTheBatch checks that a fault in one of several
// coalesced batches, found before writing or as the writer copies, is
// refused with an error that names the batch, the column and the row, and
// that the good batches alone still encode.
func TestAppendBatchesNamesTheBatch(t *testing.T) {
	for name, tc := range map[string]badBatchCase{
		"checked first":     badBatchCases()["large_string last offset 2^40"],
		"found as it wrote": badBatchCases()["string invalid UTF-8"],
		"index, as written": badBatchCases()["dictionary index outside"],
	} {
		t.Run(name, func(t *testing.T) {
			bad := oneColumn(tc.d)
			good := oneColumn(array.NewSlice(mustArray(t, tc.d.DataType()), 0, 0).Data())
			good.schema = bad.schema
			enc, err := NewEncoder(bad.schema)
			if err != nil {
				t.Fatal(err)
			}
			_, err = enc.AppendBatches(nil, good, bad, good)
			want := fmt.Sprintf("batch 1, column %s, row %d:", tc.path, tc.row)
			if !errors.Is(err, ErrInvalidBatch) || !strings.Contains(err.Error(), want) {
				t.Fatalf("AppendBatches: %v, want ErrInvalidBatch saying %q", err, want)
			}
			if _, err := enc.AppendBatches(nil, good, good); err != nil {
				t.Fatalf("AppendBatches of the good batches: %v", err)
			}
		})
	}
}

// mustArray returns an empty array of type dt.
func mustArray(t *testing.T, dt arrow.DataType) arrow.Array {
	t.Helper()
	b := array.NewBuilder(memory.NewGoAllocator(), dt)
	defer b.Release()
	a := b.NewArray()
	t.Cleanup(a.Release)
	return a
}

// TestAllValid compares allValid, which tests bits in words and whole
// bytes, with what it should find, for every range of bitmaps of up to 12
// bytes and of 33 that are all ones but for one cleared bit (or none), and
// for bitmaps too short for the range.
func TestAllValid(t *testing.T) {
	for _, size := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 33} {
		step := 1
		if size > 12 {
			step = 5 // every bit position mod 8 still cleared
		}
		for clear := -1; clear < size*8; clear += step {
			vb := bytes.Repeat([]byte{0xFF}, size)
			if clear >= 0 {
				vb[clear/8] &^= 1 << (clear % 8)
			}
			for base := 0; base <= size*8; base++ {
				for n := 0; base+n <= size*8+9; n++ {
					want := size == 0 || (base+n <= size*8 && (clear < base || clear >= base+n))
					if got := allValid(vb, base, n); got != want {
						t.Fatalf("allValid of %d bytes, bit %d cleared, rows [%d, %d): %v, want %v", size, clear, base, base+n, got, want)
					}
				}
			}
		}
	}
	if allValid([]byte{0xFF}, -1, 2) || allValid(bytes.Repeat([]byte{0xFF}, 100), 3, -2) {
		t.Fatal("allValid accepts a negative offset or length")
	}
}

package codec

import (
	"bytes"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/batches"
)

// shortBuffer returns a buffer of n bytes whose slice has room for 64: the
// padding an allocator leaves past a buffer's end (or n, if larger), which an encoder that
// slices up to capacity would read without noticing.
func shortBuffer(n int) *memory.Buffer {
	b := make([]byte, max(n, 64))
	for i := range b {
		b[i] = byte(i + 1)
	}
	return memory.NewBufferBytes(b[:n])
}

func int32Buffer(v ...int32) *memory.Buffer {
	return memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(v))
}

func int64Buffer(v ...int64) *memory.Buffer {
	return memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(v))
}

// invalidBatches are arrays whose offset and length reach past their
// buffers, at several levels of nesting, each in a batch of its own.
func invalidBatches() map[string]arrow.ArrayData {
	i64 := arrow.PrimitiveTypes.Int64
	str := arrow.BinaryTypes.String
	mk := func(dt arrow.DataType, n int, bufs []*memory.Buffer, children []arrow.ArrayData, nulls, off int) arrow.ArrayData {
		return array.NewData(dt, n, bufs, children, nulls, off)
	}
	shortInts := mk(i64, 4, []*memory.Buffer{nil, shortBuffer(16)}, nil, 0, 0)
	goodInts := mk(i64, 4, []*memory.Buffer{nil, shortBuffer(32)}, nil, 0, 0)
	structOf := arrow.StructOf(arrow.Field{Name: "x", Type: i64, Nullable: true})
	listOf := arrow.ListOf(i64)
	return map[string]arrow.ArrayData{
		"int64 values":            shortInts,
		"int64 values at offset":  mk(i64, 2, []*memory.Buffer{nil, shortBuffer(24)}, nil, 0, 2),
		"validity bitmap":         mk(i64, 20, []*memory.Buffer{shortBuffer(1), shortBuffer(160)}, nil, 3, 0),
		"bool values":             mk(arrow.FixedWidthTypes.Boolean, 20, []*memory.Buffer{nil, shortBuffer(2)}, nil, 0, 0),
		"string offsets reversed": mk(str, 2, []*memory.Buffer{nil, int32Buffer(4, 1, 2), shortBuffer(8)}, nil, 0, 0),
		"struct child":            mk(structOf, 4, []*memory.Buffer{nil}, []arrow.ArrayData{shortInts}, 0, 0),
		"struct shorter child":    mk(structOf, 4, []*memory.Buffer{nil}, []arrow.ArrayData{mk(i64, 3, []*memory.Buffer{nil, shortBuffer(32)}, nil, 0, 0)}, 0, 0),
		"list child values":       mk(listOf, 2, []*memory.Buffer{nil, int32Buffer(0, 2, 4)}, []arrow.ArrayData{shortInts}, 0, 0),
		"list offsets past child": mk(listOf, 2, []*memory.Buffer{nil, int32Buffer(0, 2, 6)}, []arrow.ArrayData{goodInts}, 0, 0),
		"fixed list child":        mk(arrow.FixedSizeListOf(2, i64), 3, []*memory.Buffer{nil}, []arrow.ArrayData{goodInts}, 0, 0),
		// Past 2^32: on a 32-bit platform an int cut to 32 bits would
		// read bytes 0 to 5 of the data as if they were the value.
		"large binary offsets past 2^32": mk(arrow.BinaryTypes.LargeBinary, 1, []*memory.Buffer{nil, int64Buffer(1<<32, 1<<32+5), shortBuffer(8)}, nil, 0, 0),
		"large list offsets past 2^32":   mk(arrow.LargeListOf(i64), 1, []*memory.Buffer{nil, int64Buffer(1<<32, 1<<32+2)}, []arrow.ArrayData{goodInts}, 0, 0),
	}
}

// makeOrSkip returns the array of d, or skips the test when arrow-go
// refuses to build it here (it checks binary offsets against the data as
// ints, which a 32-bit platform cuts short).
func makeOrSkip(t *testing.T, d arrow.ArrayData) (arr arrow.Array) {
	defer func() {
		if r := recover(); r != nil {
			t.Skipf("arrow-go refuses this array on this platform: %v", r)
		}
	}()
	return array.MakeFromData(d)
}

// TestAppendInvalidBatch checks that arrays reaching past their buffers, at
// any level, are refused with ErrInvalidBatch, and that Append then hands
// back the caller's dst unchanged instead of nil.
func TestAppendInvalidBatch(t *testing.T) {
	for name, d := range invalidBatches() {
		t.Run(name, func(t *testing.T) {
			arr := makeOrSkip(t, d)
			defer arr.Release()
			schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: arr.DataType(), Nullable: true}}, nil)
			rec := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
			defer rec.Release()
			for _, c := range []Compression{None, LZ4} {
				enc, err := NewEncoder(schema, WithCompression(c))
				if err != nil {
					t.Fatal(err)
				}
				dst := append(make([]byte, 0, 4096), "prefix"...)
				out, err := enc.Append(dst, rec)
				if !errors.Is(err, ErrInvalidBatch) {
					t.Fatalf("%s: Append: %v, want an error wrapping ErrInvalidBatch", c, err)
				}
				if len(out) != len(dst) || !bytes.Equal(out, []byte("prefix")) || &out[0] != &dst[0] {
					t.Fatalf("%s: Append returned %q (len %d) on error, not dst", c, out, len(out))
				}
			}
		})
	}
}

// TestWriteAfterClose checks that a Writer refuses batches once closed with
// an error wrapping ErrClosed.
func TestWriteAfterClose(t *testing.T) {
	schema, recs := goldenBatches()
	defer batches.Release(recs)
	var sink bytes.Buffer
	w, err := NewWriter(&sink, schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	n := sink.Len()
	if err := w.Write(recs[1]); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after Close: %v, want an error wrapping ErrClosed", err)
	}
	if sink.Len() != n {
		t.Fatalf("Write after Close wrote %d bytes", sink.Len()-n)
	}
}

// rawBlock writes rec as a raw block of size bytes whose buffers went
// through the transforms xf, which only compressed blocks may carry.
func rawBlock(t testing.TB, e *Encoder, rec arrow.RecordBatch, size int, xf flags) []byte {
	t.Helper()
	raw := encodeRaw(t, e, rec, xf)
	if len(raw) != size {
		t.Fatalf("raw block of %d bytes, want %d", len(raw), size)
	}
	return raw
}

// encodeRaw writes rec as an uncompressed block, in 8-byte aligned memory,
// whose buffers went through the transforms xf, as the raw block of a
// compressed one would be.
func encodeRaw(t testing.TB, e *Encoder, rec arrow.RecordBatch, xf flags) []byte {
	t.Helper()
	raw, _ := encodeMarked(t, e, rec, xf)
	return raw
}

// encodeMarked is encodeRaw that also returns where the raw block's body
// may be cut into sections, as a compressing Encoder marks them.
func encodeMarked(t testing.TB, e *Encoder, rec arrow.RecordBatch, xf flags) ([]byte, []int) {
	t.Helper()
	c, rows, err := e.gather([]arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer e.putEncoding(c)
	c.w.init(nil, 0)
	c.w.xf, c.w.marking = xf, true
	raw := e.writeBlock(c, 1, rows)
	return raw, c.w.marks
}

// lyingBatch is a RecordBatch whose columns or row count disagree with
// each other or with its schema, as only a RecordBatch implemented outside
// arrow-go (which checks them) can be.
type lyingBatch struct {
	arrow.RecordBatch
	cols []arrow.Array
	rows int64
}

func (b lyingBatch) Columns() []arrow.Array { return b.cols }
func (b lyingBatch) NumRows() int64         { return b.rows }

// TestAppendLyingBatch checks that a batch whose column count or column
// lengths disagree with it is refused with ErrInvalidBatch, and that the
// Encoder encodes the next batch as before.
func TestAppendLyingBatch(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	defer rec.Release()
	enc, err := NewEncoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	want, err := enc.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]lyingBatch{
		"no columns":       {rec, nil, 3},
		"two columns":      {rec, []arrow.Array{col, col}, 3},
		"rows past column": {rec, []arrow.Array{col}, 4},
	} {
		if _, err := enc.AppendBatches(nil, rec, bad); !errors.Is(err, ErrInvalidBatch) {
			t.Errorf("%s: AppendBatches: %v, want an error wrapping ErrInvalidBatch", name, err)
		}
		got, err := enc.Append(nil, rec)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: the next Append gave another block (%v)", name, err)
		}
	}
}

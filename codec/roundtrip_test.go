package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// roundTrip encodes rec, decodes it and checks the result is sound, carries
// the decoder's schema and equals rec column by column. It returns the block.
func roundTrip(t testing.TB, rec arrow.RecordBatch, opts ...Option) []byte {
	t.Helper()
	enc, err := NewEncoder(rec.Schema(), opts...)
	if err != nil {
		t.Fatalf("NewEncoder(%s): %v", rec.Schema(), err)
	}
	dec, err := NewDecoder(rec.Schema(), opts...)
	if err != nil {
		t.Fatalf("NewDecoder: %v", err)
	}
	block, err := enc.Append(nil, rec)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	out, err := dec.Decode(block)
	if err != nil {
		t.Fatalf("Decode: %v\nschema: %s", err, rec.Schema())
	}
	defer out.Release()
	checkSame(t, rec, out, dec.Schema())
	return block
}

func checkSame(t testing.TB, want, got arrow.RecordBatch, schema *arrow.Schema) {
	t.Helper()
	if err := array.ValidateRecordFull(got); err != nil {
		t.Fatalf("decoded batch does not validate: %v\nschema: %s", err, want.Schema())
	}
	if got.Schema() != schema {
		t.Fatalf("decoded batch has schema %s, not the decoder's", got.Schema())
	}
	if got.NumRows() != want.NumRows() || got.NumCols() != want.NumCols() {
		t.Fatalf("decoded %dx%d, want %dx%d", got.NumRows(), got.NumCols(), want.NumRows(), want.NumCols())
	}
	for i := range int(want.NumCols()) {
		w, g := want.Column(i), got.Column(i)
		if !array.Equal(w, g) && !(unionOfExtension(w.DataType()) && sameRows(w, g)) {
			t.Fatalf("column %d (%s) differs:\nwant %v\ngot  %v", i, want.Schema().Field(i).Type, want.Column(i), got.Column(i))
		}
	}
}

// unionOfExtension reports whether dt holds a union with an extension-typed
// child. arrow-go v18.8's array.Equal reports sliced arrays of such types as
// different from their IPC round trip too, so for them alone the test falls
// back to comparing the arrays row by row.
func unionOfExtension(dt arrow.DataType) bool {
	nt, ok := dt.(arrow.NestedType)
	if !ok {
		return false
	}
	_, isUnion := dt.(arrow.UnionType)
	for _, f := range nt.Fields() {
		if _, ext := f.Type.(arrow.ExtensionType); (ext && isUnion) || unionOfExtension(f.Type) {
			return true
		}
	}
	return false
}

// sameRows compares two arrays row by row: nulls in the same rows and the
// same value string in every other row.
func sameRows(a, b arrow.Array) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) || (!a.IsNull(i) && a.ValueStr(i) != b.ValueStr(i)) {
			return false
		}
	}
	return true
}

// wrappers put a type inside each kind of parent the test matrix names.
var wrappers = []struct {
	name string
	wrap func(arrow.DataType) arrow.DataType
}{
	{"top", func(t arrow.DataType) arrow.DataType { return t }},
	{"struct", func(t arrow.DataType) arrow.DataType {
		return arrow.StructOf(arrow.Field{Name: "x", Type: t, Nullable: true}, arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	}},
	{"list", func(t arrow.DataType) arrow.DataType { return arrow.ListOf(t) }},
	{"map", func(t arrow.DataType) arrow.DataType { return arrow.MapOf(arrow.PrimitiveTypes.Int32, t) }},
	{"sparse_union", func(t arrow.DataType) arrow.DataType {
		return arrow.SparseUnionOf([]arrow.Field{{Name: "x", Type: t, Nullable: true}, {Name: "y", Type: arrow.PrimitiveTypes.Int8, Nullable: true}}, []arrow.UnionTypeCode{3, 9})
	}},
	{"dense_union", func(t arrow.DataType) arrow.DataType {
		return arrow.DenseUnionOf([]arrow.Field{{Name: "x", Type: t, Nullable: true}, {Name: "y", Type: arrow.PrimitiveTypes.Int8, Nullable: true}}, []arrow.UnionTypeCode{5, 0})
	}},
}

// TestRoundTripMatrix runs the test matrix every peer of this codec shipped
// a bug against: every type x {no, some, all nulls} x slice offsets x
// lengths x {top level, inside struct, list, map, union}.
func TestRoundTripMatrix(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	offsets := []int{0, 1, 7, 8, 9, 63, 64, 65}
	lengths := []int{0, 1, 150}
	if testing.Short() {
		offsets, lengths = []int{0, 9, 65}, []int{0, 1, 40}
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, dt := range randbatch.AllTypes() {
		for _, w := range wrappers {
			wt := w.wrap(dt)
			t.Run(fmt.Sprintf("%s/%s", w.name, dt), func(t *testing.T) {
				schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: wt, Nullable: true}}, nil)
				for _, nullProb := range []float64{0, 0.3, 1} {
					for _, off := range offsets {
						for _, n := range lengths {
							opts := randbatch.Options{NullProb: nullProb, MaxListLen: 4, Slice: r.IntN(2) == 0}
							arr := randbatch.Array(mem, r, wt, off+n+r.IntN(3), opts)
							sl := array.NewSlice(arr, int64(off), int64(off+n))
							rec := array.NewRecordBatch(schema, []arrow.Array{sl}, int64(n))
							roundTrip(t, rec)
							rec.Release()
							sl.Release()
							arr.Release()
						}
					}
				}
			})
		}
	}
}

func TestRoundTripRandomSchemas(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	seeds := 300
	if testing.Short() {
		seeds = 40
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		schema := randbatch.RandomSchema(r, 1+r.IntN(6), 3)
		rec := randbatch.Batch(mem, r, schema, r.IntN(300), randbatch.Options{NullProb: r.Float64() * 0.5, MaxListLen: 5, Slice: true})
		roundTrip(t, rec)
		rec.Release()
	}
}

// TestRoundTripCompressed runs batches of every type through each
// compression, at its default and a higher level, and checks that a
// compressible block shrinks and an incompressible one is stored raw.
func TestRoundTripCompressed(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(5, 5))
	for _, c := range []Compression{LZ4, Zstd, MinLZ, Light} {
		levels := []int{0, 3}
		if c == Light {
			levels = levels[:1] // Light has no levels
		}
		for _, level := range levels {
			for seed := range 30 {
				schema := randbatch.RandomSchema(r, 1+seed%5, 2)
				rec := randbatch.Batch(mem, r, schema, r.IntN(500), randbatch.Options{NullProb: 0.2, MaxListLen: 4, Slice: true})
				roundTrip(t, rec, WithCompression(c), WithCompressionLevel(level))
				rec.Release()
			}
		}
		// Zeros compress; the header says so.
		schema := arrow.NewSchema([]arrow.Field{{Name: "z", Type: arrow.PrimitiveTypes.Int64}}, nil)
		b := array.NewInt64Builder(mem)
		b.AppendValues(make([]int64, 10000), nil)
		zeros := b.NewArray()
		rec := array.NewRecordBatch(schema, []arrow.Array{zeros}, 10000)
		block := roundTrip(t, rec, WithCompression(c))
		if Compression(block[5]) != c || len(block) > 2000 {
			t.Fatalf("%s: 80000 zero bytes made a %d-byte block with compression %d", c, len(block), block[5])
		}
		// Random bytes do not; the block is stored raw.
		for i := range zeros.(*array.Int64).Int64Values() {
			zeros.(*array.Int64).Int64Values()[i] = r.Int64()
		}
		block = roundTrip(t, rec, WithCompression(c))
		if Compression(block[5]) != None {
			t.Fatalf("%s: random data stored with compression %d", c, block[5])
		}
		rec.Release()
		zeros.Release()
		b.Release()
	}
}

func TestMaxBlockSize(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "z", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(make([]int64, 10000), nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, 10000)
	defer rec.Release()
	for _, c := range []Compression{LZ4, Zstd, MinLZ, Light} {
		enc := must(NewEncoder(schema, WithCompression(c)))
		block := must(enc.Append(nil, rec))
		dec := must(NewDecoder(schema, WithMaxBlockSize(1000)))
		if _, err := dec.Decode(block); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: a block of 80000 raw bytes against a cap of 1000: %v, want ErrCorrupt", c, err)
		}
	}
}

func TestZeroColumnsAndZeroRows(t *testing.T) {
	empty := arrow.NewSchema(nil, nil)
	rec := array.NewRecordBatch(empty, nil, 0)
	if got := len(roundTrip(t, rec)); got != headerSize {
		t.Fatalf("empty batch makes a %d-byte block, want just the %d-byte header", got, headerSize)
	}
	// Zero columns but rows: the row count alone travels.
	rec = array.NewRecordBatch(empty, nil, 17)
	roundTrip(t, rec)

	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 1))
	for _, dt := range randbatch.AllTypes() {
		schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
		rec := randbatch.Batch(mem, r, schema, 0, randbatch.Options{})
		roundTrip(t, rec)
		rec.Release()
	}
}

func TestSchemaMismatch(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(2, 2))
	a := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	c := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	recA := randbatch.Batch(mem, r, a, 10, randbatch.Options{})
	defer recA.Release()
	recB := randbatch.Batch(mem, r, b, 10, randbatch.Options{})
	defer recB.Release()

	encA, _ := NewEncoder(a)
	if _, err := encA.Append(nil, recB); !errors.Is(err, ErrSchemaMismatch) {
		t.Fatalf("Append of another schema's batch: %v, want ErrSchemaMismatch", err)
	}
	block, err := encA.Append(nil, recA)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*arrow.Schema{b, c} {
		dec, _ := NewDecoder(s)
		if _, err := dec.Decode(block); !errors.Is(err, ErrSchemaMismatch) {
			t.Fatalf("Decode against %s: %v, want ErrSchemaMismatch", s, err)
		}
	}
	// An equal schema that is another object is the same schema.
	a2 := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	dec, _ := NewDecoder(a2)
	out, err := dec.Decode(block)
	if err != nil {
		t.Fatalf("Decode against an equal schema: %v", err)
	}
	out.Release()
}

func TestAppendAppends(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(3, 3))
	schema := randbatch.RandomSchema(r, 4, 2)
	enc, _ := NewEncoder(schema)
	dec, _ := NewDecoder(schema)
	var buf []byte
	var recs []arrow.RecordBatch
	var ends []int
	// Prefixes of every length mod 8 put blocks at every alignment.
	for i := range 9 {
		buf = append(buf, make([]byte, i)...)
		start := len(buf)
		rec := randbatch.Batch(mem, r, schema, 20+i, randbatch.Options{NullProb: 0.2, MaxListLen: 3, Slice: true})
		defer rec.Release()
		var err error
		if buf, err = enc.Append(buf, rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		ends = append(ends, start, len(buf))
	}
	for i, rec := range recs {
		out, err := dec.Decode(buf[ends[2*i]:ends[2*i+1]])
		if err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		checkSame(t, rec, out, schema)
		out.Release()
	}
}

// TestConcurrencyChunks checks that WithConcurrency splits the long
// compressed runs of a large body into more sections, one per goroutine,
// that any Decoder reads them, in parallel or not, and that a small body is
// cut the same with any concurrency.
func TestConcurrencyChunks(t *testing.T) {
	mem := memory.NewGoAllocator()
	big := randbatch.Lineitem(mem, 8192) // a raw body of about 1.4 MB
	defer big.Release()
	small := randbatch.Lineitem(mem, 64)
	defer small.Release()
	for _, c := range []Compression{LZ4, Zstd, MinLZ, Light} {
		for _, rec := range []arrow.RecordBatch{big, small} {
			one := must(ReadBlockInfo(roundTrip(t, rec, WithCompression(c))))
			for _, n := range []int{2, 3, 16} {
				block := roundTrip(t, rec, WithCompression(c), WithConcurrency(n))
				info := must(ReadBlockInfo(block))
				// (Light cuts a section per buffer with any concurrency;
				// its goroutines share them out.)
				if rec == big && c != Light && info.Sections <= one.Sections {
					t.Fatalf("%s, concurrency %d: %d sections, %d with concurrency 1", c, n, info.Sections, one.Sections)
				}
				if rec == small && info.Sections != one.Sections {
					t.Fatalf("%s, concurrency %d, small body: %d sections, %d with concurrency 1", c, n, info.Sections, one.Sections)
				}
				// Decoders with another concurrency read it too.
				for _, dn := range []int{1, 4} {
					out := must(must(NewDecoder(rec.Schema(), WithConcurrency(dn))).Decode(block))
					checkSame(t, rec, out, rec.Schema())
					out.Release()
				}
			}
		}
	}
}

// TestCorruptChunkTable changes every byte of the section table of a block
// compressed in several sections (the section count, each section's codec
// and raw length, its stored length) and decodes it serially and in parallel: the result
// must be an ErrCorrupt error or a sound batch, never a panic or a race.
func TestCorruptChunkTable(t *testing.T) {
	rec := randbatch.Lineitem(memory.NewGoAllocator(), 8192)
	defer rec.Release()
	for _, c := range []Compression{LZ4, Zstd, MinLZ, Light} {
		block := must(must(NewEncoder(rec.Schema(), WithCompression(c), WithConcurrency(3))).Append(nil, rec))
		// The table's words: the count, then per section its codec and raw
		// length and its stored length, which is followed by its bytes.
		var words []int
		pos := headerSize
		words = append(words, pos)
		k := int(binary.LittleEndian.Uint64(block[pos:]))
		if k < 2 {
			t.Fatalf("%s: %d section(s), want several", c, k)
		}
		pos += 8
		for range k {
			words = append(words, pos, pos+8)
			pos += 16 + pad8(int(binary.LittleEndian.Uint64(block[pos+8:])))
		}
		for _, n := range []int{1, 3} {
			dec := must(NewDecoder(rec.Schema(), WithConcurrency(n)))
			m := bytes.Clone(block)
			for _, w := range words {
				for i := w; i < w+8; i++ {
					old := m[i]
					for _, v := range []byte{old ^ 1, old ^ 0x80, 0xff} {
						m[i] = v
						out, err := dec.Decode(m)
						checkDecoded(t, out, err)
					}
					m[i] = old
				}
				// Cut at every word of the table.
				if _, err := dec.Decode(m[:w]); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s: block cut at byte %d: %v, want ErrCorrupt", c, w, err)
				}
			}
		}
	}
}

// TestAppendIntoUsedBuffer checks that a block appended into a buffer whose
// spare room holds old bytes is the block appended into nothing: every
// byte of it written, the padding of its buffers included.
func TestAppendIntoUsedBuffer(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(5, 5))
	for i := range 20 {
		schema := randbatch.RandomSchema(r, 4, 2)
		rec := randbatch.Batch(mem, r, schema, 1+i*7, randbatch.Options{NullProb: 0.2, MaxListLen: 3, Slice: true})
		enc, _ := NewEncoder(schema)
		want := must(enc.Append(nil, rec))
		used := bytes.Repeat([]byte{0xA5}, 2*len(want)+64)
		for _, start := range []int{0, 3, 8} {
			got := must(enc.Append(used[:start], rec))
			if !bytes.Equal(got[start:], want) {
				t.Fatalf("schema %d: the block appended at %d into a used buffer differs from the one appended into nothing", i, start)
			}
		}
		rec.Release()
	}
}

package codec

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// Golden blocks of the frozen format version 1, under testdata/blocks:
// for each case, <case>-none.apk, <case>-lz4.apk, <case>-zstd.apk,
// <case>-minlz.apk and <case>-light.apk hold one block each, and <case>.arrows the batch they hold as an Arrow IPC
// stream (arrow-go's reader, not arrowpack, is the oracle). They were
// written once (go test ./codec -run TestGoldenBlocks -update, which writes
// only the cases whose files are missing) and must decode to the same batch
// forever: a later change of the layout bumps the format version and keeps
// reading these.

// goldenBlockCase is one batch the golden blocks hold.
type goldenBlockCase struct {
	name  string
	build func(mem memory.Allocator) arrow.RecordBatch
	opts  []Option // options of the compressed blocks beside the codec
}

func goldenBlockCases() []goldenBlockCase {
	allTypes := func(rows int) func(memory.Allocator) arrow.RecordBatch {
		return func(mem memory.Allocator) arrow.RecordBatch {
			schema, _ := goldenBatches()
			r := rand.New(rand.NewPCG(2026, uint64(rows)))
			return randbatch.Batch(mem, r, schema, rows, randbatch.Options{NullProb: 0.25, MaxListLen: 3, Slice: true})
		}
	}
	return []goldenBlockCase{
		// Every type, sliced, with nulls: a few rows, and enough that the
		// buffers make pieces of their own.
		{"all-types-7", allTypes(7), nil},
		{"all-types-120", allTypes(120), nil},
		// Numbers: sections stored raw beside compressed ones.
		{"lineitem-1024", func(mem memory.Allocator) arrow.RecordBatch { return randbatch.Lineitem(mem, 1024) }, nil},
		{"wide-1024", func(mem memory.Allocator) arrow.RecordBatch { return randbatch.WideNumeric(mem, 1024, 8) }, nil},
		// Floats that came from decimals, 64- and 32-bit, with values
		// that do not (ALP's exceptions), for Light's ALP sections.
		{"decimals-8192", goldenDecimals, nil},
		// Floats that are not decimals: byte planes, LZ4, packed and raw.
		{"floats-8192", goldenFloats, nil},
		// Light's Huffman sections: a small block of few rows (a MinLZ
		// section coded), dictionary indices (bit-packed a byte a value,
		// coded) and string lengths and data of a small body (bit-packed
		// and FSST, coded).
		{"lineitem-64", func(mem memory.Allocator) arrow.RecordBatch { return randbatch.Lineitem(mem, 64) }, nil},
		{"dict-8192", func(mem memory.Allocator) arrow.RecordBatch { return randbatch.Dictionary(mem, 8192) }, nil},
		{"text-2048", goldenText, nil},
		// Light's run-length, integer dictionary and string dictionary
		// sections (32- and 64-bit lengths).
		{"repeats-8192", func(memory.Allocator) arrow.RecordBatch { return repBatch(8192, 1) }, nil},
		// Light's front-coded string sections (32- and 64-bit lengths).
		{"front-8192", func(memory.Allocator) arrow.RecordBatch { return frontBatch(8192) }, nil},
		// Light's transposed LZ4 sections (of 8- and 4-byte integers).
		{"mirrored-8192", goldenMirrored, nil},
	}
}

// goldenMirrored returns 8192 rows of an int64 and an int32 column whose
// values each repeat one random byte, so that their byte planes equal one
// another, which one LZ4 block of them transposed matches and neither a
// lightweight codec nor LZ4 of them as they are does, and an ascending id
// column (which every codec compresses).
func goldenMirrored(mem memory.Allocator) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(2026, 8194))
	i64, i32, id := make([]int64, 8192), make([]int32, 8192), make([]int64, 8192)
	for i := range id {
		i64[i] = int64(uint64(r.IntN(256)) * 0x0101010101010101)
		i32[i] = int32(uint32(r.IntN(256)) * 0x01010101)
		id[i] = int64(i)
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	}, nil))
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(i64, nil)
	b.Field(1).(*array.Int32Builder).AppendValues(i32, nil)
	b.Field(2).(*array.Int64Builder).AppendValues(id, nil)
	return b.NewRecordBatch()
}

// goldenDecimals returns 8192 rows of a float64 and a float32 column of
// prices with two decimals, a few of them not decimals (thirds, infinity,
// -0), an ascending id column and uniform floats in [0, 1) (byte planes).
func goldenDecimals(mem memory.Allocator) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(2026, 8192))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "noise", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	f64, f32 := b.Field(0).(*array.Float64Builder), b.Field(1).(*array.Float32Builder)
	for i := range 8192 {
		cents := r.IntN(1_000_000)
		x := float64(cents) / 100
		switch i % 97 {
		case 5:
			x = float64(cents) / 3
		case 17:
			x = math.Inf(1)
		case 41:
			x = math.Copysign(0, -1)
		}
		f64.Append(x)
		if i%13 == 0 {
			f32.AppendNull()
		} else {
			f32.Append(float32(r.IntN(1000)) / 10)
		}
		b.Field(2).(*array.Int64Builder).Append(int64(1000 + 3*i + r.IntN(3)))
		b.Field(3).(*array.Float64Builder).Append(r.Float64())
	}
	return b.NewRecordBatch()
}

// goldenText returns 2048 rows of short sentences of TPC-H-like words,
// whose lengths and data are each at least 2 KiB in a raw body under 64
// KiB.
func goldenText(mem memory.Allocator) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(2026, 2048))
	words := []string{"furiously", "carefully", "regular", "final", "ironic", "express", "deposits", "requests", "packages", "accounts", "blithely", "quickly"}
	schema := arrow.NewSchema([]arrow.Field{{Name: "comment", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	sb := b.Field(0).(*array.StringBuilder)
	for range 2048 {
		n := 1 + r.IntN(3)
		s := words[r.IntN(len(words))]
		for range n {
			s += " " + words[r.IntN(len(words))]
		}
		sb.Append(s)
	}
	return b.NewRecordBatch()
}

// goldenFloats returns 8192 rows of floats that are not decimals, normal
// (whose top plane Light packs) and uniform in [0, 1) (whose top plane it
// compresses with LZ4), and an ascending id column (which every codec
// compresses).
func goldenFloats(mem memory.Allocator) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(2026, 8193))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "normal", Type: arrow.PrimitiveTypes.Float64},
		{Name: "uniform", Type: arrow.PrimitiveTypes.Float64},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range 8192 {
		b.Field(0).(*array.Float64Builder).Append(100 * r.NormFloat64())
		b.Field(1).(*array.Float64Builder).Append(r.Float64())
		b.Field(2).(*array.Int64Builder).Append(int64(i))
	}
	return b.NewRecordBatch()
}

func TestGoldenBlocks(t *testing.T) {
	dir := filepath.Join("testdata", "blocks")
	mem := memory.NewGoAllocator()
	if *update {
		writeGoldenBlocks(t, dir, mem)
	}
	var sawRaw, sawSplit bool
	sawCodec := map[Compression]bool{}
	sawPlane := map[byte]bool{}
	sawInner := map[Compression]bool{} // of Huffman sections; 100 + a string dictionary's data codec
	for _, gc := range goldenBlockCases() {
		want := readIPC(t, filepath.Join(dir, gc.name+".arrows"))
		defer want.Release()
		for _, c := range []Compression{None, LZ4, Zstd, MinLZ, Light} {
			path := filepath.Join(dir, gc.name+"-"+c.String()+".apk")
			block, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./codec -run TestGoldenBlocks -update writes the golden blocks)", err)
			}
			info, err := ReadBlockInfo(block)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			t.Logf("%s: %s", path, info)
			if info.Compression != c {
				t.Fatalf("%s: compression %s, want %s", path, info.Compression, c)
			}
			sawRaw = sawRaw || info.RawSections > 0 && info.Sections > info.RawSections
			sawSplit = sawSplit || info.Sections > 2
			if c != None {
				h := must(parseHeader(block))
				mustOK(eachSection(block[headerSize:], h.raw, func(s sectionIn) error {
					sawCodec[s.codec] = true
					if s.codec == codecHuff {
						sawInner[Compression(s.src[0])] = true
					}
					if s.codec == codecStrDict {
						sawInner[Compression(s.src[2])+100] = true // its data's codec
					}
					if s.codec == codecPlanes {
						for j := range int(s.src[0]) {
							sawPlane[s.src[planesHeader+j]] = true
						}
					}
					return nil
				}))
			}
			for _, n := range []int{1, 4} {
				dec := must(NewDecoder(want.Schema(), WithConcurrency(n)))
				got, err := dec.Decode(block)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				checkSame(t, want, got, dec.Schema())
				got.Release()
			}
			if c == None {
				// The uncompressed layout is fixed: encoding the batch
				// again gives the same bytes.
				again := must(must(NewEncoder(want.Schema())).Append(nil, want))
				if !bytes.Equal(again, block) {
					t.Fatalf("%s: encoding its batch again gives %d other bytes", path, len(again))
				}
			}
		}
	}
	if !sawRaw || !sawSplit || !sawCodec[LZ4] || !sawCodec[Zstd] || !sawCodec[MinLZ] ||
		!sawCodec[codecBitpack] || !sawCodec[codecALP] || !sawCodec[codecFSST] || !sawCodec[codecPlanes] ||
		!sawPlane[planeRaw] || !sawPlane[planeLZ4] || !sawPlane[planePacked] ||
		!sawCodec[codecHuff] || !sawInner[MinLZ] || !sawInner[codecBitpack] || !sawInner[codecFSST] ||
		!sawCodec[codecRLE] || !sawCodec[codecDict] || !sawCodec[codecStrDict] || !sawInner[codecFSST+100] ||
		!sawCodec[codecFront] || !sawCodec[codecTransposed] {
		t.Fatalf("the golden blocks miss a kind of section: raw beside compressed %v, more than 2 sections %v, codecs %v, plane codecs %v, Huffman sections' inner codecs %v",
			sawRaw, sawSplit, sawCodec, sawPlane, sawInner)
	}
}

// writeGoldenBlocks writes the golden blocks and their IPC batches.
func writeGoldenBlocks(t *testing.T, dir string, mem memory.Allocator) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, gc := range goldenBlockCases() {
		if _, err := os.Stat(filepath.Join(dir, gc.name+".arrows")); err == nil {
			continue // written once, never again
		}
		rec := gc.build(mem)
		for _, c := range []Compression{None, LZ4, Zstd, MinLZ, Light} {
			opts := []Option{WithCompression(c)}
			if c != None {
				opts = append(opts, gc.opts...)
			}
			block := must(must(NewEncoder(rec.Schema(), opts...)).Append(nil, rec))
			if err := os.WriteFile(filepath.Join(dir, gc.name+"-"+c.String()+".apk"), block, 0o644); err != nil {
				t.Fatal(err)
			}
			if c == None {
				// The IPC copy is of the decoded batch: every array
				// unsliced, which arrow-go's IPC writer handles for
				// every type.
				got := must(must(NewDecoder(rec.Schema())).Decode(block))
				var buf bytes.Buffer
				w := ipc.NewWriter(&buf, ipc.WithSchema(got.Schema()))
				if err := w.Write(got); err != nil {
					t.Fatalf("%s: ipc: %v", gc.name, err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				got.Release()
				if err := os.WriteFile(filepath.Join(dir, gc.name+".arrows"), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		rec.Release()
	}
}

func mustOK(err error) {
	if err != nil {
		panic(err)
	}
}

// readIPC reads the one batch of an Arrow IPC stream file.
func readIPC(t *testing.T, path string) arrow.RecordBatch {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./codec -run TestGoldenBlocks -update writes the golden blocks)", err)
	}
	r, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatalf("%s: no batch (%v)", path, r.Err())
	}
	rec := r.RecordBatch()
	rec.Retain()
	return rec
}

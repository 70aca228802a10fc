package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sectionBatch has a column of random bytes (as uint64: 8 random byte
// planes once transposed), which no codec shrinks, and a column of small
// counters, which compress well; each 64 KiB.
func sectionBatch(rows int) arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(7, 7))
	rb := array.NewUint64Builder(mem)
	cb := array.NewInt64Builder(mem)
	for i := range rows {
		rb.Append(r.Uint64())
		cb.Append(int64(i % 100))
	}
	rc, cc := rb.NewArray(), cb.NewArray()
	defer rc.Release()
	defer cc.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "random", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "counter", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{rc, cc}, int64(rows))
}

// TestSectionsRawAndCompressed checks that random bytes are stored raw and
// the rest compressed, that WithMinSavings(0) compresses everything as one
// section and WithMinSavings(1) writes an uncompressed block, and that all
// of them decode to the batch.
func TestSectionsRawAndCompressed(t *testing.T) {
	rec := sectionBatch(8192)
	defer rec.Release()
	for _, c := range []Compression{LZ4, Zstd, MinLZ, Light} {
		def := must(ReadBlockInfo(roundTrip(t, rec, WithCompression(c))))
		// The 64 KiB of random values, less what joins a neighbour.
		if def.RawBytes < 60<<10 || def.RawSections == 0 || def.RawSections == def.Sections {
			t.Fatalf("%s, default: %s; want the random column stored raw beside compressed sections", c, def)
		}
		all := must(ReadBlockInfo(roundTrip(t, rec, WithCompression(c), WithMinSavings(0))))
		// Light cuts a section per buffer whatever the savings.
		if c != Light && (all.Sections != 1 || all.RawSections != 0) {
			t.Fatalf("%s, WithMinSavings(0): %s; want one compressed section", c, all)
		}
		none := must(ReadBlockInfo(roundTrip(t, rec, WithCompression(c), WithMinSavings(1))))
		if none.Compression != None {
			t.Fatalf("%s, WithMinSavings(1): %s; want an uncompressed block", c, none)
		}
	}
}

// TestEntropyEstimate checks the estimate at its ends: a constant sample
// has none, random bytes about 8 bits, and a sample of 16 values about 4.
func TestEntropyEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	random := make([]byte, 4096)
	sixteen := make([]byte, 4096)
	for i := range random {
		random[i] = byte(r.Uint32())
		sixteen[i] = byte(r.IntN(16)) * 17
	}
	var counts [256]uint32
	if h := entropyBits(&counts, make([]byte, 4096)); h != 0 {
		t.Fatalf("zeros: %.2f bits, want 0", h)
	}
	if h := entropyBits(&counts, random); h < 7.5 {
		t.Fatalf("random bytes: %.2f bits, want about 8", h)
	}
	if h := entropyBits(&counts, sixteen); h < 3.5 || h > 4.5 {
		t.Fatalf("16 values: %.2f bits, want about 4", h)
	}
	if s := matchSavings(random); s > 0.05 {
		t.Fatalf("random bytes: match savings %.2f, want about 0", s)
	}
	if s := matchSavings(bytes.Repeat([]byte("arrowpack "), 100)); s < 0.8 {
		t.Fatalf("repeated text: match savings %.2f, want most", s)
	}
}

// TestUnknownSectionCodec checks that a section of a codec this version
// does not know is refused with an error wrapping ErrUnsupported (and
// ErrCorrupt, as every decode error does), by Decode and ReadBlockInfo.
func TestUnknownSectionCodec(t *testing.T) {
	rec := sectionBatch(8192)
	defer rec.Release()
	block := must(must(NewEncoder(rec.Schema(), WithCompression(LZ4))).Append(nil, rec))
	// The first section's codec byte follows the section count.
	bad := bytes.Clone(block)
	bad[headerSize+8] = byte(maxCodec + 1)
	if got := binary.LittleEndian.Uint64(bad[headerSize+8:]) & 0xff; got != uint64(maxCodec+1) {
		t.Fatalf("codec byte %d", got)
	}
	_, err := must(NewDecoder(rec.Schema())).Decode(bad)
	if !errors.Is(err, ErrUnsupported) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Decode: %v, want ErrUnsupported and ErrCorrupt", err)
	}
	if _, err := ReadBlockInfo(bad); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("ReadBlockInfo: %v, want ErrUnsupported", err)
	}
}

// TestMinLZLargeSection checks that a compressed run longer than a MinLZ
// block (8 MiB) is split into sections MinLZ can hold.
func TestMinLZLargeSection(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := array.NewInt64Builder(mem)
	for i := range 1 << 20 {
		b.Append(int64(i % 1000))
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1<<20)
	defer rec.Release()
	info := must(ReadBlockInfo(roundTrip(t, rec, WithCompression(MinLZ), WithMinSavings(0))))
	if info.Compression != MinLZ || info.Sections < 2 {
		t.Fatalf("8 MiB of values with MinLZ: %s; want at least 2 sections", info)
	}
}

// TestSectionsCoalesced checks that batches coalesced into one block are
// cut into sections as the one batch of their rows is: the byte planes of
// values transposed across batches are marked too.
func TestSectionsCoalesced(t *testing.T) {
	// Random low halves, zero high halves: only with the planes marked
	// are the random planes stored raw.
	r := rand.New(rand.NewPCG(9, 9))
	ub := array.NewUint64Builder(memory.NewGoAllocator())
	for range 16384 {
		ub.Append(uint64(r.Uint32()))
	}
	col := ub.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "half", Type: arrow.PrimitiveTypes.Uint64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 16384)
	defer rec.Release()
	a, b := rec.NewSlice(0, 3000), rec.NewSlice(3000, 16384)
	defer a.Release()
	defer b.Release()
	for _, c := range []Compression{LZ4, Zstd, MinLZ, Light} {
		enc := must(NewEncoder(rec.Schema(), WithCompression(c)))
		one := must(enc.Append(nil, rec))
		two := must(enc.AppendBatches(nil, a, b))
		info := must(ReadBlockInfo(two))
		// (Light packs the values rather than transposing them.)
		if !bytes.Equal(one, two) || c != Light && info.RawBytes < 4*16384 {
			t.Fatalf("%s: two batches coalesced: %s; one batch: %s; want the 4 random planes raw in both", c, info, must(ReadBlockInfo(one)))
		}
	}
}

// TestWorthRules checks the decisions the estimate makes on pieces whose
// fate is clear: constant and random ones, a 1 KiB plane of ten values in
// random order (3.3 bits per byte and no matches: LZ4 cannot shrink it,
// zstd entropy-codes it beside neighbours with matches), and 8 KiB of
// values drawn from sixteen (whole 8-byte matches that every codec finds).
func TestWorthRules(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	random := make([]byte, 1024)
	ten := make([]byte, 1024)
	for i := range random {
		random[i] = byte(r.Uint32())
		ten[i] = byte(r.IntN(10))
	}
	var pool [16]uint64
	for i := range pool {
		pool[i] = r.Uint64()
	}
	repeats := make([]byte, 8192)
	for i := 0; i < len(repeats); i += 8 {
		binary.LittleEndian.PutUint64(repeats[i:], pool[r.IntN(len(pool))])
	}
	for _, tc := range []struct {
		name      string
		b         []byte
		lz4, zstd bool
	}{
		{"zeros", make([]byte, 1024), true, true},
		{"random", random, false, false},
		{"ten values", ten, false, true},
		{"repeated values", repeats, true, true},
	} {
		for _, kind := range []Compression{LZ4, Zstd, MinLZ, Light} {
			c := &compressor{kind: kind, minSavings: DefaultMinSavings}
			want := tc.lz4
			if kind == Zstd {
				want = tc.zstd
			}
			var counts [256]uint32
			if got := c.worth(&counts, tc.b); got != want {
				t.Errorf("%s, %s: worth %t, want %t", tc.name, kind, got, want)
			}
			if counts != [256]uint32{} {
				t.Fatalf("%s, %s: the histogram room was left dirty", tc.name, kind)
			}
		}
	}
}

// TestCompressorStateKept checks that a compressed encode allocates nothing
// once warm, and that the LZ4 compressors and section scratch an Encoder
// reuses survive a garbage collection (a sync.Pool would have dropped
// them, and each LZ4 compressor is 136 KB to allocate again).
func TestCompressorStateKept(t *testing.T) {
	rec := sectionBatch(8192)
	defer rec.Release()
	for _, c := range []Compression{LZ4, Zstd} {
		enc := must(NewEncoder(rec.Schema(), WithCompression(c)))
		buf := must(enc.Append(nil, rec))
		if allocs := testing.AllocsPerRun(20, func() { buf = must(enc.Append(buf[:0], rec)) }); allocs != 0 && !raceEnabled {
			t.Errorf("%s: %.1f allocations per warm encode, want 0", c, allocs)
		}
		runtime.GC()
		runtime.GC()
		cp := enc.compressor
		if len(cp.scratch.items) == 0 || c == LZ4 && len(cp.lz4.items) == 0 {
			t.Errorf("%s: after a GC %d section scratches and %d LZ4 compressors kept, want them all", c, len(cp.scratch.items), len(cp.lz4.items))
		}
		// And the encoder's own state: its encoding and the raw block's
		// room, which a sync.Pool would have dropped.
		if len(enc.encodings.items) == 0 || len(enc.scratch.items) == 0 {
			t.Errorf("%s: after a GC the encoder kept %d encodings and %d raw block rooms, want both", c, len(enc.encodings.items), len(enc.scratch.items))
		}
	}
}

// TestSectionsConcurrentRuns checks that a block of many small sections
// compressed on several goroutines (the sections cut into runs, one per
// goroutine) decodes to its batch and comes out the same as compressed on
// one.
func TestSectionsConcurrentRuns(t *testing.T) {
	// Alternating random and counter columns: a raw and a compressed
	// section for each pair.
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(5, 5))
	var fields []arrow.Field
	var cols []arrow.Array
	for c := range 24 {
		b := array.NewInt64Builder(mem)
		for i := range 1024 {
			if c%2 == 0 {
				b.Append(int64(r.Uint64()))
			} else {
				b.Append(int64(i % 7))
			}
		}
		cols = append(cols, b.NewArray())
		fields = append(fields, arrow.Field{Name: string(rune('a' + c)), Type: arrow.PrimitiveTypes.Int64})
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, 1024)
	defer rec.Release()
	for _, col := range cols {
		col.Release()
	}
	for _, c := range []Compression{LZ4, Zstd, MinLZ, Light} {
		one := roundTrip(t, rec, WithCompression(c))
		if info := must(ReadBlockInfo(one)); info.Sections < 20 {
			t.Fatalf("%s: %s; want many sections", c, info)
		}
		for _, n := range []int{2, 3, 8} {
			if got := roundTrip(t, rec, WithCompression(c), WithConcurrency(n)); !bytes.Equal(got, one) {
				t.Fatalf("%s, WithConcurrency(%d): block differs from the one compressed on one goroutine", c, n)
			}
		}
	}
}

package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
	"github.com/pierrec/lz4/v4"
)

// TestRealDataSizes checks that each real table round-trips and that its
// Light blocks take no more bytes than its LZ4 blocks, and logs
// Light's bytes against LZ4's and zstd's and Light's bytes by section
// codec (go test -v -run RealDataSizes).
func TestRealDataSizes(t *testing.T) {
	for _, f := range realDataFiles(t) {
		recs := readParquet(t, f)
		if len(recs) == 0 {
			continue
		}
		lz, _ := encodeAll(t, recs, WithCompression(LZ4))
		zs, _ := encodeAll(t, recs, WithCompression(Zstd))
		li, blocks := encodeAll(t, recs, WithCompression(Light))
		by := map[Compression]int{}
		for _, b := range blocks {
			h := must(parseHeader(b))
			if h.compression == None {
				by[None] += len(b)
				continue
			}
			eachSection(b[headerSize:], h.raw, func(s sectionIn) error {
				by[s.codec] += len(s.src)
				return nil
			})
		}
		// Each section is at most LZ4's (TestLightNotOverLZ4), and a
		// block mostly of LZ4 and raw sections is tried whole with LZ4
		// (lz4MayWin), so no table takes more than LZ4's bytes.
		if li > lz {
			t.Errorf("%s: Light %d bytes, more than LZ4's %d", filepath.Base(f), li, lz)
		}
		t.Logf("%-40s light/lz4 %.3f light/zstd %.3f (light %d lz4 %d zstd %d) %v", filepath.Base(f),
			float64(li)/float64(lz), float64(li)/float64(zs), li, lz, zs, by)
	}
}

// BenchmarkRealData encodes the batches of each real table with LZ4, zstd
// and Light (go test -bench RealData -run XXX ./codec; REALDATA_FILE picks
// one file by its base name).
func BenchmarkRealData(b *testing.B) {
	eachRealData(b, func(b *testing.B, enc *Encoder, recs []arrow.RecordBatch) {
		var buf []byte
		for b.Loop() {
			for _, r := range recs {
				buf = must(enc.Append(buf[:0], r))
			}
		}
	})
}

// BenchmarkRealDataDecode decodes the blocks of each real table encoded
// with LZ4, zstd and Light (go test -bench RealDataDecode -run XXX ./codec).
func BenchmarkRealDataDecode(b *testing.B) {
	eachRealData(b, func(b *testing.B, enc *Encoder, recs []arrow.RecordBatch) {
		blocks := make([][]byte, len(recs))
		for i, r := range recs {
			blocks[i] = must(enc.Append(nil, r))
		}
		dec := must(NewDecoder(recs[0].Schema()))
		for b.Loop() {
			for _, bl := range blocks {
				must(dec.Decode(bl)).Release()
			}
		}
	})
}

// partitionRows is the rows of a block a shuffle writes for one of 200
// partitions of an 8,192-row batch.
const partitionRows = 41

// BenchmarkRealDataPartitions encodes and decodes the first batch of each
// real table cut into up to 100 blocks of partitionRows rows, through one
// encoder and decoder, with LZ4, zstd and Light (go test -bench
// RealDataPartitions -run XXX ./codec; REALDATA_FILE picks one file).
func BenchmarkRealDataPartitions(b *testing.B) {
	eachRealData(b, func(b *testing.B, enc *Encoder, recs []arrow.RecordBatch) {
		var parts []arrow.RecordBatch
		for o := int64(0); o+partitionRows <= recs[0].NumRows() && len(parts) < 100; o += partitionRows {
			parts = append(parts, recs[0].NewSlice(o, o+partitionRows))
		}
		if len(parts) == 0 {
			b.Skip("fewer rows than a block")
		}
		blocks, stored := make([][]byte, len(parts)), 0
		for i, p := range parts {
			blocks[i] = must(enc.Append(nil, p))
			stored += len(blocks[i])
		}
		dec := must(NewDecoder(parts[0].Schema()))
		b.Run("encode", func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				for _, p := range parts {
					buf = must(enc.Append(buf[:0], p))
				}
			}
			b.ReportMetric(float64(stored), "bytes")
		})
		b.Run("decode", func(b *testing.B) {
			for b.Loop() {
				for _, bl := range blocks {
					must(dec.Decode(bl)).Release()
				}
			}
		})
	})
}

// eachRealData runs f as a sub-benchmark of each real table (or the one
// REALDATA_FILE names) and compression, with an encoder of it.
func eachRealData(b *testing.B, f func(*testing.B, *Encoder, []arrow.RecordBatch)) {
	for _, file := range realDataFiles(b) {
		if w := os.Getenv("REALDATA_FILE"); w != "" && w != filepath.Base(file) {
			continue
		}
		recs := readParquet(b, file)
		if len(recs) == 0 {
			continue
		}
		for _, c := range []Compression{LZ4, Zstd, Light} {
			enc := must(NewEncoder(recs[0].Schema(), WithCompression(c)))
			b.Run(filepath.Base(file)+"/"+c.String(), func(b *testing.B) { f(b, enc, recs) })
		}
	}
}

// lightNotOverLZ4 checks FORMAT.md's rule on every lightweight section of
// the Light block b: it takes no more bytes than LZ4 (pierrec's fast
// compressor, as the encoder's) stores its raw bytes in, or than LZ4's
// floor for them, or, for a section of integers (whose header gives w and
// n), than their transposed LZ4 section. (Integers that an LZ4 block
// holds transposed are held to the second alone, others to both; which
// they are is the plan's to say, and a section does not record it.)
func lightNotOverLZ4(t *testing.T, name string, b []byte) {
	t.Helper()
	h := must(parseHeader(b))
	if h.compression == None {
		return
	}
	d := &decompressor{maxBlock: DefaultMaxBlockSize, concurrency: 1, pool: &blockPool{}}
	var c lz4.Compressor
	if err := eachSection(b[headerSize:], h.raw, func(s sectionIn) error {
		if s.codec < codecBitpack || s.codec == codecHuff || s.codec > maxCodec {
			return nil
		}
		raw := make([]byte, s.raw)
		if err := d.decompressBody(raw, s.src, s.codec); err != nil {
			t.Fatalf("%s: section at %d: %v", name, s.at, err)
		}
		dst := make([]byte, lz4.CompressBlockBound(len(raw)))
		n, err := c.CompressBlock(raw, dst)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			n = len(raw) + 1 // incompressible: LZ4 stores nothing smaller
		}
		if w, k := int(s.src[0]), int(binary.LittleEndian.Uint32(s.src[4:])); len(s.src) > n && intSection(s.codec) && (w == 4 || w == 8) && k > 0 && k*w <= len(raw) {
			tr := encodeTransposed(newFastLZ4(), new(lightScratch), make([]byte, transposedBound(k, w, len(raw)-k*w)), raw, k, w)
			n = max(n, len(tr))
		}
		if len(s.src) > n && len(s.src) > lz4Floor(len(raw)) {
			t.Errorf("%s: section at %d of codec %d: %d bytes, LZ4 %d", name, s.at, s.codec, len(s.src), n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// intSection reports whether sections of codec c hold integers of w bytes
// (byte 0) and n of them (bytes 4 to 8) first.
func intSection(c Compression) bool {
	switch c {
	case codecBitpack, codecPlanes, codecRLE, codecDict, codecTransposed:
		return true
	}
	return false
}

// TestLightNotOverLZ4 checks lightNotOverLZ4 on the Light blocks of the
// real tables and of random batches of every type, and logs each real
// table's Light bytes against LZ4's block.
func TestLightNotOverLZ4(t *testing.T) {
	mem := memory.NewGoAllocator()
	var fields []arrow.Field
	for i, dt := range randbatch.AllTypes() {
		fields = append(fields, arrow.Field{Name: fmt.Sprint("c", i), Type: dt, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 28))
		rec := randbatch.Batch(mem, r, schema, 1024+r.IntN(4000), randbatch.Options{NullProb: r.Float64() * 0.3, Slice: r.IntN(2) == 0})
		enc := must(NewEncoder(rec.Schema(), WithCompression(Light)))
		lightNotOverLZ4(t, fmt.Sprint("random ", seed), must(enc.Append(nil, rec)))
		rec.Release()
	}
	for _, sh := range randbatch.BenchShapes() {
		rec := sh.Build(mem)
		lightNotOverLZ4(t, sh.Name, roundTrip(t, rec, WithCompression(Light)))
		rec.Release()
	}
	for _, f := range realDataFiles(t) {
		// One encoder for the table, twice over, as a writer keeps one:
		// its columns' sections are then held to what LZ4 took on their
		// last pieces (light_seen.go), not only to the rule's estimate.
		recs := readParquet(t, f)
		if len(recs) == 0 {
			continue
		}
		enc := must(NewEncoder(recs[0].Schema(), WithCompression(Light)))
		for range 2 {
			for _, r := range recs {
				lightNotOverLZ4(t, filepath.Base(f), must(enc.Append(nil, r)))
			}
		}
	}
	for i, rec := range lineBatches(goSourceLines(t)) {
		lightNotOverLZ4(t, fmt.Sprint("opGen.go lines, batch ", i), roundTrip(t, rec, WithCompression(Light)))
		rec.Release()
	}
}

// TestLightBlockNotOverLZ4 checks that a block whose columns repeat one
// another, which Light stores apart as byte planes and LZ4 finds as
// matches across buffers, is stored in no more bytes than LZ4's block,
// and that it decodes.
func TestLightBlockNotOverLZ4(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(28, 1))
	vals := make([]int64, 4096)
	for i := range vals {
		// 64 random values over and over: too wide to bit-pack, so
		// Light stores them as byte planes, each LZ4.
		vals[i] = int64(r.Uint64())
		if i >= 64 {
			vals[i] = vals[i-64]
		}
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	var cols []arrow.Array
	var fields []arrow.Field
	for i := range 3 {
		b.AppendValues(vals, nil)
		cols = append(cols, b.NewArray())
		defer cols[i].Release()
		fields = append(fields, arrow.Field{Name: fmt.Sprint("c", i), Type: arrow.PrimitiveTypes.Int64})
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(vals)))
	defer rec.Release()
	lz := len(roundTrip(t, rec, WithCompression(LZ4)))
	li := roundTrip(t, rec, WithCompression(Light))
	if len(li) > lz {
		t.Errorf("Light %d bytes, more than LZ4's %d", len(li), lz)
	}
	first := array.NewRecordBatch(arrow.NewSchema(fields[:1], nil), cols[:1], int64(len(vals)))
	defer first.Release()
	if col := len(roundTrip(t, first, WithCompression(LZ4))); 2*col < lz {
		t.Errorf("LZ4 %d bytes, one column alone %d: LZ4 found no matches across the columns, so the test tests nothing", lz, col)
	}
}

// TestLightRawBlockNotOverLZ4 checks that a block whose pieces Light's
// estimates all leave raw, but which LZ4 shrinks by its repeats (a bitmap
// of bools repeating a random pattern, too short for a match estimate),
// is stored in no more bytes than LZ4's block, and that it decodes.
func TestLightRawBlockNotOverLZ4(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 2))
	pattern := make([]bool, 8*256)
	for i := range pattern {
		pattern[i] = r.IntN(2) == 0
	}
	b := array.NewBooleanBuilder(memory.NewGoAllocator())
	defer b.Release()
	for i := range 7300 {
		b.Append(pattern[i%len(pattern)])
	}
	col := b.NewArray()
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.FixedWidthTypes.Boolean}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	lz := roundTrip(t, rec, WithCompression(LZ4))
	li := roundTrip(t, rec, WithCompression(Light))
	if len(li) > len(lz) {
		t.Errorf("Light %d bytes, more than LZ4's %d", len(li), len(lz))
	}
	raw := roundTrip(t, rec, WithCompression(None))
	if 3*len(lz) > 2*len(raw) {
		t.Errorf("LZ4 %d bytes of %d raw: it found no repeats, so the test tests nothing", len(lz), len(raw))
	}
}

// TestLightStreak checks the encoder's streak through one encoder: a batch of equal
// columns, which LZ4's block wins, makes the next blocks LZ4's without a
// try of Light (so a batch Light would win is written as LZ4's, no larger
// than LZ4 would), waits that double while LZ4 keeps winning, and a
// batch Light wins is Light's again at the next try, after which one LZ4
// win waits a single block. Every block decodes to its batch.
func TestLightStreak(t *testing.T) {
	copies, light := streakBatch(t, true), streakBatch(t, false)
	defer copies.Release()
	defer light.Release()
	enc := must(NewEncoder(copies.Schema(), WithCompression(Light)))
	dec := must(NewDecoder(copies.Schema()))
	lzEnc := must(NewEncoder(copies.Schema(), WithCompression(LZ4)))
	kinds := ""
	put := func(rec arrow.RecordBatch) {
		b := appendChecked(t, enc, dec, lzEnc, rec, len(kinds))
		switch h := must(parseHeader(b)); h.compression {
		case LZ4:
			kinds += "z"
		case Light:
			kinds += "L"
		default:
			kinds += "?"
		}
	}
	// LZ4 wins the first try, then waits 1, 2 and 4 blocks; the Light
	// batch put during the wait of 4 is LZ4's, the one after it Light's.
	for range 1 + 1 + 1 + 2 + 1 {
		put(copies)
	}
	put(light) // in the wait of 4
	for range 3 {
		put(copies)
	}
	put(light)  // tried: Light wins
	put(copies) // tried: LZ4 wins, a wait of 1
	put(light)  // in it
	put(light)  // tried
	if want := "zzzzzzzzzzLzzL"; kinds != want {
		t.Errorf("blocks went %s (z: LZ4, L: Light), want %s", kinds, want)
	}
	if n := len(must(must(NewEncoder(light.Schema(), WithCompression(Light))).Append(nil, light))); n >= len(must(lzEnc.Append(nil, light))) {
		t.Errorf("the Light batch takes %d bytes in Light, not fewer than LZ4's: the test tests nothing", n)
	}
}

// appendChecked appends rec, block i, with enc and returns the block,
// after checking that dec decodes it to rec and that it takes no more
// bytes than lzEnc's block of rec.
func appendChecked(t *testing.T, enc *Encoder, dec *Decoder, lzEnc *Encoder, rec arrow.RecordBatch, i int) []byte {
	t.Helper()
	b := must(enc.Append(nil, rec))
	out := must(dec.Decode(b))
	if !array.RecordEqual(out, rec) {
		t.Fatalf("block %d decodes to another batch", i)
	}
	out.Release()
	if lz := len(must(lzEnc.Append(nil, rec))); len(b) > lz {
		t.Errorf("block %d: %d bytes, more than LZ4's %d", i, len(b), lz)
	}
	return b
}

// streakBatch returns a batch of three float64 columns of 2,048 rows:
// equal columns of random values (Light holds each as byte planes, LZ4's
// block matches the copies, and wins) if copies, else three different
// columns of two decimals (ALP wins).
func streakBatch(t *testing.T, copies bool) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(28, 4))
	vals := make([]float64, 2048)
	for i := range vals {
		vals[i] = r.Float64()
	}
	b := array.NewFloat64Builder(memory.NewGoAllocator())
	defer b.Release()
	var cols []arrow.Array
	var fields []arrow.Field
	for c := range 3 {
		for _, v := range vals {
			if !copies {
				v = float64(r.IntN(100000)) / 100
			}
			b.Append(v)
		}
		cols = append(cols, b.NewArray())
		fields = append(fields, arrow.Field{Name: fmt.Sprint("c", c), Type: arrow.PrimitiveTypes.Float64})
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(vals)))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// TestRealDataBitForBit checks that every real table's batches come back
// bit for bit from LZ4, zstd and Light: the decoded batch, written without
// compression, is the block the batch itself makes (roundTrip's
// array.Equal compares floats as numbers, so it takes -0 for 0 and fails
// any NaN), and that such a block does tell -0 from 0.
func TestRealDataBitForBit(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Float64}}, nil)
	raw := func(rec arrow.RecordBatch) []byte { return must(must(NewEncoder(rec.Schema())).Append(nil, rec)) }
	zeros := [2][]byte{}
	for i, v := range []float64{0, math.Copysign(0, -1)} {
		b := array.NewFloat64Builder(memory.NewGoAllocator())
		b.Append(v)
		col := b.NewArray()
		rec := array.NewRecordBatch(sc, []arrow.Array{col}, 1)
		zeros[i] = raw(rec)
		rec.Release()
		col.Release()
		b.Release()
	}
	if bytes.Equal(zeros[0], zeros[1]) {
		t.Fatal("the raw blocks of 0 and -0 are equal, so the test tests nothing")
	}
	for _, f := range realDataFiles(t) {
		for _, r := range readParquet(t, f) {
			want := raw(r)
			for _, c := range []Compression{LZ4, Zstd, Light} {
				out := must(must(NewDecoder(r.Schema())).Decode(must(must(NewEncoder(r.Schema(), WithCompression(c))).Append(nil, r))))
				if !bytes.Equal(raw(out), want) {
					t.Errorf("%s with %s: the decoded batch is not the batch bit for bit", filepath.Base(f), c)
				}
				out.Release()
			}
			r.Release()
		}
	}
}

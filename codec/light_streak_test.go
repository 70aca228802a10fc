package codec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestColumnStreaks checks the columns' streaks through one encoder: a
// float column that LZ4 stores in fewer bytes than ALP goes to LZ4
// without choosing on the next block (so decimals put then are LZ4's),
// and is tried again after the wait (ALP); a string column that gets
// neither a dictionary nor front coding (random words) is not tried on
// the next block (so few distinct strings put then get no dictionary),
// and is tried again after it (a dictionary). Every block decodes to its
// batch and is no larger than LZ4's.
func TestColumnStreaks(t *testing.T) {
	const rows = 16384 // 128 KiB of floats: a body past huffMaxBody
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	build := func(lose bool) arrow.RecordBatch {
		r := rand.New(rand.NewPCG(28, 5))
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		fb, sb := b.Field(0).(*array.Float64Builder), b.Field(1).(*array.StringBuilder)
		for i := range rows {
			if lose {
				// A cycle of 100 values of many digits (LZ4 matches
				// it, ALP cannot hold it), and random hex words (no
				// dictionary, no shared prefixes).
				fb.Append(float64(i%100) / 7)
				sb.Append(fmt.Sprintf("%08x", r.Uint32()))
			} else {
				// Prices of two decimals (ALP), and 8 words at random
				// (a dictionary).
				fb.Append(float64(r.IntN(100000)) / 100)
				sb.Append([]string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}[r.IntN(8)])
			}
		}
		return b.NewRecordBatch()
	}
	lose, win := build(true), build(false)
	defer lose.Release()
	defer win.Release()
	enc := must(NewEncoder(schema, WithCompression(Light)))
	lzEnc := must(NewEncoder(schema, WithCompression(LZ4)))
	dec := must(NewDecoder(schema))
	var got []string
	put := func(rec arrow.RecordBatch) {
		b := appendChecked(t, enc, dec, lzEnc, rec, len(got))
		h := must(parseHeader(b))
		if h.compression != Light {
			t.Fatalf("block %d is %s's", len(got), h.compression)
		}
		var codecs []Compression
		mustOK(eachSection(b[headerSize:], h.raw, func(s sectionIn) error {
			codecs = append(codecs, s.codec)
			return nil
		}))
		kind := ""
		if slices.Contains(codecs, codecALP) {
			kind += "A"
		}
		if slices.Contains(codecs, codecStrDict) {
			kind += "D"
		}
		got = append(got, kind)
	}
	put(lose) // ALP loses to LZ4, neither dictionary nor front coding pays: waits of 1
	put(win)  // in both waits: no ALP, no dictionary
	put(win)  // tried: both
	if want := []string{"", "", "AD"}; !slices.Equal(got, want) {
		t.Errorf("blocks held %q (A: ALP, D: a string dictionary), want %q", got, want)
	}
	// The winning batch wins on a fresh encoder: the test tests the waits.
	fresh := must(NewEncoder(schema, WithCompression(Light)))
	got = nil
	enc = fresh
	put(win)
	if got[0] != "AD" {
		t.Errorf("the winning batch alone holds %q, want \"AD\": the test tests nothing", got[0])
	}
}

// TestSeenShareChange checks that a column held to what LZ4 took on its
// last blocks is measured again within seenRuns blocks when its data
// changes so that LZ4 takes fewer bytes than its section, unseen by the
// estimate: blocks of random words (FSST's, far under LZ4's), then blocks
// whose second half repeats the first, 40 KiB back (past the 32 KiB the
// estimate's parse reaches; within LZ4's 64 KiB). A column of small
// integers, which LZ4 stores in many more bytes than bit-packing, keeps
// the blocks Light's, so that it is the string column's sections that
// must hold. Every block decodes, and from the seenRuns+1st changed block
// on every section is no larger than LZ4 stores it.
func TestSeenShareChange(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	r := rand.New(rand.NewPCG(28, 9))
	word := func() string {
		w := make([]byte, 5+r.IntN(11))
		for i := range w {
			w[i] = "etaoinshrdlucmfwypvbgkjqxz"[min(r.IntN(26), r.IntN(26))]
		}
		return string(w)
	}
	const rows = 8192
	build := func(repeat bool) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		ib, sb := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.StringBuilder)
		words := make([]string, rows)
		for i := range words {
			ib.Append(int64(r.IntN(16)))
			if repeat && i >= rows/2 {
				words[i] = words[i-rows/2]
			} else {
				words[i] = word()
			}
			sb.Append(words[i])
		}
		return b.NewRecordBatch()
	}
	enc := must(NewEncoder(schema, WithCompression(Light)))
	dec := must(NewDecoder(schema))
	for i := range 3 + seenRuns + 2 {
		changed := i - 3 // blocks since the data changed
		rec := build(changed >= 0)
		b := must(enc.Append(nil, rec))
		out := must(dec.Decode(b))
		checkSame(t, rec, out, dec.Schema())
		out.Release()
		rec.Release()
		if changed < 0 || changed >= seenRuns {
			lightNotOverLZ4(t, fmt.Sprintf("block %d (changed %d blocks before)", i, changed), b)
		}
	}
}

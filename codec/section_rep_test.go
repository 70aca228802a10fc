package codec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// repBatch is a batch of n rows whose columns Light should store as
// run-length (sorted years: 32-bit and 64-bit), integer dictionary (few
// distinct wide values) and string dictionary sections (few distinct
// words, 32- and 64-bit lengths).
func repBatch(n int, seed uint64) arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(seed, 1))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "year", Type: arrow.PrimitiveTypes.Int32},
		{Name: "day", Type: arrow.PrimitiveTypes.Int64},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "word", Type: arrow.BinaryTypes.String},
		{Name: "large", Type: arrow.BinaryTypes.LargeString},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	ids := make([]int64, 37)
	for i := range ids {
		ids[i] = r.Int64()
	}
	words := make([]string, 150)
	for i := range words {
		words[i] = fmt.Sprintf("%x-word-%d", r.Uint32(), i)
	}
	for i := range n {
		b.Field(0).(*array.Int32Builder).Append(int32(1900 + i/97))
		b.Field(1).(*array.Int64Builder).Append(int64(1e12) + int64(i/40)*int64(86400e3))
		b.Field(2).(*array.Int64Builder).Append(ids[r.IntN(len(ids))])
		b.Field(3).(*array.StringBuilder).Append(words[r.IntN(len(words))])
		b.Field(4).(*array.LargeStringBuilder).Append(words[r.IntN(len(words))])
	}
	return b.NewRecordBatch()
}

// TestRepeatSections checks that Light stores repBatch's columns with
// run-length, integer and string dictionary sections and decodes them.
func TestRepeatSections(t *testing.T) {
	rec := repBatch(8192, 1)
	defer rec.Release()
	light := roundTrip(t, rec, WithCompression(Light))
	lz4 := roundTrip(t, rec, WithCompression(LZ4))
	zstd := roundTrip(t, rec, WithCompression(Zstd))
	codecs := sectionCodecs(t, light)
	t.Logf("light %d bytes %v, lz4 %d, zstd %d", len(light), codecs, len(lz4), len(zstd))
	for _, c := range []Compression{codecRLE, codecDict, codecStrDict} {
		if codecs[c] == 0 {
			t.Errorf("no section of codec %d: %v", c, codecs)
		}
	}
	lightNotOverLZ4(t, "repBatch", light)
}

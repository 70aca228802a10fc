package codec_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/measure"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// BenchmarkAppendBatches encodes each bench shape cut into pieces of 16 and
// 256 rows (compact copies, as a partitioner makes: measure.Pieces) as one
// block, next to Append of the whole batch: the two are the same block, so
// the ratio of their times is what coalescing costs.
func BenchmarkAppendBatches(b *testing.B) {
	mem := memory.NewGoAllocator()
	for _, s := range randbatch.BenchShapes() {
		rec := s.Build(mem)
		defer rec.Release()
		enc := must(codec.NewEncoder(rec.Schema()))
		block := must(enc.Append(nil, rec))
		b.Run(s.Name+"/whole", func(b *testing.B) {
			b.SetBytes(int64(len(block)))
			buf := make([]byte, 0, len(block))
			for b.Loop() {
				enc.Append(buf, rec)
			}
		})
		for _, p := range []int{16, 256} {
			pieces := must(measure.Pieces(rec, p))
			defer batches.Release(pieces)
			b.Run(fmt.Sprintf("%s/pieces%d", s.Name, p), func(b *testing.B) {
				b.SetBytes(int64(len(block)))
				buf := make([]byte, 0, len(block))
				for b.Loop() {
					enc.AppendBatches(buf, pieces...)
				}
			})
		}
	}
}

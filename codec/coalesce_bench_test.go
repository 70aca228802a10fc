package codec

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// BenchmarkAppendBatches encodes each bench shape cut into pieces of 16 and
// 256 rows (compact copies, as a partitioner makes) as one block, next to
// Append of the whole batch: the two are the same block, so the ratio of
// their times is what coalescing costs.
func BenchmarkAppendBatches(b *testing.B) {
	mem := memory.NewGoAllocator()
	for _, s := range randbatch.BenchShapes() {
		rec := s.Build(mem)
		defer rec.Release()
		enc, err := NewEncoder(rec.Schema())
		if err != nil {
			b.Fatal(err)
		}
		block, err := enc.Append(nil, rec)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.Name+"/whole", func(b *testing.B) {
			b.SetBytes(int64(len(block)))
			buf := make([]byte, 0, len(block))
			for b.Loop() {
				enc.Append(buf, rec)
			}
		})
		for _, p := range []int64{16, 256} {
			var pieces []arrow.RecordBatch
			for i := int64(0); i < rec.NumRows(); i += p {
				sl := rec.NewSlice(i, min(i+p, rec.NumRows()))
				cols := make([]arrow.Array, sl.NumCols())
				for j := range cols {
					cols[j], err = array.Concatenate([]arrow.Array{sl.Column(j)}, mem)
					if err != nil {
						b.Fatal(err)
					}
				}
				pieces = append(pieces, array.NewRecordBatch(rec.Schema(), cols, sl.NumRows()))
				sl.Release()
			}
			defer release(pieces)
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

package codec_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// BenchmarkDecodePool decodes a steady stream of compressed lineitem blocks
// (8,192 rows) while a GC runs every gc blocks (never with gc=0), as an
// engine's own allocations would make it run; B/op is what the
// decompression pool failed to keep, beyond the arrays decode always makes.
func BenchmarkDecodePool(b *testing.B) {
	var shape randbatch.Shape
	for _, sh := range randbatch.BenchShapes() {
		if sh.Name == "lineitem-8192" {
			shape = sh
		}
	}
	rec := shape.Build(memory.NewGoAllocator())
	defer rec.Release()
	for _, c := range []codec.Compression{codec.LZ4, codec.Zstd} {
		block := must(must(codec.NewEncoder(rec.Schema(), codec.WithCompression(c))).Append(nil, rec))
		for _, gc := range []int{0, 64, 8, 1} {
			{
				b.Run(fmt.Sprintf("%s/gc=%d", c, gc), func(b *testing.B) {
					dec := must(codec.NewDecoder(rec.Schema()))
					b.ReportAllocs()
					b.SetBytes(int64(len(block)))
					for i := range b.N {
						if gc > 0 && i%gc == 0 {
							b.StopTimer()
							runtime.GC()
							b.StartTimer()
						}
						out, err := dec.Decode(block)
						if err != nil {
							b.Fatal(err)
						}
						out.Release()
					}
				})
			}
		}
	}
}

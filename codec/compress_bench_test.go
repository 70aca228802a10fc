package codec_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/measure"
)

// BenchmarkCompressed compares, per shape and codec and side by side in one
// run, compressed blocks against arrow-go's IPC with the same codec:
// arrowpack with one goroutine per block (conc=1) and with WithConcurrency(2)
// (conc=2), and IPC's writer and reader with their default concurrency and
// with two goroutines (ipc.WithCompressConcurrency, ipc.WithZstd and
// ipc.WithLZ4; MinLZ, which IPC lacks, is set against IPC's LZ4), prepared
// by internal/measure as the bench command prepares them. Bytes per op are
// the uncompressed arrowpack block, so MB/s compare; B/block reports each
// encoding's compressed size and raw-B/block the bytes of an arrowpack block
// stored raw because compressing them was estimated not to pay.
func BenchmarkCompressed(b *testing.B) {
	for _, c := range loadBenchCases(b) {
		for _, comp := range []codec.Compression{codec.LZ4, codec.Zstd, codec.MinLZ, codec.Light} {
			name := fmt.Sprintf("%s/%s", c.name, comp)
			for _, n := range []int{1, 2} {
				opts := []codec.Option{codec.WithCompression(comp), codec.WithConcurrency(n)}
				enc := must(codec.NewEncoder(c.rec.Schema(), opts...))
				dec := must(codec.NewDecoder(c.rec.Schema(), opts...))
				block := must(enc.Append(nil, c.rec))
				b.Run(fmt.Sprintf("%s/encode/arrowpack/conc=%d", name, n), func(b *testing.B) {
					buf := make([]byte, 0, len(c.block))
					b.ReportAllocs()
					b.SetBytes(int64(len(c.block)))
					for b.Loop() {
						buf = must(enc.Append(buf[:0], c.rec))
					}
					b.ReportMetric(float64(len(block)), "B/block")
					b.ReportMetric(float64(must(codec.ReadBlockInfo(block)).RawBytes), "raw-B/block")
				})
				b.Run(fmt.Sprintf("%s/decode/arrowpack/conc=%d", name, n), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(c.block)))
					for b.Loop() {
						must(dec.Decode(block)).Release()
					}
					b.ReportMetric(float64(len(block)), "B/block")
				})
				ipc := must(measure.PrepareIPC([]arrow.RecordBatch{c.rec}, must(measure.IPCOptions(c.rec.Schema(), comp, n))))
				b.Run(fmt.Sprintf("%s/encode/ipc/conc=%d", name, n), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(c.block)))
					for b.Loop() {
						if err := ipc.Encode(0); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(ipc.Bytes), "B/block")
				})
				b.Run(fmt.Sprintf("%s/decode/ipc/conc=%d", name, n), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(c.block)))
					for b.Loop() {
						if err := ipc.Decode(0); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(ipc.Bytes), "B/block")
				})
			}
		}
	}
}

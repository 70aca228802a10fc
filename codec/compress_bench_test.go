package codec

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkCompressed compares, per shape and codec and side by side in one
// run, compressed blocks against arrow-go's IPC with the same codec:
// arrowpack with one goroutine per block (conc=1) and with WithConcurrency(2)
// (conc=2), and IPC's writer and reader with their default concurrency and
// with two goroutines (ipc.WithCompressConcurrency, ipc.WithZstd and
// ipc.WithLZ4; MinLZ, which IPC lacks, is set against IPC's LZ4). Bytes per
// op are the uncompressed arrowpack block, so MB/s compare; B/block reports
// each encoding's compressed size and raw-B/block the bytes of an arrowpack
// block stored raw because compressing them was estimated not to pay.
func BenchmarkCompressed(b *testing.B) {
	for _, c := range loadBenchCases(b) {
		for _, comp := range []Compression{LZ4, Zstd, MinLZ} {
			name := fmt.Sprintf("%s/%s", c.name, comp)
			for _, n := range []int{1, 2} {
				opts := []Option{WithCompression(comp), WithConcurrency(n)}
				enc := must(NewEncoder(c.rec.Schema(), opts...))
				dec := must(NewDecoder(c.rec.Schema(), opts...))
				block := must(enc.Append(nil, c.rec))
				b.Run(fmt.Sprintf("%s/encode/arrowpack/conc=%d", name, n), func(b *testing.B) {
					buf := make([]byte, 0, len(c.block))
					b.ReportAllocs()
					b.SetBytes(int64(len(c.block)))
					for b.Loop() {
						buf = must(enc.Append(buf[:0], c.rec))
					}
					b.ReportMetric(float64(len(block)), "B/block")
					b.ReportMetric(float64(must(ReadBlockInfo(block)).RawBytes), "raw-B/block")
				})
				b.Run(fmt.Sprintf("%s/decode/arrowpack/conc=%d", name, n), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(c.block)))
					for b.Loop() {
						must(dec.Decode(block)).Release()
					}
					b.ReportMetric(float64(len(block)), "B/block")
				})
				iopts := ipcOptions(c.rec.Schema(), comp, n)
				var stream bytes.Buffer
				b.Run(fmt.Sprintf("%s/encode/ipc/conc=%d", name, n), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(c.block)))
					for b.Loop() {
						if err := ipcWrite(&stream, c.rec, iopts); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(stream.Len()), "B/block")
				})
				if err := ipcWrite(&stream, c.rec, iopts); err != nil {
					b.Fatal(err)
				}
				data := bytes.Clone(stream.Bytes())
				b.Run(fmt.Sprintf("%s/decode/ipc/conc=%d", name, n), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(c.block)))
					for b.Loop() {
						if err := ipcRead(data); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(data)), "B/block")
				})
			}
		}
	}
}

// BenchmarkDecide times deciding alone, per shape and codec: cutting a
// written raw body into pieces and estimating each (planSections), without
// compressing. Set against BenchmarkCompressed's encode/arrowpack/conc=1 it
// gives the share of encode time spent deciding.
func BenchmarkDecide(b *testing.B) {
	for _, c := range loadBenchCases(b) {
		for _, comp := range []Compression{LZ4, Zstd, MinLZ} {
			enc := must(NewEncoder(c.rec.Schema(), WithCompression(comp)))
			raw, marks := encodeMarked(b, enc, c.rec, enc.cfg.transforms)
			ss := &sectionScratch{marks: marks}
			b.Run(fmt.Sprintf("%s/%s", c.name, comp), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.block)))
				for b.Loop() {
					ss.secs = enc.compressor.planSections(ss, raw[headerSize:], 1)
				}
			})
		}
	}
}

package codec

import (
	"bytes"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// BenchmarkStream writes and reads back a stream of 1,000 blocks of a
// 1024-row lineitem batch, beside arrow-go's IPC stream writer and reader
// doing the same (schema once, then 1,000 batches), with each compression.
// MB/s counts the uncompressed arrowpack bytes of the 1,000 blocks.
func BenchmarkStream(b *testing.B) {
	const blocks = 1000
	rec := randbatch.Lineitem(memory.NewGoAllocator(), 1024)
	defer rec.Release()
	raw := must(must(NewEncoder(rec.Schema())).Append(nil, rec))
	total := int64(len(raw)) * blocks

	for _, c := range []Compression{None, LZ4, Zstd} {
		var apk, arrow bytes.Buffer
		w := must(NewWriter(&apk, rec.Schema(), WithCompression(c)))
		iw := ipc.NewWriter(&arrow, ipcOptions(rec.Schema(), c, 1)...)
		for range blocks {
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
			if err := iw.Write(rec); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		if err := iw.Close(); err != nil {
			b.Fatal(err)
		}
		b.Run(c.String()+"/write/arrowpack", func(b *testing.B) {
			b.SetBytes(total)
			b.ReportMetric(float64(apk.Len()), "file-B")
			for b.Loop() {
				w := must(NewWriter(io.Discard, rec.Schema(), WithCompression(c)))
				for range blocks {
					if err := w.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
				w.Close()
			}
		})
		b.Run(c.String()+"/write/ipc", func(b *testing.B) {
			b.SetBytes(total)
			b.ReportMetric(float64(arrow.Len()), "file-B")
			for b.Loop() {
				w := ipc.NewWriter(io.Discard, ipcOptions(rec.Schema(), c, 1)...)
				for range blocks {
					if err := w.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
				w.Close()
			}
		})
		b.Run(c.String()+"/read/arrowpack", func(b *testing.B) {
			b.SetBytes(total)
			for b.Loop() {
				r := must(NewReader(bytes.NewReader(apk.Bytes())))
				n := 0
				for r.Next() {
					n++
				}
				if r.Err() != nil || n != blocks {
					b.Fatalf("read %d blocks: %v", n, r.Err())
				}
				r.Release()
			}
		})
		b.Run(c.String()+"/read/ipc", func(b *testing.B) {
			b.SetBytes(total)
			for b.Loop() {
				r := must(ipc.NewReader(bytes.NewReader(arrow.Bytes())))
				n := 0
				for r.Next() {
					n++
				}
				if r.Err() != nil || n != blocks {
					b.Fatalf("read %d blocks: %v", n, r.Err())
				}
				r.Release()
			}
		})
	}
}

package codec_test

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/measure"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// BenchmarkStream writes and reads back a stream of 1,000 blocks of a
// 1024-row lineitem batch, beside arrow-go's IPC stream writer and reader
// doing the same (schema once, then 1,000 batches, with measure.IPCOptions),
// with each compression. MB/s counts the uncompressed arrowpack bytes of
// the 1,000 blocks.
func BenchmarkStream(b *testing.B) {
	const blocks = 1000
	rec := randbatch.Lineitem(memory.NewGoAllocator(), 1024)
	defer rec.Release()
	raw := must(must(codec.NewEncoder(rec.Schema())).Append(nil, rec))
	total := int64(len(raw)) * blocks
	recs := slices.Repeat([]arrow.RecordBatch{rec}, blocks)

	for _, c := range []codec.Compression{codec.None, codec.LZ4, codec.Zstd} {
		iopts := must(measure.IPCOptions(rec.Schema(), c, 1))
		formats := []*streamFormat{{
			name: "arrowpack",
			newWriter: func(w io.Writer) (batches.Writer, error) {
				return codec.NewWriter(w, rec.Schema(), codec.WithCompression(c))
			},
			newReader: func(r io.Reader) (array.RecordReader, error) { return codec.NewReader(r) },
		}, {
			name:      "ipc",
			newWriter: func(w io.Writer) (batches.Writer, error) { return ipc.NewWriter(w, iopts...), nil },
			newReader: func(r io.Reader) (array.RecordReader, error) { return ipc.NewReader(r) },
		}}
		for _, f := range formats {
			if err := f.write(&f.stream, recs); err != nil {
				b.Fatal(err)
			}
		}
		for _, f := range formats {
			b.Run(c.String()+"/write/"+f.name, func(b *testing.B) {
				b.SetBytes(total)
				b.ReportMetric(float64(f.stream.Len()), "file-B")
				for b.Loop() {
					if err := f.write(io.Discard, recs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		for _, f := range formats {
			b.Run(c.String()+"/read/"+f.name, func(b *testing.B) {
				b.SetBytes(total)
				for b.Loop() {
					if err := f.read(blocks); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// streamFormat is one stream format of BenchmarkStream: how to open a
// writer and a reader, and a stream written once to read back.
type streamFormat struct {
	name      string
	newWriter func(io.Writer) (batches.Writer, error)
	newReader func(io.Reader) (array.RecordReader, error)
	stream    bytes.Buffer
}

// write writes recs as one stream into w.
func (f *streamFormat) write(w io.Writer, recs []arrow.RecordBatch) error {
	sw, err := f.newWriter(w)
	if err != nil {
		return err
	}
	return batches.WriteAll(sw, recs)
}

// read reads f.stream back and checks it holds n batches.
func (f *streamFormat) read(n int) error {
	r, err := f.newReader(bytes.NewReader(f.stream.Bytes()))
	if err != nil {
		return err
	}
	got, err := measure.CountBatches(r)
	if err != nil || got != n {
		return fmt.Errorf("read %d blocks of %d: %v", got, n, err)
	}
	return nil
}

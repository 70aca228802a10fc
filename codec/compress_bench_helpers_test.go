package codec

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// What compress_bench_test.go (BenchmarkCompressed, BenchmarkDecide) needs
// and nothing else in package codec uses: the bench shapes with their
// uncompressed blocks, and arrow-go's IPC set against them. The other
// benchmarks moved to the external package codec_test, where they take IPC
// from internal/measure (which imports codec, so this package's own tests
// cannot). This file goes when BenchmarkCompressed moves there too
// (measure.IPCOptions and measure.PrepareIPC replace ipcOptions, ipcWrite
// and ipcRead) and BenchmarkDecide builds its own shapes.

// benchCase is one bench shape: its batch and its uncompressed block.
type benchCase struct {
	name  string
	rec   arrow.RecordBatch
	block []byte
}

var (
	benchOnce  sync.Once
	benchCases []*benchCase
	benchErr   error
)

// loadBenchCases builds every randbatch bench shape and its block once per
// test binary.
func loadBenchCases(tb testing.TB) []*benchCase {
	benchOnce.Do(func() {
		mem := memory.NewGoAllocator()
		for _, sh := range randbatch.BenchShapes() {
			rec := sh.Build(mem)
			enc, err := NewEncoder(rec.Schema())
			if err == nil {
				var block []byte
				if block, err = enc.Append(nil, rec); err == nil {
					benchCases = append(benchCases, &benchCase{name: sh.Name, rec: rec, block: block})
					continue
				}
			}
			benchErr = fmt.Errorf("%s: %w", sh.Name, err)
			return
		}
	})
	if benchErr != nil {
		tb.Fatal(benchErr)
	}
	return benchCases
}

// ipcOptions returns the options of arrow-go's IPC writer for compression
// c on conc goroutines: the same codec, or LZ4 for MinLZ, which IPC lacks.
func ipcOptions(schema *arrow.Schema, c Compression, conc int) []ipc.Option {
	opts := []ipc.Option{ipc.WithSchema(schema)}
	switch c {
	case LZ4, MinLZ:
		opts = append(opts, ipc.WithLZ4())
	case Zstd:
		opts = append(opts, ipc.WithZstd())
	}
	if c != None && conc > 1 {
		opts = append(opts, ipc.WithCompressConcurrency(conc))
	}
	return opts
}

// ipcWrite writes rec into buf, emptied first, as a self-contained IPC
// stream (schema, batch, end marker), as a shuffle using IPC per block does.
func ipcWrite(buf *bytes.Buffer, rec arrow.RecordBatch, opts []ipc.Option) error {
	buf.Reset()
	w := ipc.NewWriter(buf, opts...)
	if err := w.Write(rec); err != nil {
		return err
	}
	return w.Close()
}

// ipcRead reads the one batch of a self-contained IPC stream, as a user
// would, and releases it.
func ipcRead(data []byte) error {
	r, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer r.Release()
	if !r.Next() {
		return fmt.Errorf("ipc reader: no batch: %v", r.Err())
	}
	rec := r.RecordBatch()
	rec.Retain()
	rec.Release()
	return nil
}

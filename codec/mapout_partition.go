package codec

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
)

// A MapWriter writes the output of one map task of a shuffle: it takes
// batches with a partition id per row, splits them into partitions with a
// Partitioner and writes the finished blocks into one map-output file
// (MapOutputWriter), which Close commits. The memory it holds is the
// Partitioner's pending rows (WithMemoryLimit) and the finished blocks not
// yet spilled (MapOutputOptions.Buffer). A MapWriter that fails, is
// aborted or whose process is killed leaves no map output. A MapWriter is
// not safe for concurrent use.
type MapWriter struct {
	pt  *Partitioner
	out *MapOutputWriter
}

// CreateMapWriter starts a map output of partitions partitions at path for
// batches of schema. opts are a Partitioner's (compression, WithBlockRows,
// WithBlockSize, WithMemoryLimit).
func CreateMapWriter(path string, schema *arrow.Schema, partitions int, o MapOutputOptions, opts ...Option) (*MapWriter, error) {
	out, err := CreateMapOutput(path, schema, partitions, o)
	if err != nil {
		return nil, err
	}
	pt, err := NewPartitioner(schema, partitions, out.WriteBlock, opts...)
	if err != nil {
		out.Abort()
		return nil, err
	}
	return &MapWriter{pt: pt, out: out}, nil
}

// Write appends row i of rec to partition parts[i] (see
// Partitioner.Write: a batch it refuses reaches no partition).
func (w *MapWriter) Write(rec arrow.RecordBatch, parts []uint32) error {
	return w.pt.Write(rec, parts)
}

// Close finishes every partition's pending block and commits the map
// output (MapOutputWriter.Close). On an error no map output is left.
func (w *MapWriter) Close() error {
	if err := w.pt.Close(); err != nil && !errors.Is(err, ErrClosed) {
		w.out.Abort()
		return err
	}
	return w.out.Close()
}

// Abort discards the map output: nothing is left at its path.
func (w *MapWriter) Abort() {
	w.out.Abort()
	w.pt.Close() // its pending blocks go to the aborted writer, which refuses them

}

package codec

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// batch is the arrow.RecordBatch a Decoder returns. It takes over the
// references to its columns, which the decoder has already checked against
// the schema, so it skips the per-column checks and reference counting of
// array.NewRecordBatch, a large part of decoding a small block. Anything
// beyond reading (SetColumn, NewSlice, JSON, String) goes through an
// arrow-go record batch made on demand.
type batch struct {
	refs   atomic.Int64
	schema *arrow.Schema
	rows   int64
	cols   []arrow.Array
}

var _ arrow.RecordBatch = (*batch)(nil)

func newBatch(schema *arrow.Schema, cols []arrow.Array, rows int64) *batch {
	b := &batch{schema: schema, rows: rows, cols: cols}
	b.refs.Store(1)
	return b
}

// Retain adds a reference to the batch.
func (b *batch) Retain() { b.refs.Add(1) }

// Release removes a reference; the last one releases the columns.
func (b *batch) Release() {
	if b.refs.Add(-1) == 0 {
		for _, c := range b.cols {
			c.Release()
		}
		b.cols = nil
	}
}

// Schema returns the Decoder's schema.
func (b *batch) Schema() *arrow.Schema { return b.schema }

// NumRows returns the number of rows.
func (b *batch) NumRows() int64 { return b.rows }

// NumCols returns the number of columns.
func (b *batch) NumCols() int64 { return int64(len(b.cols)) }

// Columns returns the columns, which the batch owns.
func (b *batch) Columns() []arrow.Array { return b.cols }

// Column returns column i.
func (b *batch) Column(i int) arrow.Array { return b.cols[i] }

// ColumnName returns the name of column i.
func (b *batch) ColumnName(i int) string { return b.schema.Field(i).Name }

// record returns an arrow-go record batch of the same columns; the caller
// releases it.
func (b *batch) record() arrow.RecordBatch {
	return array.NewRecordBatch(b.schema, b.cols, b.rows)
}

// SetColumn returns a new record batch with column i replaced by col, as
// arrow-go's record batches do.
func (b *batch) SetColumn(i int, col arrow.Array) (arrow.RecordBatch, error) {
	r := b.record()
	defer r.Release()
	return r.SetColumn(i, col)
}

// NewSlice returns a zero-copy slice of rows [i, j), as arrow-go's record
// batches do; the caller releases it.
func (b *batch) NewSlice(i, j int64) arrow.RecordBatch {
	r := b.record()
	defer r.Release()
	return r.NewSlice(i, j)
}

// MarshalJSON writes the batch as arrow-go's record batches do.
func (b *batch) MarshalJSON() ([]byte, error) {
	r := b.record()
	defer r.Release()
	return r.MarshalJSON()
}

// String formats the batch as arrow-go's record batches do.
func (b *batch) String() string {
	r := b.record()
	defer r.Release()
	if s, ok := r.(interface{ String() string }); ok {
		return s.String()
	}
	return ""
}

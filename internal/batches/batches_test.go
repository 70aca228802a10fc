package batches

import (
	"bytes"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// failing is a RecordReader of one batch that then fails.
type failing struct {
	array.RecordReader
	n int
}

var errBroken = errors.New("broken")

func (f *failing) Next() bool {
	f.n++
	return f.n == 1 && f.RecordReader.Next()
}

func (f *failing) Err() error {
	if f.n > 1 {
		return errBroken
	}
	return nil
}

// TestReadAll: ReadAll returns every batch, retained beyond the reader's
// release, and the reader's error with the batches read before it; Release
// returns their memory.
func TestReadAll(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.RecordBatch
	for i := range 3 {
		b := array.NewRecordBuilder(mem, schema)
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{int64(i), int64(i + 1)}, nil)
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	defer Release(recs)

	rd, err := array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(rd)
	rd.Release()
	if err != nil || len(got) != len(recs) {
		t.Fatalf("ReadAll = %d batches, %v; want %d, nil", len(got), err, len(recs))
	}
	for i := range recs {
		if !array.RecordEqual(got[i], recs[i]) {
			t.Errorf("batch %d differs", i)
		}
	}
	Release(got)

	rd, err = array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	got, err = ReadAll(&failing{RecordReader: rd})
	rd.Release()
	if !errors.Is(err, errBroken) || len(got) != 1 {
		t.Fatalf("ReadAll of a failing reader = %d batches, %v; want 1, %v", len(got), err, errBroken)
	}
	Release(got)
}

// brokenWriter fails its second Write and counts its Closes.
type brokenWriter struct{ writes, closes int }

func (w *brokenWriter) Write(arrow.RecordBatch) error {
	if w.writes++; w.writes == 2 {
		return errBroken
	}
	return nil
}

func (w *brokenWriter) Close() error { w.closes++; return nil }

// TestWriteAll: WriteAll writes every batch and closes the writer, so an
// IPC stream reads back whole; on a failed Write it stops, closes the
// writer and returns the error.
func TestWriteAll(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.RecordBatch
	for i := range 3 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{int64(i)}, nil)
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	defer Release(recs)

	var buf bytes.Buffer
	if err := WriteAll(ipc.NewWriter(&buf, ipc.WithSchema(schema)), recs); err != nil {
		t.Fatal(err)
	}
	rd, err := ipc.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	got, err := ReadAll(rd)
	defer Release(got)
	if err != nil || len(got) != len(recs) {
		t.Fatalf("read back %d batches, %v; want %d", len(got), err, len(recs))
	}

	w := &brokenWriter{}
	if err := WriteAll(w, recs); !errors.Is(err, errBroken) || w.writes != 2 || w.closes != 1 {
		t.Fatalf("WriteAll to a failing writer = %v after %d writes and %d closes; want %v, 2, 1", err, w.writes, w.closes, errBroken)
	}
}

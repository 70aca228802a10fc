package codec

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// readBlocks reads a stream and returns its batches, released when the
// test ends.
func readBlocks(t *testing.T, data []byte) []arrow.RecordBatch {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	out, err := batches.ReadAll(r)
	t.Cleanup(func() { batches.Release(out) })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// expectedBlocks groups batches of the given rows and block sizes as a
// coalescing Writer must: a batch joins the pending ones unless that would
// pass a target; pending ones are written once they reach one.
func expectedBlocks(rows, sizes []int, maxRows, maxSize int) [][]int {
	var blocks [][]int
	var cur []int
	pr, ps := 0, 0
	for i := range rows {
		if len(cur) > 0 && (pr+rows[i] > maxRows || ps+sizes[i]-headerSize > maxSize) {
			blocks, cur, pr, ps = append(blocks, cur), nil, 0, 0
		}
		if len(cur) == 0 {
			ps = headerSize
		}
		cur = append(cur, i)
		pr += rows[i]
		ps += sizes[i] - headerSize
		if pr >= maxRows || ps >= maxSize {
			blocks, cur, pr, ps = append(blocks, cur), nil, 0, 0
		}
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur)
	}
	return blocks
}

// TestWriterCoalesces writes random batches through coalescing Writers and
// checks the blocks group them as the targets say, each block holding the
// rows of its batches in order (as AppendBatches of them), and that every
// batch is released once written.
func TestWriterCoalesces(t *testing.T) {
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	r := rand.New(rand.NewPCG(31, 32))
	// Dictionaries with 8-bit indices differ from batch to batch and their
	// union soon overflows the index type; TestWriterFallsBack covers them.
	all, golden := goldenBatches()
	batches.Release(golden)
	var fields []arrow.Field
	for _, f := range all.Fields() {
		if s := f.Type.String(); !strings.Contains(s, "indices=int8") && !strings.Contains(s, "indices=uint8") {
			fields = append(fields, f)
		}
	}
	schema := arrow.NewSchema(fields, nil)
	recs := make([]arrow.RecordBatch, 40)
	rows := make([]int, len(recs))
	sizes := make([]int, len(recs))
	enc, err := NewEncoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		recs[i] = randbatch.Batch(checked, r, schema, []int{0, 1, 5, 16, 40, 100}[r.IntN(6)], randbatch.Options{NullProb: 0.2, MaxListLen: 3, Slice: true})
		rows[i] = int(recs[i].NumRows())
		if sizes[i], err = enc.blockSize(recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ rows, size int }{{64, 0}, {1, 0}, {1000, 0}, {0, 40000}, {0, 1}, {50, 60000}} {
		name := fmt.Sprintf("rows %d size %d", tc.rows, tc.size)
		data := writeStream(t, schema, recs, WithBlockRows(tc.rows), WithBlockSize(tc.size))
		got := readBlocks(t, data)
		maxRows, maxSize := tc.rows, tc.size
		if maxRows == 0 {
			maxRows = math.MaxInt
		}
		if maxSize == 0 {
			maxSize = math.MaxInt
		}
		want := expectedBlocks(rows, sizes, maxRows, maxSize)
		if len(got) != len(want) {
			t.Fatalf("%s: %d blocks, want %d", name, len(got), len(want))
		}
		for b, idx := range want {
			part := make([]arrow.RecordBatch, len(idx))
			for j, i := range idx {
				part[j] = recs[i]
			}
			checkRowsOf(t, fmt.Sprintf("%s block %d", name, b), nil, part, got[b])
		}
	}
	batches.Release(recs)
	checked.AssertSize(t, 0)
}

// coalescingWriter returns the golden batches, released when t ends, and a
// Writer of their schema into sink that coalesces up to 1000 rows a block.
func coalescingWriter(t *testing.T, sink *bytes.Buffer) (*arrow.Schema, []arrow.RecordBatch, *Writer) {
	t.Helper()
	schema, recs := goldenBatches()
	t.Cleanup(func() { batches.Release(recs) })
	w, err := NewWriter(sink, schema, WithBlockRows(1000))
	if err != nil {
		t.Fatal(err)
	}
	return schema, recs, w
}

// TestWriterFlush checks that a coalescing Writer writes nothing until a
// target is reached or Flush or Close is called, and that a Writer without
// the options writes one block per batch.
func TestWriterFlush(t *testing.T) {
	var sink bytes.Buffer
	schema, recs, w := coalescingWriter(t, &sink)
	header := sink.Len()
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if sink.Len() != header {
		t.Fatalf("a coalescing Writer below its targets wrote %d bytes", sink.Len()-header)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if sink.Len() == header {
		t.Fatal("Flush wrote nothing")
	}
	flushed := sink.Len()
	if err := w.Flush(); err != nil || sink.Len() != flushed {
		t.Fatalf("Flush with nothing pending: %v, wrote %d bytes", err, sink.Len()-flushed)
	}
	if err := w.Write(recs[1]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readBlocks(t, sink.Bytes())
	if len(got) != 2 {
		t.Fatalf("%d blocks, want 2 (the flushed batches, then the one Close wrote)", len(got))
	}
	checkRowsOf(t, "flushed", nil, recs, got[0])
	checkRowsOf(t, "closed", nil, recs[1:2], got[1])

	plain := readBlocks(t, writeStream(t, schema, recs))
	if len(plain) != len(recs) {
		t.Fatalf("a Writer without the options wrote %d blocks for %d batches", len(plain), len(recs))
	}
}

// TestWriterCoalescingRefusesInvalidBatch checks that an invalid batch is
// refused by its own Write and leaves the pending batches as they were.
func TestWriterCoalescingRefusesInvalidBatch(t *testing.T) {
	var sink bytes.Buffer
	_, recs, w := coalescingWriter(t, &sink)
	if err := w.Write(recs[1]); err != nil {
		t.Fatal(err)
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8}}, nil)
	if err := w.Write(emptyBatch(other)); !errors.Is(err, ErrSchemaMismatch) {
		t.Fatalf("Write of another schema's batch: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readBlocks(t, sink.Bytes())
	if len(got) != 1 {
		t.Fatalf("%d blocks, want 1", len(got))
	}
	checkRowsOf(t, "pending", nil, recs[1:2], got[0])
}

// emptyBatch returns a batch of zero rows of schema.
func emptyBatch(schema *arrow.Schema) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	return b.NewRecordBatch()
}

// TestWriterFallsBack checks that batches whose dictionaries cannot share
// one block (their union overflows 8-bit indices) are written as blocks of
// their own instead of being lost.
func TestWriterFallsBack(t *testing.T) {
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.PrimitiveTypes.Int32}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt}}, nil)
	mem := memory.NewGoAllocator()
	var recs []arrow.RecordBatch
	for k := range 3 {
		b := array.NewDictionaryBuilder(mem, dt).(*array.Int32DictionaryBuilder)
		for i := range 100 {
			if err := b.Append(int32(1000*k + i)); err != nil {
				t.Fatal(err)
			}
		}
		arr := b.NewArray()
		b.Release()
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len())))
		arr.Release()
	}
	defer batches.Release(recs)
	got := readBlocks(t, writeStream(t, schema, recs, WithBlockRows(1000)))
	if len(got) != len(recs) {
		t.Fatalf("%d blocks, want %d", len(got), len(recs))
	}
	for i := range got {
		checkRowsOf(t, fmt.Sprint("block ", i), nil, recs[i:i+1], got[i])
	}
}

// TestWriterRowsOnlyInvalidBatch checks that with WithBlockRows alone an
// invalid batch is found when its block is written: Close reports it with
// ErrInvalidBatch and the valid batches are still written, each on its
// own.
func TestWriterRowsOnlyInvalidBatch(t *testing.T) {
	bad := array.MakeFromData(invalidBatches()["int64 values"])
	defer bad.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: bad.DataType(), Nullable: true}}, nil)
	badRec := array.NewRecordBatch(schema, []arrow.Array{bad}, int64(bad.Len()))
	defer badRec.Release()
	b := array.NewInt64Builder(memory.NewGoAllocator())
	b.AppendValues([]int64{1, 2, 3}, nil)
	good := b.NewArray()
	defer good.Release()
	goodRec := array.NewRecordBatch(schema, []arrow.Array{good}, 3)
	defer goodRec.Release()

	var sink bytes.Buffer
	w, err := NewWriter(&sink, schema, WithBlockRows(100))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []arrow.RecordBatch{goodRec, badRec, goodRec} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); !errors.Is(err, ErrInvalidBatch) {
		t.Fatalf("Close: %v, want an error wrapping ErrInvalidBatch", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	got := readBlocks(t, sink.Bytes())
	if len(got) != 2 {
		t.Fatalf("%d blocks, want the 2 valid batches", len(got))
	}
	for i := range got {
		checkRowsOf(t, fmt.Sprint("block ", i), nil, []arrow.RecordBatch{goodRec}, got[i])
	}
}

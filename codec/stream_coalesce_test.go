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

// TestWriterRefusesInvalidBatch checks that a Writer, coalescing or not,
// refuses an invalid batch in its own Write with ErrInvalidBatch, holds
// nothing of it, and leaves the stream readable: up to the batches before
// it at once, and whole after Close.
func TestWriterRefusesInvalidBatch(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	badRec := oneColumn(badBatchCases()["string invalid UTF-8"].d)
	badRec.schema = schema
	b := array.NewStringBuilder(memory.NewGoAllocator())
	b.AppendValues([]string{"a", "bc", "déf"}, nil)
	good := b.NewArray()
	defer good.Release()
	goodRec := array.NewRecordBatch(schema, []arrow.Array{good}, 3)
	defer goodRec.Release()

	for name, opts := range map[string][]Option{
		"one block per batch": nil,
		"WithBlockRows":       {WithBlockRows(100)},
		"WithBlockSize":       {WithBlockSize(1 << 20)},
		"LZ4, WithBlockRows":  {WithCompression(LZ4), WithBlockRows(4)},
	} {
		t.Run(name, func(t *testing.T) {
			var sink bytes.Buffer
			w, err := NewWriter(&sink, schema, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(goodRec); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			before := sink.Len()
			err = w.Write(badRec)
			if !errors.Is(err, ErrInvalidBatch) || !strings.Contains(err.Error(), "column c, row 1:") {
				t.Fatalf("Write of an invalid batch: %v, want ErrInvalidBatch naming column c, row 1", err)
			}
			if sink.Len() != before {
				t.Fatalf("the refused Write wrote %d bytes", sink.Len()-before)
			}
			// Cut here, the stream reads as the batch before, then ends
			// short of its end frame.
			r, err := NewReader(bytes.NewReader(sink.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if !r.Next() {
				t.Fatalf("the stream before the refused batch does not read: %v", r.Err())
			}
			checkRowsOf(t, "the batch before", nil, []arrow.RecordBatch{goodRec}, r.RecordBatch())
			if r.Next() || !errors.Is(r.Err(), ErrCorrupt) {
				t.Fatalf("a stream without its end frame: %v, want ErrCorrupt after the first batch", r.Err())
			}
			r.Release()
			if err := w.Write(goodRec); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			var rows []arrow.RecordBatch
			for _, rec := range readBlocks(t, sink.Bytes()) {
				for i := range rec.NumRows() {
					rows = append(rows, rec.NewSlice(i, i+1))
				}
			}
			defer batches.Release(rows)
			if len(rows) != 6 {
				t.Fatalf("%d rows read, want the 6 of the two valid batches", len(rows))
			}
			for i, row := range rows {
				want := goodRec.NewSlice(int64(i%3), int64(i%3+1))
				if !array.RecordEqual(want, row) {
					t.Errorf("row %d: %v, want %v", i, row, want)
				}
				want.Release()
			}
		})
	}
}

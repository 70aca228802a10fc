package codec_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
)

// A small batch to encode: ids and names.
func exampleBatch() arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"ada", "", "grace"}, []bool{true, false, true})
	return b.NewRecordBatch()
}

// Several small batches into one block, decoded as one batch of all their
// rows: what array.Concatenate then Append would give, without the
// concatenation.
func ExampleEncoder_AppendBatches() {
	rec := exampleBatch()
	defer rec.Release()
	a, b := rec.NewSlice(0, 1), rec.NewSlice(1, 3)
	defer a.Release()
	defer b.Release()

	enc, err := codec.NewEncoder(rec.Schema())
	if err != nil {
		log.Fatal(err)
	}
	block, err := enc.AppendBatches(nil, a, b, rec)
	if err != nil {
		log.Fatal(err)
	}
	dec, err := codec.NewDecoder(rec.Schema())
	if err != nil {
		log.Fatal(err)
	}
	out, err := dec.Decode(block)
	if err != nil {
		log.Fatal(err)
	}
	defer out.Release()
	fmt.Println(out.NumRows(), out.Column(1))
	// Output: 6 ["ada" (null) "grace" "ada" (null) "grace"]
}

// A Writer that coalesces small batches into blocks of up to 8,192 rows;
// a reader sees fewer, larger batches.
func ExampleWithBlockRows() {
	rec := exampleBatch()
	defer rec.Release()

	var file bytes.Buffer
	w, err := codec.NewWriter(&file, rec.Schema(), codec.WithBlockRows(8192))
	if err != nil {
		log.Fatal(err)
	}
	for range 1000 {
		if err := w.Write(rec); err != nil { // retained until its block is written
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil { // writes what is pending, then the end
		log.Fatal(err)
	}

	r, err := codec.NewReader(&file)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Release()
	var rows []int64
	for r.Next() {
		rows = append(rows, r.RecordBatch().NumRows())
	}
	fmt.Println(rows, r.Err())
	// Output: [3000] <nil>
}

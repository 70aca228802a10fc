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

// One batch to one block and back: the shape of a shuffle or exchange.
func Example() {
	rec := exampleBatch()
	defer rec.Release()

	enc, err := codec.NewEncoder(rec.Schema()) // once per schema; safe for concurrent use
	if err != nil {
		log.Fatal(err)
	}
	block, err := enc.Append(nil, rec) // append to a reused buffer: no allocations
	if err != nil {
		log.Fatal(err)
	}

	dec, err := codec.NewDecoder(rec.Schema())
	if err != nil {
		log.Fatal(err)
	}
	out, err := dec.Decode(block) // zero-copy: out aliases block, validated
	if err != nil {
		log.Fatal(err) // wraps codec.ErrCorrupt or codec.ErrSchemaMismatch
	}
	defer out.Release()
	fmt.Println(array.RecordEqual(rec, out), out.Column(1))
	// Output: true ["ada" (null) "grace"]
}

// Many batches to a stream and back: the shape of a spill file.
func ExampleWriter() {
	rec := exampleBatch()
	defer rec.Release()

	var file bytes.Buffer
	w, err := codec.NewWriter(&file, rec.Schema(), codec.WithCompression(codec.Zstd))
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		if err := w.Write(rec); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := codec.NewReader(&file)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Release()
	rows := 0
	for r.Next() {
		rows += int(r.RecordBatch().NumRows())
	}
	if err := r.Err(); err != nil {
		log.Fatal(err) // truncation, a bad checksum: wraps codec.ErrCorrupt
	}
	fmt.Println(rows, "rows of", r.Schema().Field(1).Name)
	// Output: 9 rows of name
}

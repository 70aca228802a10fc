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

// The README shows the bodies of the examples in this file as they are,
// in this order (TestREADMESnippets): what it shows compiles and runs.
// Keep them short: they are what a reader pastes.

// A batch to a block and back, as a shuffle or an exchange does.
func Example() {
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	enc, err := codec.NewEncoder(schema) // once per schema; safe for concurrent use
	if err != nil {
		log.Fatal(err)
	}
	block, err := enc.Append(nil, rec) // append to a reused buffer: no allocations
	if err != nil {
		log.Fatal(err)
	}

	dec, err := codec.NewDecoder(schema)
	if err != nil {
		log.Fatal(err)
	}
	out, err := dec.Decode(block) // zero-copy and validated: errors wrap codec.ErrCorrupt
	if err != nil {
		log.Fatal(err)
	}
	defer out.Release()
	fmt.Println(out.NumRows(), out.Column(0))
	// Output: 3 [1 2 3]
}

// Batches to a stream and back, as a spill file holds them.
func ExampleWriter() {
	schema := arrow.NewSchema([]arrow.Field{{Name: "name", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"ada", "grace"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	var file bytes.Buffer // or an *os.File
	w, err := codec.NewWriter(&file, schema, codec.WithCompression(codec.LZ4))
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

	r, err := codec.NewReader(&file) // an array.RecordReader
	if err != nil {
		log.Fatal(err)
	}
	defer r.Release()
	rows := 0
	for r.Next() {
		rows += int(r.RecordBatch().NumRows())
	}
	if err := r.Err(); err != nil {
		log.Fatal(err) // a stream cut short, a bad checksum: wraps codec.ErrCorrupt
	}
	fmt.Println(rows, "rows")
	// Output: 6 rows
}

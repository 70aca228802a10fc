package codec

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// TestDecodedBatch checks that the record batch Decode returns behaves as
// arrow-go's own: slicing, replacing a column, JSON and String give what
// they give for the original batch, and its memory lives exactly as long
// as its references.
func TestDecodedBatch(t *testing.T) {
	mem := memory.NewGoAllocator()
	rec := randbatch.Lineitem(mem, 40)
	defer rec.Release()
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	block := must(must(NewEncoder(rec.Schema())).Append(nil, rec))
	out := must(must(NewDecoder(rec.Schema(), WithAllocator(checked))).Decode(block))

	if out.NumRows() != rec.NumRows() || out.NumCols() != rec.NumCols() || out.ColumnName(3) != rec.ColumnName(3) {
		t.Fatalf("decoded %d rows x %d cols, column 3 %q; want %d x %d, %q",
			out.NumRows(), out.NumCols(), out.ColumnName(3), rec.NumRows(), rec.NumCols(), rec.ColumnName(3))
	}
	want, got := rec.NewSlice(5, 17), out.NewSlice(5, 17)
	if !array.RecordEqual(want, got) {
		t.Fatalf("NewSlice(5, 17) differs:\n%v\n%v", want, got)
	}
	want.Release()
	got.Release()

	wantSet := must(rec.SetColumn(0, rec.Column(1)))
	gotSet := must(out.SetColumn(0, out.Column(1)))
	if !array.RecordEqual(wantSet, gotSet) {
		t.Fatal("SetColumn(0, column 1) differs")
	}
	wantSet.Release()
	gotSet.Release()

	wantJSON, gotJSON := must(rec.MarshalJSON()), must(out.MarshalJSON())
	if !bytes.Equal(wantJSON, gotJSON) {
		t.Fatalf("MarshalJSON differs:\n%s\n%s", wantJSON, gotJSON)
	}
	if w, g := fmt.Sprint(rec), fmt.Sprint(out); w != g {
		t.Fatalf("String differs:\n%s\n%s", w, g)
	}

	// A column retained on its own outlives the batch; the memory goes
	// with the last reference.
	out.Retain()
	out.Release()
	col := out.Column(2)
	col.Retain()
	out.Release()
	if checked.CurrentAlloc() == 0 {
		t.Fatal("the batch's memory was freed while a column was still retained")
	}
	if !array.Equal(col, rec.Column(2)) {
		t.Fatal("a retained column changed after the batch was released")
	}
	col.Release()
	if n := checked.CurrentAlloc(); n != 0 {
		t.Fatalf("%d bytes still allocated after the last release", n)
	}
	var _ arrow.RecordBatch = out
}

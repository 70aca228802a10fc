package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// valuesBatch is one row of the values issue 19 found printed wrong: a
// struct whose children share a name (as Arrow's
// generated_duplicate_fieldnames), a struct whose fields are not in
// alphabetical order, a nested null, binary, a decimal of scale 2, a
// string with <>&.
func valuesBatch(t *testing.T) arrow.RecordBatch {
	t.Helper()
	dup := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	order := arrow.StructOf(arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "b", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "dup", Type: dup, Nullable: true},
		{Name: "order", Type: order},
		{Name: "bin", Type: arrow.BinaryTypes.Binary},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	ds := b.Field(0).(*array.StructBuilder)
	ds.Append(true)
	ds.FieldBuilder(0).(*array.Int32Builder).Append(-511939576)
	ds.FieldBuilder(1).(*array.Int32Builder).AppendNull()
	os := b.Field(1).(*array.StructBuilder)
	os.Append(true)
	os.FieldBuilder(0).(*array.Int32Builder).Append(7)
	lb := os.FieldBuilder(1).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int32Builder).Append(1)
	lb.ValueBuilder().(*array.Int32Builder).AppendNull()
	b.Field(2).(*array.BinaryBuilder).Append([]byte{0, 1, 0xff})
	b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(100))
	b.Field(4).(*array.StringBuilder).Append("<a&b>")
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

// TestCatValues: each value prints as the data holds it, by one rule in
// tables and JSON (issue 19 items 5 and 14).
func TestCatValues(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "v.arrows")
	writeIPC(t, src, []arrow.RecordBatch{valuesBatch(t)}, false)
	code, out, stderr := runCmd(t, "cat", "-json", src)
	want := `{"dup":{"a":-511939576,"a#1":null},"order":{"z":7,"b":[1,null]},"bin":"0x0001ff","dec":1.00,"s":"<a&b>"}` + "\n"
	if code != 0 || out != want {
		t.Errorf("cat -json: status %d, stderr %q\n got %s\nwant %s", code, stderr, out, want)
	}
	code, out, stderr = runCmd(t, "cat", "-width", "0", src)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("cat: status %d, stderr %q, %q", code, stderr, out)
	}
	wantRow := []string{`{"a":-511939576,"a#1":null}`, `{"z":7,"b":[1,null]}`, "0x0001ff", "1.00", "<a&b>"}
	if got := strings.Fields(lines[1]); strings.Join(got, "|") != strings.Join(wantRow, "|") {
		t.Errorf("table row %q, want %q", got, wantRow)
	}
	if strings.Contains(out, "(null)") {
		t.Errorf("a null shown as (null): %q", out)
	}
}

// TestCatAlignment: the columns keep their place across batches, a first
// batch of no rows included (issue 19 item 9).
func TestCatAlignment(t *testing.T) {
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for i, v := range []string{"x", "a much longer value", "y", "z"} {
		b.Field(0).(*array.Int64Builder).Append(int64(i * 1000))
		b.Field(1).(*array.StringBuilder).Append(v)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	src := filepath.Join(dir, "a.arrows")
	writeIPC(t, src, []arrow.RecordBatch{rec.NewSlice(0, 0), rec.NewSlice(0, 1), rec.NewSlice(1, 3), rec.NewSlice(3, 4)}, false)
	code, out, stderr := runCmd(t, "cat", src)
	if code != 0 {
		t.Fatal(stderr)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	col := strings.Index(lines[0], "v")
	for _, l := range lines {
		f := strings.Fields(l)
		if at := utf8.RuneCountInString(l[:len(f[0])+strings.Index(l[len(f[0]):], f[1])]); at != col {
			t.Errorf("line %q: the second column starts at %d, the header's at %d\n%s", l, at, col, out)
		}
	}
}

// TestCatSeveralFiles: cat prints files of one schema one after the
// other, -n across them, and refuses a file of other fields; head takes
// -n3 and -5 (issue 19 item 14).
func TestCatSeveralFiles(t *testing.T) {
	dir, src, apk, _ := convertedStream(t, "in.apk")
	code, out, stderr := runCmd(t, "cat", "-json", src, apk)
	if code != 0 || strings.Count(out, "\n") != 1400 {
		t.Errorf("cat a b: status %d, %d lines, stderr %q", code, strings.Count(out, "\n"), stderr)
	}
	code, out, _ = runCmd(t, "cat", "-json", "-n", "701", src, apk)
	if code != 0 || strings.Count(out, "\n") != 701 {
		t.Errorf("cat -n 701 a b: status %d, %d lines", code, strings.Count(out, "\n"))
	}
	other := filepath.Join(dir, "v.arrows")
	writeIPC(t, other, []arrow.RecordBatch{valuesBatch(t)}, false)
	code, _, stderr = runCmd(t, "cat", "-json", src, other)
	checkFailure(t, code, stderr, 1, other+" has other fields than "+src)
	for _, args := range [][]string{{"head", "-n3", "-json", src}, {"head", "-3", "-json", src}, {"cat", "-n3", "-json", src}} {
		code, out, stderr := runCmd(t, args...)
		if code != 0 || strings.Count(out, "\n") != 3 {
			t.Errorf("%v: status %d, %d lines, stderr %q", args, code, strings.Count(out, "\n"), stderr)
		}
	}
}

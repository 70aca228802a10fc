package main

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// TestCatJSONLines: cat -json prints one object a row, its keys the
// columns in order, its values the batch's, across batches and formats.
func TestCatJSONLines(t *testing.T) {
	dir := t.TempDir()
	stream, recs := testStream(t, dir)
	apk := filepath.Join(dir, "in.apk")
	pq := filepath.Join(dir, "in.parquet")
	for _, out := range []string{apk, pq} {
		if code, _, stderr := runCmd(t, "convert", stream, out); code != 0 {
			t.Fatal(stderr)
		}
	}
	var keys []int64
	var flags []string
	for _, r := range recs {
		for i := range int(r.NumRows()) {
			keys = append(keys, r.Column(0).(*array.Int64).Value(i))
			flags = append(flags, r.Column(8).(*array.String).Value(i))
		}
	}
	for _, path := range []string{stream, apk, pq} {
		code, out, stderr := runCmd(t, "cat", "-json", path)
		if code != 0 {
			t.Fatalf("%s: status %d: %s", path, code, stderr)
		}
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<20)
		n := 0
		for ; sc.Scan(); n++ {
			line := sc.Text()
			if !strings.HasPrefix(line, `{"l_orderkey":`) || !strings.Contains(line, `,"l_partkey":`) {
				t.Fatalf("%s: line %d does not list the columns in order: %s", path, n, line)
			}
			var row map[string]any
			d := json.NewDecoder(strings.NewReader(line))
			d.UseNumber()
			if err := d.Decode(&row); err != nil {
				t.Fatalf("%s: line %d: %v", path, n, err)
			}
			if n >= len(keys) {
				continue
			}
			if got := row["l_orderkey"].(json.Number).String(); got != itoa(keys[n]) {
				t.Errorf("%s: row %d l_orderkey %s, want %d", path, n, got, keys[n])
			}
			if got := row["l_returnflag"]; got != flags[n] {
				t.Errorf("%s: row %d l_returnflag %v, want %s", path, n, got, flags[n])
			}
		}
		if n != 700 {
			t.Errorf("%s: %d lines, want 700", path, n)
		}
	}
}

// TestCatTable: a header of column names, one line a row, nulls as null,
// long cells cut; head stops at -n (10 by default) across batches.
func TestCatTable(t *testing.T) {
	dir := t.TempDir()
	mem := memory.NewGoAllocator()
	b := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil))
	defer b.Release()
	for i := range 25 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		switch i {
		case 3:
			b.Field(1).AppendNull()
		case 4:
			b.Field(1).(*array.StringBuilder).Append(strings.Repeat("x", 100))
		case 5:
			b.Field(1).(*array.StringBuilder).Append("tab\there")
		default:
			b.Field(1).(*array.StringBuilder).Append("n" + itoa(int64(i)))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	src := filepath.Join(dir, "t.arrows")
	writeIPC(t, src, []arrow.RecordBatch{rec.NewSlice(0, 7), rec.NewSlice(7, 25)}, false)

	code, out, stderr := runCmd(t, "cat", "-width", "20", src)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 26 {
		t.Fatalf("%d lines, want a header and 25 rows:\n%s", len(lines), out)
	}
	if f := strings.Fields(lines[0]); len(f) != 2 || f[0] != "id" || f[1] != "name" {
		t.Errorf("header %q", lines[0])
	}
	for i, want := range map[int]string{1: "0 n0", 4: "3 null", 5: "4 " + strings.Repeat("x", 19) + "…", 6: `5 tab\there`, 25: "24 n24"} {
		if got := strings.Join(strings.Fields(lines[i]), " "); got != want {
			t.Errorf("line %d is %q, want %q", i, got, want)
		}
	}

	code, out, _ = runCmd(t, "head", src)
	if lines := strings.Split(strings.TrimRight(out, "\n"), "\n"); code != 0 || len(lines) != 11 || !strings.HasPrefix(lines[10], "9 ") {
		t.Errorf("head: status %d:\n%s", code, out)
	}
	code, out, _ = runCmd(t, "cat", "-n", "8", "-json", src)
	if code != 0 || strings.Count(out, "\n") != 8 || !strings.Contains(out, `{"id":3,"name":null}`) {
		t.Errorf("cat -n 8 -json: status %d:\n%s", code, out)
	}
	// An input with no rows still shows its columns.
	empty := filepath.Join(dir, "empty.arrows")
	writeIPC(t, empty, []arrow.RecordBatch{rec.NewSlice(0, 0)}, false)
	if code, out, _ = runCmd(t, "cat", empty); code != 0 || strings.Join(strings.Fields(out), " ") != "id name" {
		t.Errorf("cat of no rows: %d %q", code, out)
	}
	for _, args := range [][]string{{"head", "-n", "0", src}, {"cat", "-n", "-1", src}, {"cat"}, {"cat", "-", "-"}} {
		code, _, stderr := runCmd(t, args...)
		checkFailure(t, code, stderr, 2, "")
	}
}

// TestCatNested prints nested and dictionary batches without failing,
// one line a row.
func TestCatNested(t *testing.T) {
	dir := t.TempDir()
	mem := memory.NewGoAllocator()
	for name, rec := range map[string]arrow.RecordBatch{"nested": randbatch.Nested(mem, 50), "dict": randbatch.Dictionary(mem, 50)} {
		src := filepath.Join(dir, name+".arrows")
		writeIPC(t, src, []arrow.RecordBatch{rec}, false)
		rec.Release()
		for _, j := range []string{"-json=false", "-json"} {
			code, out, stderr := runCmd(t, "cat", j, src)
			want := 50
			if j == "-json=false" {
				want++ // the header
			}
			if code != 0 || strings.Count(out, "\n") != want {
				t.Errorf("%s %s: status %d, %d lines, stderr %q", name, j, code, strings.Count(out, "\n"), stderr)
			}
		}
	}
}

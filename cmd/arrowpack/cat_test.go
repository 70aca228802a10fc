package main

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestCatCounts: cat's -n takes 0 (every row) and says so when refusing;
// head -n -1 is refused as a count, not as a flag (issue 31 item 11).
func TestCatCounts(t *testing.T) {
	dir := t.TempDir()
	src, _ := testStream(t, dir)
	code, _, stderr := runCmd(t, "cat", "-n", "-5", src)
	checkFailure(t, code, stderr, 2, "-n must be 0 (every row) or above, not -5")
	code, _, stderr = runCmd(t, "head", "-n", "-1", src)
	checkFailure(t, code, stderr, 2, "-n must be above 0, not -1")
	code, _, stderr = runCmd(t, "head", "-n", "0", src)
	checkFailure(t, code, stderr, 2, "-n must be above 0, not 0")
	if code, out, stderr := runCmd(t, "cat", "-n", "0", "-json", src); code != 0 || strings.Count(out, "\n") != 700 {
		t.Errorf("cat -n 0: status %d, %d lines, %s", code, strings.Count(out, "\n"), stderr)
	}
}

// TestCatDisplayWidth: table columns are aligned by the columns a
// terminal gives each character (CJK and emoji two, combining marks
// none), and cells are cut by them (issue 31 item 11).
func TestCatDisplayWidth(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	values := []string{"abcd", "東京", "e\u0301e\u0301e\u0301e\u0301", "👨\u200d👩\u200d👧ab", "東京東京東京東京"}
	for i, v := range values {
		b.Field(0).(*array.StringBuilder).Append(v)
		b.Field(1).(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	src := filepath.Join(t.TempDir(), "w.arrows")
	writeIPC(t, src, []arrow.RecordBatch{rec}, false)
	code, out, stderr := runCmd(t, "cat", "-width", "9", src)
	if code != 0 {
		t.Fatal(stderr)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	want := map[int]string{1: "abcd       0", 2: "東京       1", 3: "e\u0301e\u0301e\u0301e\u0301       2", 4: "👨\u200d👩\u200d👧ab       3", 5: "東京東京…  4"}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d %q, want %q\n%s", i, lines[i], w, out)
		}
	}
	for _, l := range lines {
		if got := displayWidth(l[:strings.LastIndex(l, " ")+1]); got != 11 {
			t.Errorf("line %q: the second column starts at column %d, want 11", l, got)
		}
	}
}

// hostileStrings are values an untrusted file can hold to drive a
// terminal, each with the text a table shows for it.
var hostileStrings = []struct{ value, table string }{
	{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
	{"bell\a", `bell\x07`},
	{"del\x7f", `del\x7f`},
	{"nul\x00", `nul\x00`},
	{"vt\vff\f", `vt\x0bff\x0c`},
	{"csi\u009b2J", `csi\u009b2J`},
	{"bidi\u202eevil", `bidi\u202eevil`},
	{"tag\U000e0041", `tag\U000e0041`},
	{"line\u2028sep", `line\u2028sep`},
	{"tab\tnl\ncr\r", `tab\tnl\ncr\r`},
	// What shows as itself stays: CJK, an emoji joined by ZWJ, a
	// combining mark, a no-break space.
	{"東京 👨\u200d👩\u200d👧 e\u0301 a\u00a0b", "東京 👨\u200d👩\u200d👧 e\u0301 a\u00a0b"},
}

// hostileBatch is a batch whose column name and values hold the
// hostileStrings, with binary values beside them.
func hostileBatch(t *testing.T) arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s\x1b]0;title\a", Type: arrow.BinaryTypes.String},
		{Name: "b", Type: arrow.BinaryTypes.Binary},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for _, h := range hostileStrings {
		b.Field(0).(*array.StringBuilder).Append(h.value)
		b.Field(1).(*array.BinaryBuilder).Append([]byte(h.value))
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

// checkShows fails if out holds a character that does not show as itself
// (newlines ending lines aside).
func checkShows(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if r == '\n' {
			continue
		}
		if !shows(r) || r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD") {
			t.Errorf("%s: byte %d is %U, which reaches the terminal as it is:\n%q", what, i, r, out)
			return
		}
	}
}

// TestCatEscapesTerminalControls: cat and head print no character of a
// file that would drive the terminal, in tables and JSON, names included;
// the JSON still means the file's values; binary holding a vertical tab
// or other controls prints as hex (issue 31 item 1).
func TestCatEscapesTerminalControls(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "hostile.arrows")
	writeIPC(t, src, []arrow.RecordBatch{hostileBatch(t)}, false)

	code, out, stderr := runCmd(t, "cat", "-width", "0", src)
	if code != 0 {
		t.Fatalf("cat: status %d: %s", code, stderr)
	}
	checkShows(t, "cat", out)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != len(hostileStrings)+1 {
		t.Fatalf("cat: %d lines, want %d:\n%s", len(lines), len(hostileStrings)+1, out)
	}
	if !strings.HasPrefix(lines[0], `s\x1b]0;title\x07 `) {
		t.Errorf("header %q does not escape the column name", lines[0])
	}
	for i, h := range hostileStrings {
		if !strings.HasPrefix(lines[i+1], h.table+" ") {
			t.Errorf("row %d: %q, want it to start with %q", i, lines[i+1], h.table)
		}
	}
	// Binary with a control other than tab, newline or return is hex.
	if want := "0x" + "76740b66660c"; !strings.HasSuffix(lines[5], want) {
		t.Errorf("binary vt/ff row %q, want it to end with %s", lines[5], want)
	}
	if want := `tab\tnl\ncr\r`; !strings.HasSuffix(lines[10], want) {
		t.Errorf("binary tab/newline row %q, want it to end with %s", lines[10], want)
	}

	code, out, stderr = runCmd(t, "head", "-json", src)
	if code != 0 {
		t.Fatalf("head -json: status %d: %s", code, stderr)
	}
	checkShows(t, "head -json", out)
	rows := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(rows) != 10 {
		t.Fatalf("head -json: %d lines", len(rows))
	}
	for i, line := range rows {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("line %d %q: %v", i, line, err)
		}
		if got := row["s\x1b]0;title\a"]; got != hostileStrings[i].value {
			t.Errorf("line %d: the string reads back as %q, want %q", i, got, hostileStrings[i].value)
		}
	}
	if !strings.Contains(rows[0], `"s\u001b]0;title\u0007":"\u001b[31mred\u001b[0m"`) || !strings.Contains(rows[5], `"csi\u009b2J"`) {
		t.Errorf("head -json escapes differently than \\u: %s", out)
	}

	code, out, stderr = runCmd(t, "inspect", src)
	if code != 0 {
		t.Fatalf("inspect: status %d: %s", code, stderr)
	}
	checkShows(t, "inspect", strings.ReplaceAll(out, "\t", " "))
	code, out, _ = runCmd(t, "inspect", "-json", src)
	if code != 0 {
		t.Fatalf("inspect -json: status %d", code)
	}
	checkShows(t, "inspect -json", out)

	// A message quoting the column's name escapes it too.
	other := filepath.Join(dir, "other.arrows")
	writeIPC(t, other, []arrow.RecordBatch{lineitem(t, 3)}, false)
	code, _, stderr = runCmd(t, "cat", other, src)
	checkFailure(t, code, stderr, 1, "has other fields")
	checkShows(t, "cat's message", stderr)
}

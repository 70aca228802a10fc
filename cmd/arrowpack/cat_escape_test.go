package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

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

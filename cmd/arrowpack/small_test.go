package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

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

// TestInspectParquetCodecNames: inspect names Parquet's codecs as the
// rest of the command names compressions (issue 31 item 11).
func TestInspectParquetCodecNames(t *testing.T) {
	dir := t.TempDir()
	rec := lineitem(t, 10)
	for c, want := range map[compress.Compression]string{compress.Codecs.Uncompressed: "none", compress.Codecs.Lz4Raw: "lz4", compress.Codecs.Zstd: "zstd", compress.Codecs.Snappy: "snappy"} {
		path := filepath.Join(dir, want+".parquet")
		writeFile(t, path, parquetBytes(t, rec, parquet.NewWriterProperties(parquet.WithCompression(c)), pqarrow.DefaultWriterProps()))
		code, out, stderr := runCmd(t, "inspect", path)
		if code != 0 {
			t.Fatal(stderr)
		}
		if !strings.Contains(out, " "+want+" ") || strings.Contains(out, "uncompressed ") || strings.Contains(out, "lz4_raw") {
			t.Errorf("%s: inspect does not name the codec %s:\n%s", path, want, out)
		}
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

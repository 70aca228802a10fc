package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/arrowpack/arrowpack"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// runCmd runs the command line in-process and returns its exit status,
// stdout and stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, nil, &out, &errOut)
	return code, out.String(), errOut.String()
}

// checkFailure checks that a command failed with status code and a single
// line on stderr mentioning want, and no stack trace.
func checkFailure(t *testing.T, code int, stderr string, wantCode int, want string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("exit status %d, want %d (stderr %q)", code, wantCode, stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not mention %q", stderr, want)
	}
	if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
		t.Errorf("stderr is more than one line: %q", stderr)
	}
	if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
		t.Errorf("stderr looks like a stack trace: %q", stderr)
	}
}

// lineitem returns a lineitem batch of rows rows, released when the test
// ends.
func lineitem(t *testing.T, rows int) arrow.RecordBatch {
	rec := randbatch.Lineitem(memory.NewGoAllocator(), rows)
	t.Cleanup(rec.Release)
	return rec
}

// testBatches returns three lineitem batches of different sizes, the last a
// slice, released when the test ends.
func testBatches(t *testing.T) []arrow.RecordBatch {
	t.Helper()
	mem := memory.NewGoAllocator()
	big := randbatch.Lineitem(mem, 700)
	defer big.Release()
	recs := []arrow.RecordBatch{big.NewSlice(0, 300), big.NewSlice(300, 301), big.NewSlice(301, 700)}
	t.Cleanup(func() { batches.Release(recs) })
	return recs
}

// testStream writes the test batches to an IPC stream, dir/in.arrows, and
// returns its path and the batches, released when the test ends.
func testStream(t *testing.T, dir string) (string, []arrow.RecordBatch) {
	t.Helper()
	recs := testBatches(t)
	path := filepath.Join(dir, "in.arrows")
	writeIPC(t, path, recs, false)
	return path, recs
}

// convertedStream writes the test batches to an IPC stream (testStream) in
// a new temporary directory and converts it with `arrowpack convert args...`
// into the file name there. It returns the directory, the stream's path,
// the converted file's path and the batches.
func convertedStream(t *testing.T, name string, args ...string) (dir, src, out string, recs []arrow.RecordBatch) {
	t.Helper()
	dir = t.TempDir()
	src, recs = testStream(t, dir)
	out = filepath.Join(dir, name)
	if code, _, stderr := runCmd(t, append(append([]string{"convert"}, args...), src, out)...); code != 0 {
		t.Fatal(stderr)
	}
	return dir, src, out, recs
}

func writeIPC(t *testing.T, path string, recs []arrow.RecordBatch, fileFormat bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w batches.Writer
	if fileFormat {
		if w, err = ipc.NewFileWriter(f, ipc.WithSchema(recs[0].Schema())); err != nil {
			t.Fatal(err)
		}
	} else {
		w = ipc.NewWriter(f, ipc.WithSchema(recs[0].Schema()))
	}
	if err := batches.WriteAll(w, recs); err != nil {
		t.Fatal(err)
	}
}

// readAll reads every batch of the file at path with the command's own
// input code; the caller releases them.
func readAll(t *testing.T, path string) (format, []arrow.RecordBatch) {
	t.Helper()
	in, err := openInput(path, nil, defaultBatchRows)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	recs, err := batches.ReadAll(in)
	if err != nil {
		t.Fatal(err)
	}
	return in.format, recs
}

func checkSameBatches(t *testing.T, got, want []arrow.RecordBatch) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d batches, want %d", len(got), len(want))
	}
	for i := range got {
		if !sameBatch(got[i], want[i]) {
			t.Errorf("batch %d differs", i)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		code, out, _ := runCmd(t, args...)
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "convert") {
			t.Errorf("%v: status %d, output %q", args, code, out)
		}
	}
	for _, args := range [][]string{{"help", "convert"}, {"convert", "-h"}, {"bench", "-help"}, {"help", "inspect"}} {
		code, out, _ := runCmd(t, args...)
		if code != 0 || !strings.Contains(out, "Usage: arrowpack") || !strings.Contains(out, "Flags:") {
			t.Errorf("%v: status %d, output %q", args, code, out)
		}
	}
}

// TestBareCommand: arrowpack with no arguments prints its usage on stderr
// and exits 2 (it used to run a long benchmark); a flag before any command
// is not blamed on bench; help has help of its own.
func TestBareCommand(t *testing.T) {
	code, out, stderr := runCmd(t)
	if code != 2 || out != "" || !strings.Contains(stderr, "Usage:") || !strings.Contains(stderr, "convert") {
		t.Errorf("bare: status %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, _, stderr = runCmd(t, "-x")
	if code != 2 || strings.Contains(stderr, "bench") || !strings.Contains(stderr, "unknown flag -x") {
		t.Errorf("-x: status %d, stderr %q", code, stderr)
	}
	code, out, stderr = runCmd(t, "help", "help")
	if code != 0 || !strings.Contains(out, "Usage: arrowpack help [COMMAND]") {
		t.Errorf("help help: status %d, stdout %q, stderr %q", code, out, stderr)
	}
}

func TestPanicIsOneLine(t *testing.T) {
	extraCommands = []command{{name: "boom", run: func(*env, []string) error {
		var m map[string]int
		m["x"] = 1 // panics
		return nil
	}}}
	defer func() { extraCommands = nil }()
	code, _, stderr := runCmd(t, "boom")
	if code != 1 || !strings.HasPrefix(stderr, "arrowpack boom: internal error: assignment to entry in nil map") ||
		strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "goroutine") {
		t.Errorf("status %d, stderr %q", code, stderr)
	}
}

func TestBadArguments(t *testing.T) {
	dir := t.TempDir()
	stream := filepath.Join(dir, "in.arrows")
	recs := testBatches(t)
	writeIPC(t, stream, recs, false)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"bench", "-nope"}, "flag provided but not defined: -nope"},
		{[]string{"-nope"}, "arrowpack: unknown flag -nope: flags go after the command"},
		{[]string{"bench", "-benchtime", "soon"}, `invalid benchtime "soon"`},
		{[]string{"bench", "-compression", "brotli"}, `unknown compression "brotli"`},
		{[]string{"bench", "-shapes", "tpcds"}, `unknown shape "tpcds"`},
		{[]string{"bench", "extra"}, `unexpected argument "extra"`},
		{[]string{"bench", "-runs", "0"}, "-runs"},
		{[]string{"bench", "-concurrency", "0"}, "-concurrency"},
		{[]string{"bench", "-input", stream, "-shapes", "lineitem-64"}, "do not go together"},
		{[]string{"convert", stream}, "want an input and an output file"},
		{[]string{"convert", "-compression", "snappy", stream, filepath.Join(dir, "out")}, `unknown compression "snappy"`},
		{[]string{"convert", stream, stream}, "is the input"},
		{[]string{"convert", "-batch-rows", "0", stream, filepath.Join(dir, "out")}, "-batch-rows"},
		{[]string{"inspect"}, "want one file"},
		{[]string{"inspect", "a", "b"}, "want one file"},
	} {
		code, out, stderr := runCmd(t, tc.args...)
		checkFailure(t, code, stderr, 2, tc.want)
		if out != "" {
			t.Errorf("%v: wrote to stdout: %q", tc.args, out)
		}
	}
}

// TestBenchConcurrency runs a compressed shape large enough to be split
// into chunks with -concurrency 2: both formats round-trip and the report
// says what it measured.
func TestBenchConcurrency(t *testing.T) {
	code, out, stderr := runCmd(t, "bench", "-shapes", "lineitem-8192", "-compression", "lz4",
		"-benchtime", "1x", "-runs", "1", "-concurrency", "2", "-q")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	for _, w := range []string{"up to 2 goroutines", "lineitem-8192", "lz4"} {
		if !strings.Contains(out, w) {
			t.Errorf("output does not mention %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "failed") {
		t.Errorf("a format failed:\n%s", out)
	}
}

func TestBenchJSONAndSVG(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "chart.svg")
	code, out, stderr := runCmd(t, "bench", "-shapes", "lineitem-64,dict-8192", "-compression", "none,zstd",
		"-benchtime", "2x", "-runs", "2", "-json", "-svg", svg)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	var rep benchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if rep.Machine.Implementation != arrowpack.Implementation() || rep.Machine.GOARCH != runtime.GOARCH || rep.BenchTime != "2x" || rep.Runs != 2 {
		t.Errorf("header: %+v", rep)
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Shape+"/"+r.Compression)
		if !r.Arrowpack.OK() || !r.IPC.OK() {
			t.Errorf("%s %s failed: %q %q", r.Shape, r.Compression, r.Arrowpack.Err, r.IPC.Err)
			continue
		}
		for _, op := range []struct {
			name string
			n    float64
		}{{"ap enc", r.Arrowpack.Encode.NsPerBlock}, {"ap dec", r.Arrowpack.Decode.NsPerBlock},
			{"ipc enc", r.IPC.Encode.NsPerBlock}, {"ipc dec", r.IPC.Decode.NsPerBlock},
			{"GB/s", r.Arrowpack.Encode.GBPerSec}, {"ratio", r.EncodeRatio}, {"size", r.SizeRatio}} {
			if op.n <= 0 {
				t.Errorf("%s %s: %s is %v", r.Shape, r.Compression, op.name, op.n)
			}
		}
		if r.Arrowpack.Encode.Blocks != 2 || r.RawBytes <= 0 || r.Arrowpack.Bytes <= 0 || r.IPC.Bytes <= 0 {
			t.Errorf("%s %s: %+v", r.Shape, r.Compression, r)
		}
	}
	if want := "lineitem-64/none lineitem-64/zstd dict-8192/none dict-8192/zstd"; strings.Join(got, " ") != want {
		t.Errorf("results %v, want %s", got, want)
	}
	if !strings.Contains(stderr, "bench [4/4] dict-8192 zstd") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	checkSVG(t, svg, "lineitem-64", "dict-8192", "uncompressed", "zstd")
}

// checkSVG checks that the file at path is well-formed XML with an svg root
// and mentions every string in want.
func checkSVG(t *testing.T, path string, want ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	root, rects := "", 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Space + " " + se.Name.Local
			}
			if se.Name.Local == "rect" {
				rects++
			}
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("root element %q", root)
	}
	if rects < 3 {
		t.Errorf("%d rects: no bars", rects)
	}
	for _, w := range want {
		if !bytes.Contains(b, []byte(w)) {
			t.Errorf("the chart does not mention %q", w)
		}
	}
}

func TestBenchTable(t *testing.T) {
	code, out, stderr := runCmd(t, "bench", "-shapes", "lineitem-64", "-compression", "lz4", "-benchtime", "1x", "-q")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("-q, but stderr %q", stderr)
	}
	for _, w := range []string{"ENCODE", "DECODE", "SIZE", "arrowpack µs", "GB/s", "allocs", "vs IPC", arrowpack.Implementation(), runtime.GOARCH, "geometric mean"} {
		if !strings.Contains(out, w) {
			t.Errorf("the table does not mention %q:\n%s", w, out)
		}
	}
}

func TestBenchInput(t *testing.T) {
	dir := t.TempDir()
	recs := testBatches(t)
	file := filepath.Join(dir, "mine.arrow")
	writeIPC(t, file, recs, true)
	pq := filepath.Join(dir, "mine.parquet")
	writeParquet(t, pq, recs[2])
	for _, tc := range []struct {
		path    string
		batches int
		rows    int64
	}{{file, 3, (300 + 1 + 399 + 1) / 3}, {pq, 1, 399}} {
		code, out, stderr := runCmd(t, "bench", "-input", tc.path, "-benchtime", "1x", "-compression", "none", "-json", "-q")
		if code != 0 {
			t.Fatalf("%s: status %d: %s", tc.path, code, stderr)
		}
		var rep benchReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Input != tc.path || len(rep.Inputs) != 1 || rep.Inputs[0] != tc.path || len(rep.Results) != 1 {
			t.Fatalf("%+v", rep)
		}
		r := rep.Results[0]
		if r.Shape != filepath.Base(tc.path) || r.Batches != tc.batches || r.Rows != tc.rows || !r.Arrowpack.OK() || !r.IPC.OK() {
			t.Errorf("%s: %+v", tc.path, r)
		}
	}
	code, _, stderr := runCmd(t, "bench", "-input", filepath.Join(dir, "missing.arrow"))
	checkFailure(t, code, stderr, 1, "no such file")
}

// writeParquet writes rec as a Parquet file at path that stores its Arrow
// schema.
func writeParquet(t *testing.T, path string, rec arrow.RecordBatch) {
	t.Helper()
	data := parquetBytes(t, rec, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// parquetBytes returns rec written as a Parquet file with the given
// properties.
func parquetBytes(t *testing.T, rec arrow.RecordBatch, props *parquet.WriterProperties, aprops pqarrow.ArrowWriterProperties) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, aprops)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	mem := memory.NewGoAllocator()
	recs := testBatches(t)
	// Streams carry dictionaries and nested types too.
	dict := randbatch.Dictionary(mem, 500)
	defer dict.Release()
	nested := randbatch.Nested(mem, 200)
	defer nested.Release()

	for _, tc := range []struct {
		name string
		recs []arrow.RecordBatch
		file bool
	}{
		{"lineitem-stream", recs, false},
		{"lineitem-file", recs, true},
		{"dict-stream", []arrow.RecordBatch{dict, dict.NewSlice(7, 100)}, false},
		{"nested-stream", []arrow.RecordBatch{nested}, false},
	} {
		for _, comp := range []string{"none", "lz4", "zstd"} {
			t.Run(tc.name+"/"+comp, func(t *testing.T) {
				src := filepath.Join(dir, tc.name+".arrow")
				writeIPC(t, src, tc.recs, tc.file)
				apk := filepath.Join(dir, tc.name+"-"+comp+".apks")
				back := filepath.Join(dir, tc.name+"-"+comp+".arrows")

				code, out, stderr := runCmd(t, "convert", "-compression", comp, "-verify", src, apk)
				if code != 0 {
					t.Fatalf("to arrowpack: status %d: %s", code, stderr)
				}
				if !strings.Contains(out, "arrowpack stream") || !strings.Contains(out, "verified") {
					t.Errorf("output: %q", out)
				}
				// Flags after the files work too.
				code, out, stderr = runCmd(t, "convert", apk, back, "-verify", "-compression", comp)
				if code != 0 {
					t.Fatalf("back to IPC: status %d: %s", code, stderr)
				}
				if !strings.Contains(out, "Arrow IPC stream") || !strings.Contains(out, "verified") {
					t.Errorf("output: %q", out)
				}

				f, apkRecs := readAll(t, apk)
				defer batches.Release(apkRecs)
				if f != formatArrowpack {
					t.Errorf("%s is a %s", apk, f)
				}
				checkSameBatches(t, apkRecs, tc.recs)
				f, backRecs := readAll(t, back)
				defer batches.Release(backRecs)
				if f != formatIPCStream {
					t.Errorf("%s is a %s", back, f)
				}
				checkSameBatches(t, backRecs, tc.recs)
				if !backRecs[0].Schema().Equal(tc.recs[0].Schema()) {
					t.Errorf("schema %s, want %s", backRecs[0].Schema(), tc.recs[0].Schema())
				}
			})
		}
	}
}

func TestConvertParquet(t *testing.T) {
	dir := t.TempDir()
	rec := lineitem(t, 1000)
	pq := filepath.Join(dir, "lineitem.parquet")
	writeParquet(t, pq, rec)
	apk := filepath.Join(dir, "lineitem.apks")
	code, out, stderr := runCmd(t, "convert", "-verify", "-compression", "lz4", "-batch-rows", "400", pq, apk)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if !strings.Contains(out, "Parquet file") || !strings.Contains(out, "3 batches, 1000 rows") || !strings.Contains(out, "verified") {
		t.Errorf("output: %q", out)
	}
	_, got := readAll(t, apk)
	defer batches.Release(got)
	want := []arrow.RecordBatch{rec.NewSlice(0, 400), rec.NewSlice(400, 800), rec.NewSlice(800, 1000)}
	defer batches.Release(want)
	if len(got) != len(want) {
		t.Fatalf("%d batches, want %d", len(got), len(want))
	}
	for i := range got {
		for c := range int(want[i].NumCols()) {
			if !array.Equal(got[i].Column(c), want[i].Column(c)) {
				t.Errorf("batch %d column %s differs from the original", i, want[i].ColumnName(c))
			}
		}
	}
}

func TestInspect(t *testing.T) {
	_, src, apk, _ := convertedStream(t, "in.apks", "-compression", "zstd")
	code, out, stderr := runCmd(t, "inspect", apk)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	for _, w := range []string{"l_orderkey", "block", "rows", "stored", "raw", "compression", "sections", "transformed", "status",
		" 300 ", "   1 ", " 399 ", "zstd", " yes ", "ok", "total: 3 blocks, 700 rows"} {
		if !strings.Contains(out, w) {
			t.Errorf("inspect output does not mention %q:\n%s", w, out)
		}
	}
	if n := strings.Count(out, " ok"); n != 3 {
		t.Errorf("%d blocks ok, want 3:\n%s", n, out)
	}

	// inspect reads IPC streams too.
	code, out, stderr = runCmd(t, "inspect", src)
	if code != 0 || !strings.Contains(out, "Arrow IPC stream") || !strings.Contains(out, "total: 3 blocks, 700 rows") {
		t.Errorf("inspect of an IPC stream: status %d, stderr %q\n%s", code, stderr, out)
	}
}

// corruptCopy writes a copy of the file at src with one byte flipped at
// off bytes from the end.
func corruptCopy(t *testing.T, src, dst string, fromEnd int) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-fromEnd] ^= 0x5a
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptAndBadFiles(t *testing.T) {
	dir, src, apk, _ := convertedStream(t, "in.apks")
	// Flip a byte in the last block's body: the first two blocks are fine.
	bad := filepath.Join(dir, "bad.apks")
	corruptCopy(t, apk, bad, 100)

	code, out, stderr := runCmd(t, "inspect", bad)
	checkFailure(t, code, stderr, 1, "corrupt")
	if !strings.Contains(out, "total: 2 blocks") || !strings.Contains(out, "stopped") {
		t.Errorf("inspect shows no stop at block 2:\n%s", out)
	}
	if strings.Contains(out, "corrupt") {
		t.Errorf("inspect prints the error on stdout too:\n%s", out)
	}

	outPath := filepath.Join(dir, "out.arrows")
	code, _, stderr = runCmd(t, "convert", bad, outPath)
	checkFailure(t, code, stderr, 1, "corrupt")
	if _, err := os.Stat(outPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed convert left its output behind: %v", err)
	}

	// A truncated arrowpack stream, a truncated IPC stream, garbage, an
	// empty file, a directory, a missing file.
	whole, err := os.ReadFile(apk)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(dir, "trunc.apks")
	os.WriteFile(trunc, whole[:len(whole)/2], 0o644)
	ipcBytes, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	truncIPC := filepath.Join(dir, "trunc.arrows")
	os.WriteFile(truncIPC, ipcBytes[:len(ipcBytes)/2], 0o644)
	garbage := filepath.Join(dir, "garbage.bin")
	os.WriteFile(garbage, []byte("this is not a columnar file at all\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", trunc}, "corrupt"},
		{[]string{"convert", trunc, filepath.Join(dir, "o1.arrows")}, "corrupt"},
		{[]string{"convert", truncIPC, filepath.Join(dir, "o2.apk")}, "Arrow IPC stream"},
		{[]string{"convert", garbage, filepath.Join(dir, "o3.apk")}, "not an Arrow IPC, Parquet or arrowpack file"},
		{[]string{"bench", "-input", garbage}, "not an Arrow IPC, Parquet or arrowpack file"},
		{[]string{"inspect", empty}, "empty"},
		{[]string{"inspect", dir}, "is a directory"},
		{[]string{"inspect", filepath.Join(dir, "missing")}, "no such file"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		checkFailure(t, code, stderr, 1, tc.want)
	}
}

// buildCommand builds the command into a temporary directory and returns
// its path; the test is skipped where it cannot be built and run.
func buildCommand(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	// Under an emulator (GOARCH=arm64 go test -exec qemu-...), the binary
	// go build makes would be for the emulated architecture too.
	host, err := exec.Command(goTool, "env", "GOHOSTOS", "GOHOSTARCH").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	if got := strings.Fields(string(host)); len(got) != 2 || got[0] != runtime.GOOS || got[1] != runtime.GOARCH {
		t.Skipf("the test runs as %s/%s on a %v host", runtime.GOOS, runtime.GOARCH, got)
	}
	bin := filepath.Join(t.TempDir(), "arrowpack")
	args := []string{"build", "-o", bin}
	if arrowpack.Implementation() == "generic" {
		// This test binary runs the generic kernels (-tags purego, or a
		// CPU without the vector features): so must the command it builds.
		args = append(args, "-tags", "purego")
	}
	build := exec.Command(goTool, append(args, ".")...)
	build.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestExec builds the command and runs it as a user would, checking exit
// statuses and that stderr never shows a stack trace.
func TestExec(t *testing.T) {
	bin := buildCommand(t)
	dir := t.TempDir()
	recs := testBatches(t)
	src := filepath.Join(dir, "in.arrows")
	writeIPC(t, src, recs, false)
	apk := filepath.Join(dir, "in.apks")
	bad := filepath.Join(dir, "bad.apks")

	exe := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, out.String(), errOut.String()
		case errors.As(err, &ee):
			return ee.ExitCode(), out.String(), errOut.String()
		}
		t.Fatal(err)
		return 0, "", ""
	}
	if code, out, stderr := exe("bench", "-shapes", "lineitem-64", "-compression", "none", "-benchtime", "1x"); code != 0 || !strings.Contains(out, "lineitem-64") {
		t.Errorf("bench: status %d\n%s\n%s", code, out, stderr)
	}
	if code, _, stderr := exe("convert", "-verify", src, apk); code != 0 {
		t.Fatalf("convert: status %d: %s", code, stderr)
	}
	corruptCopy(t, apk, bad, 100)
	code, _, stderr := exe("inspect", bad)
	checkFailure(t, code, stderr, 1, "corrupt")
	code, _, stderr = exe("convert", "-compression")
	checkFailure(t, code, stderr, 2, "flag needs an argument")
	if code, out, _ := exe("-h"); code != 0 || !strings.Contains(out, "Usage:") {
		t.Errorf("-h: status %d, %q", code, out)
	}
	if code, out, _ := exe("-version"); code != 0 || !strings.Contains(out, "kernels "+arrowpack.Implementation()) {
		t.Errorf("-version: status %d, %q", code, out)
	}
	// The real stdin and stdout: arrowpack < in.apks convert -to ipc - - | inspect -
	f, err := os.Open(apk)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	conv := exec.Command(bin, "convert", "-to", "ipc", "-", "-")
	conv.Stdin = f
	insp := exec.Command(bin, "inspect", "-")
	if insp.Stdin, err = conv.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	var convErr, inspOut bytes.Buffer
	conv.Stderr, insp.Stdout = &convErr, &inspOut
	if err := insp.Start(); err != nil {
		t.Fatal(err)
	}
	if err := conv.Run(); err != nil {
		t.Fatalf("convert - -: %v: %s", err, convErr.String())
	}
	if err := insp.Wait(); err != nil || !strings.Contains(inspOut.String(), "stdin: Arrow IPC stream") ||
		!strings.Contains(inspOut.String(), "700 rows") {
		t.Errorf("inspect -: %v\n%s", err, inspOut.String())
	}
}

// TestBenchMinLZLabel: -compression minlz compares arrowpack's MinLZ with
// IPC's LZ4 and says so, in the table and in JSON, never labelling IPC's
// LZ4 as minlz (issue 19 item 6).
func TestBenchMinLZLabel(t *testing.T) {
	code, out, stderr := runCmd(t, "bench", "-shapes", "lineitem-64", "-compression", "minlz", "-benchtime", "1x", "-runs", "1", "-q")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^lineitem-64\s+minlz\s+lz4\s`).MatchString(out) || !strings.Contains(out, "against IPC with lz4 (IPC has no MinLZ") {
		t.Errorf("the table does not say what minlz is compared with:\n%s", out)
	}
	code, out, stderr = runCmd(t, "bench", "-shapes", "lineitem-64", "-compression", "minlz", "-benchtime", "1x", "-runs", "1", "-q", "-json")
	var rep benchReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("status %d, %v: %s", code, err, stderr)
	}
	if len(rep.Results) != 1 || rep.Results[0].Compression != "minlz" || rep.Results[0].IPCCompression != "lz4" || len(rep.Notes) != 1 {
		t.Errorf("JSON: %+v", rep)
	}
}

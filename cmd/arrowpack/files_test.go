package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/arrowpack/arrowpack"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// runWith runs the command line in-process with stdin, returning its exit
// status, stdout and stderr.
func runWith(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, stdin, &out, &errOut)
	return code, out.String(), errOut.String()
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// checkIntact checks that the file at path still holds want, and that dir
// holds nothing but the files named in keep (no temporary file left).
func checkIntact(t *testing.T, path string, want []byte, dir string, keep ...string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the target is gone: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the target changed: %d bytes, want %d", len(got), len(want))
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != strings.Join(keep, " ") {
		t.Errorf("the directory holds %v, want %v", names, keep)
	}
}

// TestConvertNeverLosesTheTarget: a failed conversion and a refused
// overwrite leave an existing output as it was, and leave no temporary
// file behind; -f replaces it.
func TestConvertNeverLosesTheTarget(t *testing.T) {
	src := t.TempDir()
	good, recs := testStream(t, src)
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(src, "trunc.arrows")
	if err := os.WriteFile(trunc, whole[:len(whole)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	target := filepath.Join(dir, "precious.apk")
	precious := []byte("the only copy of something that matters\n")
	if err := os.WriteFile(target, precious, 0o640); err != nil {
		t.Fatal(err)
	}

	// A truncated input, even with -f: the conversion fails part way.
	code, _, stderr := runCmd(t, "convert", "-f", trunc, target)
	checkFailure(t, code, stderr, 1, "Arrow IPC stream")
	checkIntact(t, target, precious, dir, "precious.apk")

	// A good input without -f: refused before anything is written.
	code, out, stderr := runCmd(t, "convert", good, target)
	checkFailure(t, code, stderr, 1, "exists: give -f to replace it")
	if out != "" {
		t.Errorf("stdout %q", out)
	}
	checkIntact(t, target, precious, dir, "precious.apk")

	// A writer that cannot hold the schema (Parquet and a union) fails
	// after the temporary file was made: gone too.
	mem := memory.NewGoAllocator()
	union := randbatch.Batch(mem, randRand(1), arrow.NewSchema([]arrow.Field{
		{Name: "u", Type: arrow.SparseUnionOf([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, []arrow.UnionTypeCode{0}), Nullable: true}}, nil),
		10, randbatch.Options{})
	defer union.Release()
	unionSrc := filepath.Join(src, "union.arrows")
	writeIPC(t, unionSrc, []arrow.RecordBatch{union}, false)
	pqTarget := filepath.Join(dir, "precious.parquet")
	if err := os.WriteFile(pqTarget, precious, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCmd(t, "convert", "-f", unionSrc, pqTarget)
	checkFailure(t, code, stderr, 1, "Parquet cannot hold")
	checkIntact(t, pqTarget, precious, dir, "precious.apk", "precious.parquet")

	// With -f a good conversion replaces the target, keeping its mode.
	code, out, stderr = runCmd(t, "convert", "-force", good, target)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if !strings.Contains(out, "-> "+target+" (arrowpack stream") {
		t.Errorf("output %q", out)
	}
	_, got := readAll(t, target)
	defer batches.Release(got)
	checkSameBatches(t, got, recs)
	if st, err := os.Stat(target); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o640) {
		t.Errorf("mode after -f: %v %v, want 0640", st.Mode(), err)
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("the directory holds %v", names)
	}
}

// TestConvertOutputFormat: the output's format is the one -to names or
// else the one its extension stands for, whatever the input, and the
// summary names it.
func TestConvertOutputFormat(t *testing.T) {
	dir := t.TempDir()
	recs := testBatches(t)
	src := filepath.Join(dir, "in.apk")
	ipcSrc := filepath.Join(dir, "in.arrows")
	writeIPC(t, ipcSrc, recs, false)
	if code, _, stderr := runCmd(t, "convert", ipcSrc, src); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		to, name string
		want     format
	}{
		{"", "a.apk", formatArrowpack}, // arrowpack in, arrowpack out
		{"", "b.apks", formatArrowpack},
		{"", "c.arrows", formatIPCStream},
		{"", "d.stream", formatIPCStream},
		{"", "e.arrow", formatIPCFile},
		{"", "f.feather", formatIPCFile},
		{"", "g.parquet", formatParquet},
		{"parquet", "h.arrow", formatParquet}, // -to wins over the extension
		{"ipc-file", "i.data", formatIPCFile},
		{"ipc", "j", formatIPCStream},
		{"arrowpack", "k.bin", formatArrowpack},
	} {
		out := filepath.Join(dir, tc.name)
		args := []string{"convert", "-verify"}
		if tc.to != "" {
			args = append(args, "-to", tc.to)
		}
		code, stdout, stderr := runCmd(t, append(args, src, out)...)
		if code != 0 {
			t.Errorf("%s: status %d: %s", tc.name, code, stderr)
			continue
		}
		if !strings.Contains(stdout, "("+tc.want.String()+", none)") || !strings.Contains(stdout, "verified") {
			t.Errorf("%s: the summary does not say %s: %q", tc.name, tc.want, stdout)
		}
		f, got := readAll(t, out)
		if f != tc.want {
			t.Errorf("%s is a %s, want a %s", tc.name, f, tc.want)
		}
		var rows int64
		for _, r := range got {
			rows += r.NumRows()
		}
		batches.Release(got)
		if rows != 700 {
			t.Errorf("%s holds %d rows, want 700", tc.name, rows)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", src, filepath.Join(dir, "x.weird")}, "give -to"},
		{[]string{"convert", "-to", "csv", src, filepath.Join(dir, "x.apk")}, `unknown output format "csv"`},
		{[]string{"convert", src, "-"}, "-to"},
		{[]string{"convert", "-verify", "-to", "ipc", src, "-"}, "-verify"},
		{[]string{"convert", "-level", "99", src, filepath.Join(dir, "y.apk")}, "-level"},
		{[]string{"convert", "-concurrency", "0", src, filepath.Join(dir, "y.apk")}, "-concurrency"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		checkFailure(t, code, stderr, 2, tc.want)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.weird")); err == nil {
		t.Error("a refused conversion made its output")
	}
}

// TestConvertProgressReachesTheEnd: the progress bar ends at 100%, counting
// rows for Parquet, batches for IPC files and bytes for streams, and the
// final count is the whole input.
func TestConvertProgressReachesTheEnd(t *testing.T) {
	dir := t.TempDir()
	rec := lineitem(t, 1000)
	pq := filepath.Join(dir, "in.parquet")
	writeParquet(t, pq, rec)
	recs := testBatches(t)
	ipcFile := filepath.Join(dir, "in.arrow")
	writeIPC(t, ipcFile, recs, true)
	stream := filepath.Join(dir, "in.arrows")
	writeIPC(t, stream, recs, false)
	st, err := os.Stat(stream)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in, out, want string
	}{
		{pq, "a.apk", "1000 / 1000 rows"},
		{ipcFile, "b.apk", "3 / 3 batches"},
		{stream, "c.apk", " / " + humanBytes(st.Size())},
	} {
		code, _, stderr := runCmd(t, "convert", "-progress", "-batch-rows", "300", tc.in, filepath.Join(dir, tc.out))
		if code != 0 {
			t.Fatalf("%s: status %d: %s", tc.in, code, stderr)
		}
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\r")
		last := lines[len(lines)-1]
		if !strings.Contains(last, "100%") || !strings.Contains(last, tc.want) {
			t.Errorf("%s: the bar ends at %q, want 100%% and %q", tc.in, last, tc.want)
		}
		if tc.in == stream && !strings.Contains(last, humanBytes(st.Size())+" / ") {
			t.Errorf("%s: the bar ends at %q, short of the stream's %s", tc.in, last, humanBytes(st.Size()))
		}
	}
}

// TestPipes: "-" reads stdin and writes stdout, through real pipes, for
// convert, cat, head, inspect and bench; random-access formats (Parquet,
// IPC file) on stdin work too.
func TestPipes(t *testing.T) {
	dir := t.TempDir()
	stream, recs := testStream(t, dir)
	pq := filepath.Join(dir, "in.parquet")
	writeParquet(t, pq, recs[2])

	// pipeRun feeds the file at in to the command through an os.Pipe and
	// collects its stdout from another.
	pipeRun := func(in string, args ...string) (int, []byte, string) {
		t.Helper()
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		inR, inW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			inW.Write(data)
			inW.Close()
		}()
		got := make(chan []byte)
		go func() {
			b, _ := io.ReadAll(outR)
			got <- b
		}()
		var errOut bytes.Buffer
		code := run(args, inR, outW, &errOut)
		outW.Close()
		inR.Close()
		return code, <-got, errOut.String()
	}

	// IPC stream on stdin to an arrowpack stream on stdout, and back.
	code, apk, stderr := pipeRun(stream, "convert", "-to", "arrowpack", "-compression", "lz4", "-", "-")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "stdin (Arrow IPC stream) -> stdout (arrowpack stream, lz4): 3 batches, 700 rows") {
		t.Errorf("the summary on stderr: %q", stderr)
	}
	apkPath := filepath.Join(dir, "piped.apk")
	if err := os.WriteFile(apkPath, apk, 0o644); err != nil {
		t.Fatal(err)
	}
	f, got := readAll(t, apkPath)
	if f != formatArrowpack {
		t.Errorf("stdout holds a %s", f)
	}
	checkSameBatches(t, got, recs)
	batches.Release(got)

	code, back, stderr := pipeRun(apkPath, "convert", "-to", "ipc", "-", "-")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	backPath := filepath.Join(dir, "back.arrows")
	os.WriteFile(backPath, back, 0o644)
	_, got = readAll(t, backPath)
	checkSameBatches(t, got, recs)
	batches.Release(got)

	// inspect, cat and head of a pipe.
	code, out, stderr := pipeRun(apkPath, "inspect", "-")
	if code != 0 || !strings.Contains(string(out), "stdin: arrowpack stream") || !strings.Contains(string(out), "total: 3 blocks, 700 rows") {
		t.Errorf("inspect -: status %d, stderr %q\n%s", code, stderr, out)
	}
	code, out, stderr = pipeRun(apkPath, "head", "-n", "3", "-json", "-")
	if code != 0 || strings.Count(string(out), "\n") != 3 {
		t.Errorf("head -: status %d, stderr %q\n%s", code, stderr, out)
	}
	// Parquet on stdin is read into memory first.
	code, out, stderr = pipeRun(pq, "cat", "-json", "-")
	if code != 0 || strings.Count(string(out), "\n") != 399 {
		t.Errorf("cat - of Parquet: status %d, %d lines, stderr %q", code, strings.Count(string(out), "\n"), stderr)
	}
	code, out, stderr = pipeRun(pq, "bench", "-input", "-", "-benchtime", "1x", "-runs", "1", "-compression", "none", "-json", "-q")
	var rep benchReport
	if code != 0 || json.Unmarshal(out, &rep) != nil || len(rep.Results) != 1 || rep.Results[0].Rows != 399 {
		t.Errorf("bench -input -: status %d, stderr %q\n%s", code, stderr, out)
	}
	// A truncated stream on stdin fails with its cause.
	short := filepath.Join(dir, "short.apk")
	os.WriteFile(short, apk[:40], 0o644)
	code, _, stderr = pipeRun(short, "inspect", "-")
	checkFailure(t, code, stderr, 1, "header or schema")
}

// TestSalvage: -salvage keeps the blocks before the damage, writes a whole
// stream of them, says how many rows it kept and where the damage starts,
// and exits 1.
func TestSalvage(t *testing.T) {
	dir, _, apk, recs := convertedStream(t, "in.apk")
	bad := filepath.Join(dir, "bad.apk")
	corruptCopy(t, apk, bad, 100) // in the last block

	// Where the last block's frame starts: the offset of the damage.
	r, err := openInput(apk, nil, defaultBatchRows)
	if err != nil {
		t.Fatal(err)
	}
	var lastStart int64
	for r.Next() {
		lastStart = r.batchStart
	}
	r.Close()

	out := filepath.Join(dir, "saved.apk")
	code, stdout, stderr := runCmd(t, "convert", "-salvage", bad, out)
	checkFailure(t, code, stderr, 1, "salvaged 2 batches and 301 rows into "+out+"; the damage starts at byte "+itoa(lastStart)+" (batch 2): "+bad)
	if strings.Contains(stdout, "salvaged") || !strings.Contains(stdout, "2 batches, 301 rows") {
		t.Errorf("stdout %q: want the summary, and the salvage told once, on stderr", stdout)
	}
	_, got := readAll(t, out)
	defer batches.Release(got)
	checkSameBatches(t, got, recs[:2])

	// Without -salvage the same input leaves nothing.
	out2 := filepath.Join(dir, "not.apk")
	code, _, stderr = runCmd(t, "convert", bad, out2)
	checkFailure(t, code, stderr, 1, "corrupt")
	if _, err := os.Stat(out2); err == nil {
		t.Error("a failed convert left its output")
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		code, out, stderr := runCmd(t, args...)
		if code != 0 || !strings.HasPrefix(out, "arrowpack ") || !strings.Contains(out, runtime.Version()) ||
			!strings.Contains(out, "kernels "+arrowpack.Implementation()) {
			t.Errorf("%v: status %d, stderr %q, output %q", args, code, stderr, out)
		}
	}
	code, _, stderr := runCmd(t, "version", "extra")
	checkFailure(t, code, stderr, 2, "unexpected argument")
}

// TestHelpListsEveryCommand: arrowpack -h lists every command, one line
// each; a command without flags shows no "Flags:" heading.
func TestHelpListsEveryCommand(t *testing.T) {
	_, out, _ := runCmd(t, "-h")
	for _, c := range commands() {
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == c.name {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is on %d lines of the help:\n%s", c.name, n, out)
		}
	}
	code, out, _ := runCmd(t, "version", "-h")
	if code != 0 || !strings.Contains(out, "Usage: arrowpack version") || strings.Contains(out, "Flags:") {
		t.Errorf("version -h: %d %q", code, out)
	}
}

// TestMessages: counts agree with their nouns ("1 batch", "1 run"); an
// encrypted Parquet file is named as such.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	recs := testBatches(t)
	src := filepath.Join(dir, "one.arrows")
	writeIPC(t, src, recs[1:2], false)
	code, out, stderr := runCmd(t, "convert", src, filepath.Join(dir, "one.apk"))
	if code != 0 || !strings.Contains(out, ": 1 batch, 1 row,") {
		t.Errorf("status %d, %q %q", code, out, stderr)
	}
	if plural(1, "run", "runs") != "1 run" || plural(int64(2), "row", "rows") != "2 rows" {
		t.Error("plural")
	}
	code, out, _ = runCmd(t, "bench", "-shapes", "lineitem-64", "-compression", "none", "-benchtime", "1x", "-runs", "1", "-q")
	if code != 0 || !strings.Contains(out, "the median of 1 run of 1x") || strings.Contains(out, "[") {
		t.Errorf("bench -runs 1: status %d:\n%s", code, out)
	}
	// An encrypted Parquet file (its magic says so) is named as such.
	enc := filepath.Join(dir, "secret.parquet")
	os.WriteFile(enc, []byte("PARE\x00\x00\x00\x00 and then ciphertext PARE"), 0o644)
	code, _, stderr = runCmd(t, "cat", enc)
	checkFailure(t, code, stderr, 1, "encrypted Parquet")
}

func randRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// TestConvertLevelAndConcurrency: -level and -concurrency reach the
// writer (a higher zstd level makes a smaller file; -concurrency 2 splits
// a large block into sections), and the summary tells time and throughput.
func TestConvertLevelAndConcurrency(t *testing.T) {
	dir := t.TempDir()
	rec := lineitem(t, 8192)
	src := filepath.Join(dir, "in.arrows")
	writeIPC(t, src, []arrow.RecordBatch{rec}, false)
	size := map[string]int64{}
	for _, level := range []string{"1", "19"} {
		out := filepath.Join(dir, "l"+level+".apk")
		code, stdout, stderr := runCmd(t, "convert", "-compression", "zstd", "-level", level, "-concurrency", "2", "-verify", src, out)
		if code != 0 {
			t.Fatalf("status %d: %s", code, stderr)
		}
		if !regexp.MustCompile(`: 1 batch, 8192 rows, [0-9.]+ [KM]iB -> [0-9.]+ [KM]iB in [0-9.]+ s \([0-9.]+ [KMG]?i?B/s\)`).MatchString(stdout) {
			t.Errorf("the summary tells no time and throughput: %q", stdout)
		}
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		size[level] = st.Size()
		code, stdout, stderr = runCmd(t, "inspect", "-json", out)
		var rep inspectReport
		if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || len(rep.Blocks) != 1 {
			t.Fatalf("inspect -json: status %d, %s\n%s", code, stderr, stdout)
		}
		if b := rep.Blocks[0]; b.Sections < 2 || b.Compression != "zstd" || b.Rows != 8192 || b.Status != "ok" {
			t.Errorf("level %s: block %+v, want zstd in 2 sections or more", level, b)
		}
		// lineitem's random comment bytes do not compress: some sections
		// are stored raw, and inspect says how many and how large.
		if b := rep.Blocks[0]; b.RawSections == 0 || b.RawSecBytes == 0 {
			t.Errorf("level %s: block %+v, want sections stored raw", level, b)
		}
		if code, stdout, _ = runCmd(t, "inspect", out); code != 0 || !regexp.MustCompile(`\d+ \(\d+ raw, \d+ bytes\)`).MatchString(stdout) {
			t.Errorf("level %s: inspect shows no sections stored raw:\n%s", level, stdout)
		}
	}
	if size["19"] >= size["1"] {
		t.Errorf("zstd level 19 makes %d bytes, level 1 %d: -level does not reach the writer", size["19"], size["1"])
	}
}

// TestInspectEveryFormat: inspect reads IPC streams and files, Parquet and
// arrowpack, as text and JSON, schema and metadata included.
func TestInspectEveryFormat(t *testing.T) {
	dir := t.TempDir()
	recs := testBatches(t)
	md := arrow.NewMetadata([]string{"origin", "note"}, []string{"test", "line one\nline two"})
	fields := recs[0].Schema().Fields()
	fields[0].Metadata = arrow.NewMetadata([]string{"unit"}, []string{"key"})
	schema := arrow.NewSchema(fields, &md)
	var withMD []arrow.RecordBatch
	for _, r := range recs {
		withMD = append(withMD, array.NewRecordBatch(schema, r.Columns(), r.NumRows()))
	}
	defer batches.Release(withMD)
	stream := filepath.Join(dir, "in.arrows")
	writeIPC(t, stream, withMD, false)
	for _, tc := range []struct {
		name, format string
		blocks       int
	}{
		{"in.arrows", "Arrow IPC stream", 3},
		{"in.arrow", "Arrow IPC file", 3},
		{"in.parquet", "Parquet file", 1}, // the batches gathered in a row group
		{"in.apk", "arrowpack stream", 3},
	} {
		path := filepath.Join(dir, tc.name)
		if path != stream {
			if code, _, stderr := runCmd(t, "convert", "-compression", "lz4", stream, path); code != 0 {
				t.Fatal(stderr)
			}
		}
		code, out, stderr := runCmd(t, "inspect", path)
		if code != 0 {
			t.Fatalf("%s: status %d: %s", tc.name, code, stderr)
		}
		if !regexp.MustCompile(`\n  l_orderkey: int64 not null  \{.*unit: key\}\n`).MatchString(out) {
			t.Errorf("%s: no field metadata on l_orderkey's line:\n%s", tc.name, out)
		}
		for _, w := range []string{path + ": " + tc.format, "schema: 16 fields",
			"  metadata:\n    note: line one; line two\n    origin: test\n", "700 rows"} {
			if !strings.Contains(out, w) {
				t.Errorf("%s: inspect does not say %q:\n%s", tc.name, w, out)
			}
		}
		code, out, stderr = runCmd(t, "inspect", "-json", path)
		var rep inspectReport
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("%s: status %d, %v: %s", tc.name, code, err, stderr)
		}
		if rep.Format != tc.format || len(rep.Blocks) != tc.blocks || rep.Rows != 700 || len(rep.Fields) != 16 ||
			rep.Metadata["origin"] != "test" || rep.Fields[0].Metadata["unit"] != "key" || rep.Error != "" {
			t.Errorf("%s: %+v", tc.name, rep)
		}
		if tc.format == "Parquet file" && (rep.Blocks[0].Compression != "lz4" || rep.Blocks[0].Stored <= 0) {
			t.Errorf("%s: row group %+v", tc.name, rep.Blocks[0])
		}
	}
}

// TestParquetCodecArrowGoLacks: a Parquet file whose column chunks say LZO
// (patched into the footer of a GZIP file: the codec is a field of each
// column chunk's metadata) gets a message naming the codec and the column.
func TestParquetCodecArrowGoLacks(t *testing.T) {
	dir := t.TempDir()
	mem := memory.NewGoAllocator()
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	b.Release()
	defer col.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 3)
	defer rec.Release()
	data := parquetBytes(t, rec, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Gzip)), pqarrow.DefaultWriterProps())
	footerLen := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	footer := data[len(data)-8-footerLen : len(data)-8]
	// Thrift compact, in the column chunk's metadata: field 3, the path in
	// the schema, a list of one string (0x19 0x18, length 1, "x"); then
	// field 4, the codec, an i32 (0x15) zigzag-encoded: GZIP 2 -> 0x04,
	// LZO 3 -> 0x06.
	codecAt := []byte{0x19, 0x18, 0x01, 'x', 0x15, 0x04}
	if n := bytes.Count(footer, codecAt); n != 1 {
		t.Fatalf("the footer holds the path-then-codec bytes %d times, want once", n)
	}
	footer[bytes.Index(footer, codecAt)+len(codecAt)-1] = 0x06
	path := filepath.Join(dir, "lzo.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "cat", path)
	checkFailure(t, code, stderr, 1, "column x is compressed with LZO, a Parquet codec arrow-go cannot decompress")
}

// TestInspectDamagedParquet: inspect reads each row group of a Parquet
// file; one whose page header is damaged is where it stops, exit 1.
func TestInspectDamagedParquet(t *testing.T) {
	dir, _, pq, _ := convertedStream(t, "in.parquet", "-row-group-rows", "300")
	in, err := openInput(pq, nil, defaultBatchRows)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := in.pq.MetaData().RowGroup(2).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	off := cc.DataPageOffset()
	in.Close()
	data, err := os.ReadFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	copy(data[off:], bytes.Repeat([]byte{0xff}, 16)) // the page header of row group 2's first column
	bad := filepath.Join(dir, "bad.parquet")
	os.WriteFile(bad, data, 0o644)

	code, out, stderr := runCmd(t, "inspect", bad)
	checkFailure(t, code, stderr, 1, "row group 2")
	if n := strings.Count(out, " ok"); n != 2 || !strings.Contains(out, "stopped") || !strings.Contains(out, "total: 2 row groups, 600 rows") {
		t.Errorf("%d row groups ok, want 2 and a stop:\n%s", n, out)
	}
}

// TestConvertMinLZ: MinLZ is one of arrowpack's compressions, for arrowpack
// output only; asking for it in IPC is a usage error that writes nothing.
func TestConvertMinLZ(t *testing.T) {
	dir := t.TempDir()
	src, _ := testStream(t, dir)
	out := filepath.Join(dir, "m.apk")
	if code, stdout, stderr := runCmd(t, "convert", "-compression", "minlz", "-verify", src, out); code != 0 || !strings.Contains(stdout, "minlz") {
		t.Fatalf("convert -compression minlz: status %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ := runCmd(t, "inspect", "-json", out)
	var rep inspectReport
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || len(rep.Blocks) == 0 || rep.Blocks[0].Compression != "minlz" {
		t.Fatalf("inspect of a MinLZ stream: status %d\n%s", code, stdout)
	}
	ipcOut := filepath.Join(dir, "m.arrows")
	code, _, stderr := runCmd(t, "convert", "-compression", "minlz", src, ipcOut)
	checkFailure(t, code, stderr, 2, "MinLZ is an arrowpack compression")
	if _, err := os.Stat(ipcOut); !os.IsNotExist(err) {
		t.Errorf("a refused conversion left %s: %v", ipcOut, err)
	}
}

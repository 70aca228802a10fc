package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// chainResult is how far a file got along arrowpack -> IPC -> Parquet ->
// arrowpack.
type chainResult int

const (
	chainFull       chainResult = iota // back to arrowpack, equal to the source
	chainNoParquet                     // Parquet cannot hold the schema
	chainTypeChange                    // Parquet gives the columns back as other types
)

// roundTripChain converts src (any format) to arrowpack, that to an IPC
// stream, that to Parquet and that back to arrowpack, each step with
// -verify through the command's entry point, and compares the end with src
// row by row. The arrowpack and IPC steps must succeed; the Parquet one may
// find a type Parquet cannot hold, or one it gives back as another type
// (date64 as date32, say), which it reports.
func roundTripChain(t *testing.T, dir, src string) chainResult {
	t.Helper()
	base := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)))
	a, b, c, d := base+".a.apk", base+".b.arrows", base+".c.parquet", base+".d.apk"
	for _, step := range [][2]string{{src, a}, {a, b}} {
		if code, _, stderr := runCmd(t, "convert", "-verify", "-compression", "zstd", step[0], step[1]); code != 0 {
			t.Errorf("%s -> %s: status %d: %s", filepath.Base(step[0]), filepath.Base(step[1]), code, stderr)
			return chainNoParquet
		}
	}
	code, _, stderr := runCmd(t, "convert", "-verify", b, c)
	switch {
	case code != 0 && strings.Contains(stderr, "differs from the input: field"):
		t.Logf("%s: Parquet changes a type: %s", filepath.Base(src), stderr[strings.Index(stderr, "differs"):])
		return chainTypeChange
	case code != 0 && strings.Contains(stderr, "verify:"):
		t.Errorf("%s: Parquet gives back other values: %s", filepath.Base(src), stderr)
		return chainNoParquet
	case code != 0:
		t.Logf("%s: Parquet cannot hold it: %s", filepath.Base(src), stderr)
		if _, err := os.Stat(c); err == nil {
			t.Errorf("%s: a failed conversion left %s", filepath.Base(src), c)
		}
		return chainNoParquet
	}
	if code, _, stderr := runCmd(t, "convert", "-verify", "-compression", "lz4", c, d); code != 0 {
		t.Errorf("%s -> %s: status %d: %s", filepath.Base(c), filepath.Base(d), code, stderr)
		return chainNoParquet
	}
	// Where Parquet gave a type back as another (convert announced it),
	// the end holds that type, and the values must print the same.
	srcIn, err := openInput(src, nil, defaultBatchRows)
	if err != nil {
		t.Fatal(err)
	}
	endIn, err := openInput(d, nil, defaultBatchRows)
	if err != nil {
		t.Fatal(err)
	}
	var announced *arrow.Schema
	result := chainFull
	if fieldsDiff(srcIn.Schema(), endIn.Schema()) != "" {
		announced, result = endIn.Schema(), chainTypeChange
	}
	srcIn.Close()
	endIn.Close()
	quiet := &env{stdout: io.Discard, stderr: io.Discard}
	if _, err := verify(quiet, src, d, d, defaultBatchRows, false, announced); err != nil {
		t.Errorf("%s: the end of the chain differs from the source: %v", filepath.Base(src), err)
	}
	return result
}

// TestRoundTripRandomTypes runs every type of the random batch generator,
// with nulls and slices at every level, through the chain.
func TestRoundTripRandomTypes(t *testing.T) {
	dir := t.TempDir()
	mem := memory.NewGoAllocator()
	r := randRand(13)
	var full, other []string
	for i, dt := range randbatch.AllTypes() {
		schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
		recs := []arrow.RecordBatch{
			randbatch.Batch(mem, r, schema, 37, randbatch.Options{NullProb: 0.2, Slice: true}),
			randbatch.Batch(mem, r, schema, 5, randbatch.Options{NullProb: 0.5, Slice: true}),
		}
		// arrowpack first: arrow-go's IPC writer fails on some sliced
		// arrays (unions, list views) that arrowpack normalizes.
		src := filepath.Join(dir, "t"+itoa(int64(i))+".apk")
		writeAPK(t, src, recs)
		batches.Release(recs)
		if roundTripChain(t, dir, src) == chainFull {
			full = append(full, dt.String())
		} else {
			other = append(other, dt.String())
		}
	}
	t.Logf("through Parquet and back, equal: %d types; not: %d (%s)", len(full), len(other), strings.Join(other, ", "))
	// The types Parquet holds exactly: these must make the whole trip.
	for _, want := range []string{"int64", "utf8", "bool", "float64", "date32", "decimal(15, 2)", "timestamp[us",
		"dictionary<values=utf8, indices=int8", "fixed_size_binary", "large_utf8"} {
		if !slices.ContainsFunc(full, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("%s did not make the trip through Parquet", want)
		}
	}
}

// writeAPK writes recs to an arrowpack stream at path.
func writeAPK(t *testing.T, path string, recs []arrow.RecordBatch) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := codec.NewWriter(f, recs[0].Schema())
	if err != nil {
		t.Fatal(err)
	}
	if err := batches.WriteAll(w, recs); err != nil {
		t.Fatal(err)
	}
}

// TestRoundTripGolden runs Arrow's golden integration streams and the
// parquet-testing files through the chain (ARROW_TEST_DATA and
// PARQUET_TEST_DATA name their data directories; skipped when unset).
func TestRoundTripGolden(t *testing.T) {
	var files []string
	if d := os.Getenv("ARROW_TEST_DATA"); d != "" {
		m, _ := filepath.Glob(filepath.Join(d, "arrow-ipc-stream", "integration", "*", "*.stream"))
		files = append(files, m...)
	}
	if d := os.Getenv("PARQUET_TEST_DATA"); d != "" {
		m, _ := filepath.Glob(filepath.Join(d, "*.parquet"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("set ARROW_TEST_DATA and/or PARQUET_TEST_DATA to run the golden files through")
	}
	dir := t.TempDir()
	counts := map[chainResult]int{}
	for _, f := range files {
		if strings.HasSuffix(f, ".parquet") {
			// A Parquet file arrow-go cannot read is not ours to fix.
			if in, err := openInput(f, nil, defaultBatchRows); err != nil {
				t.Logf("%s: arrow-go cannot read it: %v", filepath.Base(f), err)
				continue
			} else {
				ok := true
				for in.Next() {
				}
				if in.Err() != nil {
					t.Logf("%s: arrow-go cannot read it: %v", filepath.Base(f), in.Err())
					ok = false
				}
				in.Close()
				if !ok {
					continue
				}
			}
		}
		counts[roundTripChain(t, dir, f)]++
	}
	t.Logf("%d files: %d back equal through Parquet, %d Parquet cannot hold, %d with a type Parquet changes",
		len(files), counts[chainFull], counts[chainNoParquet], counts[chainTypeChange])
	if counts[chainFull] == 0 {
		t.Error("no golden file made the whole trip")
	}
}

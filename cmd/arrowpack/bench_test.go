package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arrowpack/arrowpack/internal/measure"
)

// benchJSON runs bench with args and -json -q and returns its report.
func benchJSON(t *testing.T, args ...string) benchReport {
	t.Helper()
	code, out, stderr := runCmd(t, append(append([]string{"bench"}, args...), "-json", "-q")...)
	if code != 0 {
		t.Fatalf("bench %v: status %d: %s", args, code, stderr)
	}
	var rep benchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	return rep
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// middle returns the median of xs.
func middle(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// TestBenchMediansAndRanges: every timing is the median of -runs runs of
// one count of blocks, given with its range, and every time ratio the
// median of the ratios within the runs, with theirs (issue 31 item 9).
func TestBenchMediansAndRanges(t *testing.T) {
	rep := benchJSON(t, "-shapes", "lineitem-64", "-compression", "none,lz4", "-benchtime", "3x", "-runs", "3")
	if rep.Runs != 3 || len(rep.Results) != 2 {
		t.Fatalf("%+v", rep)
	}
	for _, r := range rep.Results {
		ops := []measure.Op{r.Arrowpack.Encode, r.Arrowpack.Decode, r.IPC.Encode, r.IPC.Decode}
		for _, op := range ops {
			if len(op.NsRuns) != 3 || op.Blocks != 3 || !closeTo(op.NsPerBlock, middle(op.NsRuns)) ||
				op.NsMin != slices.Min(op.NsRuns) || op.NsMax != slices.Max(op.NsRuns) {
				t.Errorf("%s %s: not the median of 3 runs with the range: %+v", r.Shape, r.Compression, op)
			}
		}
		for _, c := range []struct {
			med, lo, hi float64
			a, b        measure.Op
		}{{r.EncodeRatio, r.EncodeRatioMin, r.EncodeRatioMax, ops[0], ops[2]}, {r.DecodeRatio, r.DecodeRatioMin, r.DecodeRatioMax, ops[1], ops[3]}} {
			var ratios []float64
			for k := range 3 {
				ratios = append(ratios, c.a.NsRuns[k]/c.b.NsRuns[k])
			}
			if !closeTo(c.med, middle(ratios)) || !closeTo(c.lo, slices.Min(ratios)) || !closeTo(c.hi, slices.Max(ratios)) {
				t.Errorf("%s %s: ratio %v [%v-%v], the runs' ratios %v", r.Shape, r.Compression, c.med, c.lo, c.hi, ratios)
			}
		}
	}
	code, out, stderr := runCmd(t, "bench", "-shapes", "lineitem-64", "-compression", "lz4", "-benchtime", "3x", "-runs", "3", "-q")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(out, "the median of 3 runs") || strings.Contains(out, "fastest of") ||
		!regexp.MustCompile(`(?m)^lineitem-64\s+lz4\s+lz4\s+[0-9.]+ \[[0-9.]+-[0-9.]+\].* [0-9.]+ \[[0-9.]+-[0-9.]+\]$`).MatchString(out) {
		t.Errorf("the table does not show medians with ranges:\n%s", out)
	}
}

// TestBenchLightLabelled: Light's rows say they are compared with IPC's
// zstd, and the overall geometric mean pools only rows measured with the
// same codec in both formats; Light has a summary of its own (issue 31
// item 9).
func TestBenchLightLabelled(t *testing.T) {
	rep := benchJSON(t, "-shapes", "lineitem-64,dict-8192", "-compression", "zstd,light", "-benchtime", "1x", "-runs", "2")
	for _, r := range rep.Results {
		if r.IPCCompression != "zstd" {
			t.Errorf("%s %s compared with IPC %q", r.Shape, r.Compression, r.IPCCompression)
		}
	}
	if len(rep.Summary) != 2 || rep.Summary[0].Compression != "zstd" || rep.Summary[1].Compression != "light" ||
		rep.Summary[1].IPCCompression != "zstd" || rep.Summary[1].Cases != 2 {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.Contains(n, "light rows: arrowpack with Light against IPC with zstd")
	}) {
		t.Errorf("no note says what Light is compared with: %q", rep.Notes)
	}
	same, ok := sameCodec(rep.Results)
	if !ok || same.Cases != 2 || !closeTo(same.SizeRatio, rep.Summary[0].SizeRatio) {
		t.Errorf("the same-codec mean pools %+v, want the 2 zstd rows only (%+v)", same, rep.Summary[0])
	}
	code, out, stderr := runCmd(t, "bench", "-shapes", "lineitem-64,dict-8192", "-compression", "zstd,light", "-benchtime", "1x", "-runs", "2", "-q")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, re := range []string{`(?m)^lineitem-64\s+light\s+zstd\s`, `(?m)^geomean of 2\s+light\s+zstd\s`, `against the same codec in IPC \(2 cases\)`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("the table does not match %s:\n%s", re, out)
		}
	}
}

// TestBenchInputFolder: -input takes a directory (its files of known
// kinds, in name order; one that is not an input noted and skipped) or
// several files, prints each file's rows and a summary row per codec whose
// ratios are the geometric means over the files (issue 28 item 4).
func TestBenchInputFolder(t *testing.T) {
	dir := t.TempDir()
	recs := testBatches(t)
	writeIPC(t, filepath.Join(dir, "a.arrow"), recs, true)
	writeParquet(t, filepath.Join(dir, "b.parquet"), recs[2])
	if err := os.WriteFile(filepath.Join(dir, "c.parquet"), []byte("not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := benchJSON(t, "-input", dir, "-compression", "none,lz4", "-benchtime", "1x", "-runs", "3")
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Shape+"/"+r.Compression)
	}
	if want := "a.arrow/none a.arrow/lz4 b.parquet/none b.parquet/lz4"; strings.Join(got, " ") != want {
		t.Errorf("results %v, want %s", got, want)
	}
	if len(rep.Inputs) != 2 || !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, "skipped "+filepath.Join(dir, "c.parquet")) }) {
		t.Errorf("inputs %q, notes %q", rep.Inputs, rep.Notes)
	}
	if len(rep.Summary) != 2 {
		t.Fatalf("summary %+v", rep.Summary)
	}
	for i, s := range rep.Summary {
		a, b := rep.Results[i], rep.Results[i+2]
		if s.Cases != 2 || !closeTo(s.SizeRatio, math.Sqrt(a.SizeRatio*b.SizeRatio)) {
			t.Errorf("summary %+v: size ratio not the geometric mean of %v and %v", s, a.SizeRatio, b.SizeRatio)
		}
		var means []float64
		for k := range 3 {
			means = append(means, math.Sqrt(a.Arrowpack.Encode.NsRuns[k]/a.IPC.Encode.NsRuns[k]*b.Arrowpack.Encode.NsRuns[k]/b.IPC.Encode.NsRuns[k]))
		}
		if !closeTo(s.EncodeRatio, middle(means)) || !closeTo(s.EncodeRatioMin, slices.Min(means)) || !closeTo(s.EncodeRatioMax, slices.Max(means)) {
			t.Errorf("summary encode %v [%v-%v], the runs' geometric means %v", s.EncodeRatio, s.EncodeRatioMin, s.EncodeRatioMax, means)
		}
	}

	// Several files: -input FILE FILE..., as a shell glob gives them.
	code, out, stderr := runCmd(t, "bench", "-input", filepath.Join(dir, "a.arrow"), filepath.Join(dir, "b.parquet"),
		"-compression", "lz4", "-benchtime", "1x", "-runs", "1", "-q")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, re := range []string{`(?m)^a\.arrow\s+lz4\s+lz4\s`, `(?m)^b\.parquet\s+lz4\s+lz4\s`, `(?m)^geomean of 2\s+lz4\s+lz4\s`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("the table does not match %s:\n%s", re, out)
		}
	}
	// A file named is not skipped but refused; a folder of nothing
	// readable is an error.
	code, _, stderr = runCmd(t, "bench", "-input", filepath.Join(dir, "a.arrow"), filepath.Join(dir, "c.parquet"), "-q")
	checkFailure(t, code, stderr, 1, "c.parquet")
	empty := t.TempDir()
	code, _, stderr = runCmd(t, "bench", "-input", empty, "-q")
	checkFailure(t, code, stderr, 1, "holds no file bench can read")
	code, _, stderr = runCmd(t, "bench", filepath.Join(dir, "a.arrow"))
	checkFailure(t, code, stderr, 2, "more files go after -input FILE")
}

// TestBenchEstimate: the estimate before the run counts every run of
// every timing and the count each first run grows through; the progress
// says how long the rest takes from the time the steps done took (issue
// 31 item 9).
func TestBenchEstimate(t *testing.T) {
	opts := measure.Options{BenchTime: 100 * time.Millisecond, Runs: 3}
	// Each of 2 cases' 4 timings: 3 runs of about 1.2 benchtimes, the
	// first run's growth, the round-trip checks.
	if got, floor := estimateSeconds(2, opts), 2*4*(3*1.2+0.4)*0.1; got < floor {
		t.Errorf("estimate %.2f s, below the %.2f s the runs themselves take", got, floor)
	}
	if got := estimateSeconds(2, measure.Options{Iterations: 5}); got != 0 {
		t.Errorf("an estimate (%v) for a count of blocks, whose time is unknown", got)
	}
	var stderr bytes.Buffer
	clock := time.Unix(1000, 0)
	p := &benchProgress{e: &env{stderr: &stderr}, total: 4, start: clock, now: func() time.Time { return clock }}
	p.step("a", 0)
	clock = clock.Add(10 * time.Second)
	p.step("a", 1)
	clock = clock.Add(20 * time.Second)
	p.step("b", 0)
	want := "bench [1/4] a none\nbench [2/4] a lz4 (about 30 s left)\nbench [3/4] b none (about 30 s left)\n"
	if stderr.String() != want {
		t.Errorf("progress\n%s\nwant\n%s", stderr.String(), want)
	}
}

// TestBenchInputNames: cases of files sharing a base name are named by
// their paths.
func TestBenchInputNames(t *testing.T) {
	got := caseNames([]string{"x/a.parquet", "y/a.parquet", "z/b.arrow", "-"})
	if want := []string{"x/a.parquet", "y/a.parquet", "b.arrow", "stdin"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
}

// TestBenchCoalesceMedians: bench -coalesce reports every time as the
// median of -runs runs of one count with its range, every time ratio as
// the median of the runs' ratios with theirs, and prints the command that
// measured them (issue 31 items 9, 14).
func TestBenchCoalesceMedians(t *testing.T) {
	args := []string{"bench", "-coalesce", "-runs", "3", "-benchtime", "1x", "-shapes", "lineitem-64", "-q"}
	code, out, stderr := runCmd(t, append(args, "-json")...)
	if code != 0 {
		t.Fatal(stderr)
	}
	var rep coalesceReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Command != "arrowpack bench -coalesce -runs 3 -benchtime 1x -shapes lineitem-64" || len(rep.AppendBatches) != 2 || len(rep.Streams) != 3 {
		t.Fatalf("command %q, %d AppendBatches rows, %d stream tables", rep.Command, len(rep.AppendBatches), len(rep.Streams))
	}
	median := func(what string, op measure.Op) {
		t.Helper()
		if len(op.NsRuns) != 3 || op.Blocks != 1 || !closeTo(op.NsPerBlock, middle(op.NsRuns)) ||
			op.NsMin != slices.Min(op.NsRuns) || op.NsMax != slices.Max(op.NsRuns) {
			t.Errorf("%s: not the median of 3 runs with the range: %+v", what, op)
		}
	}
	ratio := func(what string, got [3]float64, a, b measure.Op) {
		t.Helper()
		var ratios []float64
		for k := range min(len(a.NsRuns), len(b.NsRuns)) {
			ratios = append(ratios, a.NsRuns[k]/b.NsRuns[k])
		}
		if len(ratios) != 3 || !closeTo(got[0], middle(ratios)) || !closeTo(got[1], slices.Min(ratios)) || !closeTo(got[2], slices.Max(ratios)) {
			t.Errorf("%s: ratio %v, the runs' ratios %v", what, got, ratios)
		}
	}
	for _, r := range rep.AppendBatches {
		for _, op := range []measure.Op{r.AppendBatches, r.Append, r.Copy, r.PieceCopy} {
			median(r.Shape, op)
		}
		ratio(r.Shape+" AppendBatches/Append", r.CoalesceRatio, r.AppendBatches, r.Append)
		ratio(r.Shape+" Append/copy", r.CopyRatio, r.Append, r.Copy)
	}
	for _, s := range rep.Streams {
		for _, w := range s.Ways {
			if w.Err != "" {
				t.Errorf("%d-row pieces, %s: %s", s.PieceRows, w.Name, w.Err)
				continue
			}
			median(w.Name+" write", w.Write)
			median(w.Name+" read", w.Read)
			median(w.Name+" total", w.Total)
			ratio(w.Name, [3]float64{w.Ratio, w.RatioMin, w.RatioMax}, w.Total, s.Ways[0].Total)
		}
	}
	var table strings.Builder
	printCoalesceTables(&table, &rep)
	if !strings.Contains(table.String(), "command: "+rep.Command+"\n") || !strings.Contains(table.String(), "the median of 3 runs of 1x [fastest-slowest]") ||
		!regexp.MustCompile(`(?m)^arrowpack, a block per batch\s+[0-9.]+ \[[0-9.]+-[0-9.]+\].* [0-9.]+ \[[0-9.]+-[0-9.]+\]\s+[0-9.]+\s+[0-9.]+\s+1000\s`).MatchString(table.String()) {
		t.Errorf("the table does not show medians with ranges and its command:\n%s", table.String())
	}
}

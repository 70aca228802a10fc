package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/measure"
)

// benchSummary is the geometric means of the ratios over the cases
// measured with one pair of codecs (arrowpack's, IPC's). Each time ratio
// is the median over the runs of the geometric mean within each run, with
// the smallest and largest of those; the size ratio has no runs.
type benchSummary struct {
	Compression    string `json:"compression"`
	IPCCompression string `json:"ipc_compression"`
	Cases          int    `json:"cases"`
	measure.Ratios
}

// benchSummaries returns a summary per pair of codecs, in the order the
// pairs were first measured, over the results where both formats were
// measured.
func benchSummaries(results []measure.Result) []benchSummary {
	var out []benchSummary
	for _, pair := range codecPairs(results) {
		var group []measure.Result
		for _, r := range results {
			if r.Compression == pair[0] && r.IPCCompression == pair[1] && r.SizeRatio > 0 {
				group = append(group, r)
			}
		}
		if len(group) == 0 {
			continue
		}
		s := benchSummary{Compression: pair[0], IPCCompression: pair[1], Cases: len(group)}
		s.EncodeRatio, s.EncodeRatioMin, s.EncodeRatioMax = geomeanRuns(group, func(r measure.Result) (measure.Op, measure.Op) {
			return r.Arrowpack.Encode, r.IPC.Encode
		})
		s.DecodeRatio, s.DecodeRatioMin, s.DecodeRatioMax = geomeanRuns(group, func(r measure.Result) (measure.Op, measure.Op) {
			return r.Arrowpack.Decode, r.IPC.Decode
		})
		sizes := make([]float64, len(group))
		for i, r := range group {
			sizes[i] = r.SizeRatio
		}
		s.SizeRatio = geomean(sizes)
		out = append(out, s)
	}
	return out
}

// codecPairs returns the pairs (arrowpack's codec, IPC's) of results, in
// the order first met.
func codecPairs(results []measure.Result) [][2]string {
	var pairs [][2]string
	for _, r := range results {
		p := [2]string{r.Compression, r.IPCCompression}
		if !containsPair(pairs, p) {
			pairs = append(pairs, p)
		}
	}
	return pairs
}

func containsPair(pairs [][2]string, p [2]string) bool {
	for _, q := range pairs {
		if q == p {
			return true
		}
	}
	return false
}

// geomeanRuns returns the median over the runs of the geometric mean, over
// group, of each run's time ratio (ops gives the two timings of a result),
// and the smallest and largest of those means. Runs that not every result
// has are left out.
func geomeanRuns(group []measure.Result, ops func(measure.Result) (measure.Op, measure.Op)) (median, lo, hi float64) {
	runs := math.MaxInt
	for _, r := range group {
		a, b := ops(r)
		runs = min(runs, len(a.NsRuns), len(b.NsRuns))
	}
	var means []float64
	for k := range runs {
		ratios := make([]float64, len(group))
		for i, r := range group {
			a, b := ops(r)
			ratios[i] = a.NsRuns[k] / b.NsRuns[k]
		}
		means = append(means, geomean(ratios))
	}
	return measure.Spread(means)
}

// geomean returns the geometric mean of xs, all above 0.
func geomean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

// sameCodec returns the summary of the results measured with the same
// codec on both sides pooled, for the chart and the last line; ok is false
// when there is none.
func sameCodec(results []measure.Result) (benchSummary, bool) {
	var group []measure.Result
	for _, r := range results {
		if r.Compression == r.IPCCompression && r.SizeRatio > 0 {
			r.Compression, r.IPCCompression = "same", "same"
			group = append(group, r)
		}
	}
	s := benchSummaries(group)
	if len(s) == 0 {
		return benchSummary{}, false
	}
	return s[0], true
}

// benchProgress tells on stderr which case is being measured and about
// how long the rest will take, from the time the steps done so far took:
// on a terminal in one line redrawn, elsewhere a line per step.
type benchProgress struct {
	e     *env
	quiet bool
	total int
	n     int
	drawn bool
	start time.Time
	now   func() time.Time
}

func (p *benchProgress) step(name string, c codec.Compression) {
	p.n++
	what := c.String()
	if done := p.n - 1; done > 0 {
		left := p.now().Sub(p.start).Seconds() / float64(done) * float64(p.total-done)
		what += fmt.Sprintf(" (about %.0f s left)", math.Ceil(left))
	}
	p.show(name, what)
}

func (p *benchProgress) show(name, what string) {
	if p.quiet {
		return
	}
	if p.e.tty {
		fmt.Fprintf(p.e.stderr, "\rbench [%d/%d] %s %s\x1b[K", min(p.n, p.total), p.total, escapeText(name), what)
		p.drawn = true
		return
	}
	if what != "preparing" && what != "reading" {
		fmt.Fprintf(p.e.stderr, "bench [%d/%d] %s %s\n", p.n, p.total, escapeText(name), what)
	}
}

func (p *benchProgress) clear() {
	if p.drawn {
		fmt.Fprint(p.e.stderr, "\r\x1b[K")
		p.drawn = false
	}
}

// fmtMicros formats nanoseconds as microseconds with about three
// significant digits.
func fmtMicros(ns float64) string {
	us := ns / 1e3
	switch {
	case us >= 100:
		return fmt.Sprintf("%.0f", us)
	case us >= 10:
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.2f", us)
}

// withRange formats a median and its range: "0.65 [0.61-0.70]"; a value
// of one run, which has no range, alone.
func withRange(f func(float64) string, median, lo, hi float64) string {
	if lo == hi {
		return f(median)
	}
	return fmt.Sprintf("%s [%s-%s]", f(median), f(lo), f(hi))
}

func fmtRatio(x float64) string { return fmt.Sprintf("%.2f", x) }

// printColumns prints rows as columns two spaces apart, the first left
// columns aligned left, the others right, with no trailing spaces.
func printColumns(w io.Writer, rows [][]string, left int) {
	var widths []int
	for _, r := range rows {
		for c, s := range r {
			if c >= len(widths) {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], displayWidth(s))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for c, s := range r {
			pad := strings.Repeat(" ", widths[c]-displayWidth(s))
			if c > 0 {
				b.WriteString("  ")
			}
			if c < left {
				b.WriteString(s + pad)
			} else {
				b.WriteString(pad + s)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// printBenchTable prints the results as three tables, encode, decode and
// size, each row naming the IPC codec it is compared with, then a summary
// row per pair of codecs.
func printBenchTable(w io.Writer, rep *benchReport) {
	fmt.Fprintf(w, "arrowpack vs Arrow IPC (arrow-go %s); one block = one record batch\n", rep.ArrowGo)
	fmt.Fprintf(w, "machine: %s\n", rep.Machine)
	if rep.Input != "" {
		fmt.Fprintf(w, "input: %s\n", escapeText(rep.Input))
	}
	rng := " [fastest-slowest]"
	if rep.Runs == 1 {
		rng = ""
	}
	fmt.Fprintf(w, "times: µs per block, the median of %s of %s%s; GB/s of uncompressed arrowpack block at the median\n",
		plural(rep.Runs, "run", "runs"), rep.BenchTime, rng)
	fmt.Fprintf(w, "ratio = arrowpack / IPC with the codec in \"vs IPC\" (below 1: arrowpack faster or smaller), the median of the runs' ratios%s\n", strings.Replace(rng, "fastest-slowest", "range", 1))
	if rep.Concurrency > 1 {
		fmt.Fprintf(w, "compressed blocks use up to %d goroutines each, in both formats\n", rep.Concurrency)
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(w, n)
	}
	summaryName := func(s benchSummary) string {
		return fmt.Sprintf("geomean of %d", s.Cases)
	}

	for _, dir := range []string{"ENCODE", "DECODE"} {
		fmt.Fprintf(w, "\n%s\n", dir)
		rows := [][]string{{"shape", "codec", "vs IPC", "arrowpack µs", "GB/s", "allocs", "IPC µs", "GB/s", "allocs", "ratio"}}
		for _, r := range rep.Results {
			ap, ipcOp := r.Arrowpack.Encode, r.IPC.Encode
			rt := [3]float64{r.EncodeRatio, r.EncodeRatioMin, r.EncodeRatioMax}
			if dir == "DECODE" {
				ap, ipcOp = r.Arrowpack.Decode, r.IPC.Decode
				rt = [3]float64{r.DecodeRatio, r.DecodeRatioMin, r.DecodeRatioMax}
			}
			row := []string{escapeText(r.Shape), r.Compression, r.IPCCompression}
			for _, side := range []struct {
				f  measure.Format
				op measure.Op
			}{{r.Arrowpack, ap}, {r.IPC, ipcOp}} {
				if !side.f.OK() {
					row = append(row, "failed", "-", "-")
					continue
				}
				row = append(row, withRange(func(ns float64) string { return fmtMicros(ns) }, side.op.NsPerBlock, side.op.NsMin, side.op.NsMax),
					fmt.Sprintf("%.2f", side.op.GBPerSec), fmt.Sprintf("%.0f", side.op.AllocsPerBlock))
			}
			ratio := "-"
			if rt[0] > 0 {
				ratio = withRange(fmtRatio, rt[0], rt[1], rt[2])
			}
			rows = append(rows, append(row, ratio))
		}
		for _, s := range rep.Summary {
			rt := withRange(fmtRatio, s.EncodeRatio, s.EncodeRatioMin, s.EncodeRatioMax)
			if dir == "DECODE" {
				rt = withRange(fmtRatio, s.DecodeRatio, s.DecodeRatioMin, s.DecodeRatioMax)
			}
			rows = append(rows, []string{summaryName(s), s.Compression, s.IPCCompression, "", "", "", "", "", "", rt})
		}
		printColumns(w, rows, 3)
	}

	fmt.Fprintf(w, "\nSIZE\n")
	rows := [][]string{{"shape", "codec", "vs IPC", "rows", "arrowpack bytes", "IPC bytes", "ratio"}}
	for _, r := range rep.Results {
		ratio := "-"
		if r.SizeRatio > 0 {
			ratio = fmtRatio(r.SizeRatio)
		}
		bytes := func(f measure.Format) string {
			if !f.OK() {
				return "failed"
			}
			return fmt.Sprint(f.Bytes)
		}
		rows = append(rows, []string{escapeText(r.Shape), r.Compression, r.IPCCompression, fmt.Sprint(r.Rows), bytes(r.Arrowpack), bytes(r.IPC), ratio})
	}
	for _, s := range rep.Summary {
		rows = append(rows, []string{summaryName(s), s.Compression, s.IPCCompression, "", "", "", fmtRatio(s.SizeRatio)})
	}
	printColumns(w, rows, 3)

	fmt.Fprintln(w)
	if s, ok := sameCodec(rep.Results); ok {
		fmt.Fprintf(w, "geometric mean of the ratios, each codec against the same codec in IPC (%s): encode time %s (%.1fx faster), decode time %s (%.1fx faster), size %.2f\n",
			plural(s.Cases, "case", "cases"), withRange(fmtRatio, s.EncodeRatio, s.EncodeRatioMin, s.EncodeRatioMax), 1/s.EncodeRatio,
			withRange(fmtRatio, s.DecodeRatio, s.DecodeRatioMin, s.DecodeRatioMax), 1/s.DecodeRatio, s.SizeRatio)
	}
	for _, r := range rep.Results {
		for _, f := range []struct {
			name string
			f    measure.Format
		}{{"arrowpack", r.Arrowpack}, {"IPC", r.IPC}} {
			if !f.f.OK() {
				fmt.Fprintf(w, "note: %s failed on %s (%s): %s\n", f.name, escapeText(r.Shape), r.Compression, oneLine(f.f.Err))
			}
		}
	}
	est := ""
	if rep.EstimatedSeconds > 0 {
		est = fmt.Sprintf(" (estimated %.0f s)", math.Ceil(rep.EstimatedSeconds))
	}
	fmt.Fprintf(w, "measured in %.1f s%s\n", rep.Seconds, est)
}

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/measure"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// coalesceBlockRows is the block size of bench -coalesce's coalescing
// Writer, and the rows of the batches it cuts into pieces.
const coalesceBlockRows = 8192

// coalesceReport is what bench -coalesce prints as JSON.
type coalesceReport struct {
	Machine       measure.Machine               `json:"machine"`
	ArrowGo       string                        `json:"arrow_go"`
	BenchTime     string                        `json:"benchtime"`
	Runs          int                           `json:"runs"`
	Command       string                        `json:"command"`
	AppendBatches []measure.AppendBatchesResult `json:"append_batches"`
	Streams       []measure.CoalesceResult      `json:"streams"`
}

// runCoalesceBench measures coalescing small batches: AppendBatches of each
// built-in shape cut into 16- and 256-row pieces against Append of the
// shape, and 1,000 lineitem batches of 16, 64 and 256 rows written through
// a coalescing Writer and read back against the ways without it.
func runCoalesceBench(e *env, o *benchOptions, opts measure.Options) error {
	rep := &coalesceReport{Machine: measure.ThisMachine(), ArrowGo: arrowGoVersion(), BenchTime: opts.String(), Runs: opts.Runs,
		Command: coalesceCommand(o, opts)}
	mem := memory.NewGoAllocator()
	for _, s := range randbatch.BenchShapes() {
		if o.shapes != "" && !inList(o.shapes, s.Name) {
			continue
		}
		rec := s.Build(mem)
		for _, p := range []int{16, 256} {
			if !o.quiet {
				fmt.Fprintf(e.stderr, "\rAppendBatches %s in pieces of %d rows   ", s.Name, p)
			}
			r, err := measure.MeasureAppendBatches(s.Name, rec, p, opts)
			if err != nil {
				rec.Release()
				return fmt.Errorf("%s: %w", s.Name, err)
			}
			rep.AppendBatches = append(rep.AppendBatches, r)
		}
		rec.Release()
	}
	for _, p := range []int{16, 64, 256} {
		if !o.quiet {
			fmt.Fprintf(e.stderr, "\rstreams of 1000 lineitem batches of %d rows   ", p)
		}
		all := randbatch.Lineitem(mem, 1000*p)
		pieces := make([]arrow.RecordBatch, 1000)
		for i := range pieces {
			pieces[i] = all.NewSlice(int64(i*p), int64((i+1)*p))
		}
		r, err := measure.MeasureCoalescing("lineitem", pieces, coalesceBlockRows, opts)
		for _, pc := range pieces {
			pc.Release()
		}
		all.Release()
		if err != nil {
			return err
		}
		rep.Streams = append(rep.Streams, r)
	}
	if !o.quiet {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if o.json {
		return printJSON(e.stdout, rep)
	}
	printCoalesceTables(e.stdout, rep)
	return nil
}

// coalesceCommand returns the command line that measures what o and opts
// say, for the figures to be reproduced.
func coalesceCommand(o *benchOptions, opts measure.Options) string {
	cmd := fmt.Sprintf("arrowpack bench -coalesce -runs %d -benchtime %s", opts.Runs, opts.String())
	if o.shapes != "" {
		cmd += " -shapes " + o.shapes
	}
	return cmd
}

// printCoalesceTables prints the results of bench -coalesce as the main
// bench table prints its own: times the median of the runs with
// [fastest-slowest], ratios the median of the runs' ratios with their
// range, headed by the command that measured them.
func printCoalesceTables(w io.Writer, rep *coalesceReport) {
	fmt.Fprintf(w, "coalescing small batches (arrow-go %s)\n", rep.ArrowGo)
	fmt.Fprintf(w, "machine: %s\n", rep.Machine)
	fmt.Fprintf(w, "command: %s\n", rep.Command)
	rng := " [fastest-slowest]"
	if rep.Runs == 1 {
		rng = ""
	}
	fmt.Fprintf(w, "times: µs, the median of %s of %s%s; ratios: the median of the runs' ratios%s; CPU: the median CPU time of the process, its ratio of the medians\n",
		plural(rep.Runs, "run", "runs"), rep.BenchTime, rng, strings.Replace(rng, "fastest-slowest", "range", 1))
	us := func(op measure.Op) string { return withRange(fmtMicros, op.NsPerBlock, op.NsMin, op.NsMax) }
	ratio := func(r [3]float64) string { return withRange(fmtRatio, r[0], r[1], r[2]) }

	fmt.Fprintf(w, "\nAppendBatches of a batch cut into pieces, against Append of the batch and copies of the block's and the pieces' bytes:\n")
	rows := [][]string{{"shape", "rows", "piece rows", "AppendBatches µs", "Append µs", "copy µs", "pieces' copy µs", "AppendBatches/Append", "(CPU)", "Append/copy", "(CPU)", "AppendBatches/pieces' copy", "allocs"}}
	for _, r := range rep.AppendBatches {
		rows = append(rows, []string{escapeText(r.Shape), fmt.Sprint(r.Rows), fmt.Sprint(r.PieceRows), us(r.AppendBatches), us(r.Append), us(r.Copy), us(r.PieceCopy),
			ratio(r.CoalesceRatio), fmtRatio(r.CPURatio), ratio(r.CopyRatio), fmtRatio(r.CopyCPURatio), ratio(r.PieceCopyRatio),
			fmt.Sprintf("%.0f", r.AppendBatches.AllocsPerBlock)})
	}
	printColumns(w, rows, 1)

	for _, r := range rep.Streams {
		fmt.Fprintf(w, "\n%d batches of %d %s rows, written as a stream and read back (blocks of %d rows):\n", r.Pieces, r.PieceRows, escapeText(r.Shape), r.BlockRows)
		rows := [][]string{{"way", "write µs", "read µs", "total µs", "x coalesced", "CPU total µs", "x coalesced (CPU)", "batches read", "bytes", "allocs"}}
		for _, wy := range r.Ways {
			if wy.Err != "" {
				rows = append(rows, []string{wy.Name, "failed: " + oneLine(wy.Err)})
				continue
			}
			rows = append(rows, []string{wy.Name, us(wy.Write), us(wy.Read), us(wy.Total), ratio([3]float64{wy.Ratio, wy.RatioMin, wy.RatioMax}),
				fmtMicros(wy.Total.CPUNsPerBlock), fmtRatio(wy.CPURatio), fmt.Sprint(wy.Blocks), fmt.Sprint(wy.Bytes), fmt.Sprintf("%.0f", wy.Total.AllocsPerBlock)})
		}
		printColumns(w, rows, 1)
	}
}

// inList reports whether name is one of the comma-separated names of list.
func inList(list, name string) bool {
	return slices.Contains(strings.Split(list, ","), name)
}

package main

import (
	"fmt"
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
	AppendBatches []measure.AppendBatchesResult `json:"append_batches"`
	Streams       []measure.CoalesceResult      `json:"streams"`
}

// runCoalesceBench measures coalescing small batches: AppendBatches of each
// built-in shape cut into 16- and 256-row pieces against Append of the
// shape, and 1,000 lineitem batches of 16, 64 and 256 rows written through
// a coalescing Writer and read back against the ways without it.
func runCoalesceBench(e *env, o *benchOptions, opts measure.Options) error {
	rep := &coalesceReport{Machine: measure.ThisMachine(), ArrowGo: arrowGoVersion(), BenchTime: opts.String(), Runs: opts.Runs}
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
	return measure.WriteCoalesceTables(e.stdout, rep.AppendBatches, rep.Streams)
}

// inList reports whether name is one of the comma-separated names of list.
func inList(list, name string) bool {
	return slices.Contains(strings.Split(list, ","), name)
}

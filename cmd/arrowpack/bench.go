package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/measure"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

const benchUsage = "arrowpack bench [-input FILE] [-svg FILE] [-json] [-benchtime D] [-compression LIST] [-concurrency N] [-shapes LIST]"

const benchAbout = `Measures arrowpack against arrow-go's Arrow IPC on the same record batches,
side by side: encode and decode, uncompressed, with LZ4 and with zstd, and
prints per case the time per block (one block = one batch), the throughput
in GB/s of uncompressed arrowpack block, the bytes per block, the
allocations per block and the ratio arrowpack / IPC. IPC writes each batch
as a stream of its own (schema, batch, end marker) and reads it back, as a
shuffle using IPC per block does. -compression minlz measures arrowpack's
MinLZ against IPC's LZ4, as IPC has no MinLZ: its rows are labelled
minlz/lz4.

By default it measures built-in, deterministic batches (TPC-H lineitem-like
first); -input measures the batches of an Arrow IPC file or stream or a
Parquet file instead (at most -max-batches of them, 256 MiB at most).
`

// minlzLabel names the rows of arrowpack's MinLZ, measured against IPC's
// LZ4 since IPC has no MinLZ.
const minlzLabel = "minlz/lz4"

// minlzNote explains minlzLabel where the results are shown.
const minlzNote = "minlz/lz4: arrowpack with MinLZ against IPC with LZ4 (IPC has no MinLZ)"

// inputBudget bounds the bytes of an -input file read for a measurement.
const inputBudget = 256 << 20

type benchOptions struct {
	input       string
	svg         string
	json        bool
	benchtime   string
	compression string
	shapes      string
	runs        int
	concurrency int
	batchRows   int
	maxBatches  int
	quiet       bool
	coalesce    bool
}

func benchFlags() (*flag.FlagSet, *benchOptions) {
	o := &benchOptions{}
	fs := newFlagSet("bench")
	fs.StringVar(&o.input, "input", "", "measure the batches of this Arrow IPC or Parquet `file` instead of the built-in ones")
	fs.StringVar(&o.svg, "svg", "", "write a bar chart of the throughputs to this SVG `file`")
	fs.BoolVar(&o.json, "json", false, "print the results as JSON instead of a table")
	fs.StringVar(&o.benchtime, "benchtime", measure.DefaultBenchTime.String(), "run each timing for `d` (200ms, 1s) or for N blocks (100x), -runs times")
	fs.IntVar(&o.runs, "runs", measure.DefaultRuns, "run each timing `n` times, taking turns, and keep the fastest")
	fs.IntVar(&o.concurrency, "concurrency", 1, "let one compressed block use `n` goroutines, in arrowpack (WithConcurrency) and IPC (WithCompressConcurrency) alike")
	fs.StringVar(&o.compression, "compression", "none,lz4,zstd", "comma-separated compressions to measure: none, lz4, zstd, minlz (against IPC's lz4: IPC has no MinLZ)")
	fs.StringVar(&o.shapes, "shapes", "", "comma-separated built-in shapes to measure (default all: "+strings.Join(shapeNames(), ", ")+")")
	fs.IntVar(&o.batchRows, "batch-rows", defaultBatchRows, "rows per batch read from a Parquet -input")
	fs.IntVar(&o.maxBatches, "max-batches", 64, "measure at most `n` batches of an -input file")
	fs.BoolVar(&o.quiet, "q", false, "show no progress on stderr")
	fs.BoolVar(&o.coalesce, "coalesce", false, "measure coalescing small batches (AppendBatches, a Writer with WithBlockRows) instead")
	return fs, o
}

func shapeNames() []string {
	var names []string
	for _, s := range randbatch.BenchShapes() {
		names = append(names, s.Name)
	}
	return names
}

// benchReport is what bench prints as JSON and draws as a chart.
type benchReport struct {
	Machine   measure.Machine `json:"machine"`
	ArrowGo   string          `json:"arrow_go"`
	BenchTime string          `json:"benchtime"`
	Runs      int             `json:"runs"`
	// Concurrency is the goroutines one compressed block may use.
	Concurrency int    `json:"concurrency"`
	Input       string `json:"input,omitempty"`
	// Notes explain the results' labels (minlz/lz4).
	Notes   []string         `json:"notes,omitempty"`
	Seconds float64          `json:"seconds"`
	Results []measure.Result `json:"results"`
}

// benchCase is a set of batches to measure under one name.
type benchCase struct {
	name string
	load func() ([]arrow.RecordBatch, error)
}

func runBench(e *env, args []string) (err error) {
	fs, o := benchFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	opts, err := measure.ParseBenchTime(o.benchtime)
	if err != nil {
		return usagef("%v", err)
	}
	var comps []codec.Compression
	for _, name := range strings.Split(o.compression, ",") {
		c, err := parseCompression(name)
		if err != nil {
			return err
		}
		if !slices.Contains(comps, c) {
			comps = append(comps, c)
		}
	}
	if o.batchRows <= 0 || o.maxBatches <= 0 || o.runs <= 0 || o.concurrency <= 0 {
		return usagef("-runs, -concurrency, -batch-rows and -max-batches must be above 0")
	}
	opts.Runs, opts.Concurrency = o.runs, o.concurrency
	if o.coalesce {
		return runCoalesceBench(e, o, opts)
	}
	if o.input != "" && o.shapes != "" {
		return usagef("-input and -shapes do not go together")
	}
	cases, err := benchCases(o, e.stdin)
	if err != nil {
		return err
	}
	// Open the chart's file now: a bad path should fail before the run.
	// It is replaced, as a chart is meant to be, but only by a whole one.
	var svgFile *safeFile
	if o.svg != "" {
		if svgFile, err = createSafe(o.svg, true); err != nil {
			return err
		}
		defer svgFile.Abort() // a no-op once committed
	}

	if !o.quiet {
		// Say at once what is coming: the default run takes a while.
		what := "the built-in shapes"
		if o.shapes != "" {
			what = "shapes " + o.shapes
		}
		if o.input != "" {
			what = "the batches of " + o.input
		}
		est := ""
		if opts.Iterations == 0 {
			bt := opts.BenchTime
			if bt == 0 {
				bt = measure.DefaultBenchTime
			}
			// Four timings a case and compression, each run opts.Runs
			// times, and some setup.
			est = fmt.Sprintf(", about %.0f s", math.Ceil(float64(len(cases)*len(comps)*4*opts.Runs)*bt.Seconds()*1.3))
		}
		fmt.Fprintf(e.stderr, "bench: measuring arrowpack and Arrow IPC on %s, %s (%s each, fastest of %s%s; -q for quiet)\n",
			what, o.compression, opts.String(), plural(opts.Runs, "run", "runs"), est)
	}
	start := time.Now()
	rep := &benchReport{
		Machine:     measure.ThisMachine(),
		ArrowGo:     arrowGoVersion(),
		BenchTime:   opts.String(),
		Runs:        opts.Runs,
		Concurrency: opts.Concurrency,
		Input:       o.input,
	}
	if slices.Contains(comps, codec.MinLZ) {
		rep.Notes = append(rep.Notes, minlzNote)
	}
	prog := &benchProgress{e: e, quiet: o.quiet, total: len(cases) * len(comps)}
	// Every case's batches stay in memory for the whole run, as in the
	// codec package's benchmarks: with the live heap of one small batch
	// only, the garbage collector would run so often that it, not the
	// codecs, would dominate the allocation-heavy timings (IPC's most).
	loaded := make([][]arrow.RecordBatch, len(cases))
	defer func() {
		for _, recs := range loaded {
			for _, r := range recs {
				r.Release()
			}
		}
	}()
	for i, bc := range cases {
		prog.show(bc.name, "preparing")
		if loaded[i], err = bc.load(); err != nil {
			prog.clear()
			return err
		}
	}
	for i, bc := range cases {
		for _, c := range comps {
			prog.step(bc.name, c)
			res, err := measure.Measure(bc.name, loaded[i], c, opts)
			if err != nil {
				prog.clear()
				return err
			}
			if c == codec.MinLZ {
				// IPC has no MinLZ: measure puts IPC's LZ4 against it,
				// and the row says so.
				res.Compression = minlzLabel
			}
			rep.Results = append(rep.Results, res)
		}
	}
	prog.clear()
	rep.Seconds = math.Round(time.Since(start).Seconds()*10) / 10

	if o.json {
		if err := printJSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		printBenchTable(e.stdout, rep)
	}
	if svgFile != nil {
		if err := writeSVG(svgFile, rep); err != nil {
			return fmt.Errorf("writing %s: %w", o.svg, err)
		}
		if err := svgFile.Commit(); err != nil {
			return fmt.Errorf("writing %s: %w", o.svg, err)
		}
		if !o.json {
			fmt.Fprintf(e.stdout, "chart: %s\n", o.svg)
		}
	}
	return nil
}

// benchCases returns the cases to measure: the batches of the -input file,
// or the built-in shapes named by -shapes (all by default).
func benchCases(o *benchOptions, stdin io.Reader) ([]benchCase, error) {
	if o.input != "" {
		// Read the file now: a bad file fails before the run starts, and
		// standard input can be read only once.
		recs, err := readBatches(o.input, stdin, o.batchRows, o.maxBatches)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(o.input)
		if o.input == "-" {
			name = "stdin"
		}
		return []benchCase{{name: name, load: func() ([]arrow.RecordBatch, error) { return recs, nil }}}, nil
	}
	shapes := randbatch.BenchShapes()
	if o.shapes != "" {
		var picked []randbatch.Shape
		for _, name := range strings.Split(o.shapes, ",") {
			name = strings.TrimSpace(name)
			i := slices.IndexFunc(shapes, func(s randbatch.Shape) bool { return s.Name == name })
			if i < 0 {
				return nil, usagef("unknown shape %q: the shapes are %s", name, strings.Join(shapeNames(), ", "))
			}
			picked = append(picked, shapes[i])
		}
		shapes = picked
	}
	var cases []benchCase
	for _, s := range shapes {
		cases = append(cases, benchCase{name: s.Name, load: func() ([]arrow.RecordBatch, error) {
			return []arrow.RecordBatch{s.Build(memory.DefaultAllocator)}, nil
		}})
	}
	return cases, nil
}

// readBatches reads the first batches of the file at path ("-" for
// stdin), at most maxBatches of them and about inputBudget bytes of
// batches. The caller releases them.
func readBatches(path string, stdin io.Reader, batchRows, maxBatches int) ([]arrow.RecordBatch, error) {
	in, err := openInput(path, stdin, batchRows)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var recs []arrow.RecordBatch
	var held int64
	for len(recs) < maxBatches && in.Next() {
		rec := in.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
		if held += recordBytes(rec); held >= inputBudget {
			break
		}
	}
	if err := in.Err(); err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s holds no record batches", in.name())
	}
	return recs, nil
}

// arrowGoVersion returns the version of arrow-go built in, as the build
// records it.
func arrowGoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/apache/arrow-go/v18" {
				return d.Version
			}
		}
	}
	return "v18"
}

// benchProgress tells on stderr which case is being measured: on a
// terminal in one line redrawn, elsewhere a line per case.
type benchProgress struct {
	e     *env
	quiet bool
	total int
	n     int
	drawn bool
}

func (p *benchProgress) step(name string, c codec.Compression) {
	p.n++
	p.show(name, c.String())
}

func (p *benchProgress) show(name, what string) {
	if p.quiet {
		return
	}
	if p.e.tty {
		fmt.Fprintf(p.e.stderr, "\rbench [%d/%d] %s %s\x1b[K", min(p.n, p.total), p.total, name, what)
		p.drawn = true
		return
	}
	if what != "preparing" {
		fmt.Fprintf(p.e.stderr, "bench [%d/%d] %s %s\n", p.n, p.total, name, what)
	}
}

func (p *benchProgress) clear() {
	if p.drawn {
		fmt.Fprint(p.e.stderr, "\r\x1b[K")
		p.drawn = false
	}
}

// printBenchTable prints the results as two tables, encode and decode.
func printBenchTable(w io.Writer, rep *benchReport) {
	fmt.Fprintf(w, "arrowpack vs Arrow IPC (arrow-go %s); one block = one record batch\n", rep.ArrowGo)
	fmt.Fprintf(w, "machine: %s\n", rep.Machine)
	if rep.Input != "" {
		fmt.Fprintf(w, "input: %s\n", rep.Input)
	}
	fmt.Fprintf(w, "each timing: the fastest of %s of %s; GB/s counts uncompressed arrowpack block bytes;\n", plural(rep.Runs, "run", "runs"), rep.BenchTime)
	if rep.Concurrency > 1 {
		fmt.Fprintf(w, "compressed blocks use up to %d goroutines each, in both formats\n", rep.Concurrency)
	}
	fmt.Fprintln(w, "ratio = arrowpack / IPC (below 1: arrowpack faster or smaller)")
	for _, n := range rep.Notes {
		fmt.Fprintln(w, n)
	}

	shapeW, codecW := len("shape"), len("codec")
	for _, r := range rep.Results {
		shapeW = max(shapeW, len(r.Shape))
		codecW = max(codecW, len(r.Compression))
	}
	const group = "%11s %7s %10s %7s"
	groupW := len(fmt.Sprintf(group, "", "", "", ""))
	center := func(s string) string {
		pad := max(groupW-len(s), 0)
		return strings.Repeat(" ", pad/2) + s + strings.Repeat(" ", pad-pad/2)
	}
	side := func(f measure.Format, op measure.Op) string {
		if !f.OK() {
			return center("failed (see below)")
		}
		return fmt.Sprintf(group, fmt.Sprintf("%.0f", op.NsPerBlock), fmt.Sprintf("%.2f", op.GBPerSec),
			fmt.Sprint(f.Bytes), fmt.Sprintf("%.0f", op.AllocsPerBlock))
	}
	ratio := func(x float64) string {
		if x == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", x)
	}
	for _, dir := range []string{"ENCODE", "DECODE"} {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "%-*s %-*s  %s   %s   %s\n", shapeW, dir, codecW, "", center("arrowpack"), center("IPC"), "   ratio")
		fmt.Fprintf(w, "%-*s %-*s  "+group+"   "+group+"   %6s %6s\n", shapeW, "shape", codecW, "codec",
			"ns/block", "GB/s", "bytes", "allocs", "ns/block", "GB/s", "bytes", "allocs", "time", "size")
		for _, r := range rep.Results {
			ap, ipcOp, t := r.Arrowpack.Encode, r.IPC.Encode, r.EncodeRatio
			if dir == "DECODE" {
				ap, ipcOp, t = r.Arrowpack.Decode, r.IPC.Decode, r.DecodeRatio
			}
			fmt.Fprintf(w, "%-*s %-*s  %s   %s   %6s %6s\n", shapeW, r.Shape, codecW, r.Compression,
				side(r.Arrowpack, ap), side(r.IPC, ipcOp), ratio(t), ratio(r.SizeRatio))
		}
	}

	enc, dec, size := geomeanRatios(rep.Results)
	fmt.Fprintln(w)
	if enc > 0 {
		fmt.Fprintf(w, "geometric mean of the ratios: encode time %.2f (%.1fx faster), decode time %.2f (%.1fx faster), size %.2f\n",
			enc, 1/enc, dec, 1/dec, size)
	}
	for _, r := range rep.Results {
		for _, f := range []struct {
			name string
			f    measure.Format
		}{{"arrowpack", r.Arrowpack}, {"IPC", r.IPC}} {
			if !f.f.OK() {
				fmt.Fprintf(w, "note: %s failed on %s (%s): %s\n", f.name, r.Shape, r.Compression, oneLine(f.f.Err))
			}
		}
	}
	fmt.Fprintf(w, "measured in %.1f s\n", rep.Seconds)
}

// geomeanRatios returns the geometric means of the encode time, decode time
// and size ratios over the results where both formats were measured, or
// zeros if there is none.
func geomeanRatios(results []measure.Result) (enc, dec, size float64) {
	var n int
	for _, r := range results {
		if r.EncodeRatio > 0 && r.DecodeRatio > 0 && r.SizeRatio > 0 {
			enc += math.Log(r.EncodeRatio)
			dec += math.Log(r.DecodeRatio)
			size += math.Log(r.SizeRatio)
			n++
		}
	}
	if n == 0 {
		return 0, 0, 0
	}
	return math.Exp(enc / float64(n)), math.Exp(dec / float64(n)), math.Exp(size / float64(n))
}

// recordBytes returns the bytes of the buffers of rec, children and
// dictionaries included.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			walk(c)
		}
		if d.DataType().ID() == arrow.DICTIONARY {
			walk(d.Dictionary())
		}
	}
	for _, c := range rec.Columns() {
		walk(c.Data())
	}
	return n
}

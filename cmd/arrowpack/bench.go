package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/measure"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

const benchUsage = "arrowpack bench [-input FILE|DIR [FILE...]] [-svg FILE] [-json] [-benchtime D] [-runs N] [-compression LIST] [-concurrency N] [-shapes LIST]"

const benchAbout = `Measures arrowpack against arrow-go's Arrow IPC on the same record batches,
side by side: encode and decode, uncompressed and compressed, and prints
per case the time per block (one block = one batch), the throughput in GB/s
of uncompressed arrowpack block, the bytes per block, the allocations per
block and the ratios arrowpack / IPC. IPC writes each batch as a stream of
its own (schema, batch, end marker) and reads it back, as a shuffle using
IPC per block does.

Each timing runs -runs times, the four timings of a case in turns, every
run the same number of blocks; times are the median of the runs with
[fastest-slowest], ratios the median of the ratios within each run with
their range. Each row names the IPC codec it is compared with: the same
one, or for the codecs IPC lacks its nearest: lz4 for minlz, zstd for
light. The geometric means at the end are taken per pair of codecs.

By default it measures built-in, deterministic batches (TPC-H lineitem-like
first); -input measures the batches of Arrow IPC or Parquet files instead
(at most -max-batches of each, 256 MiB at most): a file, a directory (its
.parquet, .arrow, .arrows, .ipc, .feather and .apk files; one it cannot
read is noted and skipped), more files after it (-input DIR/*.parquet),
with a summary row of each ratio's geometric mean over the files.
`

// inputBudget bounds the bytes of an -input file read for a measurement.
const inputBudget = 256 << 20

// inputExts are the file name extensions bench -input takes from a
// directory.
var inputExts = []string{".parquet", ".arrow", ".arrows", ".ipc", ".feather", ".apk"}

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
	fs.StringVar(&o.input, "input", "", "measure the batches of this Arrow IPC or Parquet `file` (or of the files of a directory; more files may follow) instead of the built-in ones")
	fs.StringVar(&o.svg, "svg", "", "write a bar chart of the throughputs to this SVG `file`")
	fs.BoolVar(&o.json, "json", false, "print the results as JSON instead of a table")
	fs.StringVar(&o.benchtime, "benchtime", measure.DefaultBenchTime.String(), "run each timing for `d` (200ms, 1s) or for N blocks (100x), -runs times")
	fs.IntVar(&o.runs, "runs", measure.DefaultRuns, "run each timing `n` times, taking turns; results are the median with [min-max]")
	fs.IntVar(&o.concurrency, "concurrency", 1, "let one compressed block use `n` goroutines, in arrowpack (WithConcurrency) and IPC (WithCompressConcurrency) alike")
	fs.StringVar(&o.compression, "compression", "none,lz4,zstd", "comma-separated compressions to measure: none, lz4, zstd, minlz (against IPC's lz4), light (against IPC's zstd)")
	fs.StringVar(&o.shapes, "shapes", "", "comma-separated built-in shapes to measure (default all: "+strings.Join(shapeNames(), ", ")+")")
	fs.IntVar(&o.batchRows, "batch-rows", defaultBatchRows, "rows per batch read from a Parquet -input")
	fs.IntVar(&o.maxBatches, "max-batches", 64, "measure at most `n` batches of each -input file")
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
	Concurrency int `json:"concurrency"`
	// Input is the -input argument; Inputs every file measured.
	Input  string   `json:"input,omitempty"`
	Inputs []string `json:"inputs,omitempty"`
	// Notes explain the results' labels (what minlz and light are compared
	// with) and name the files skipped.
	Notes []string `json:"notes,omitempty"`
	// Seconds is how long the measurement took, EstimatedSeconds what it
	// was estimated to take before it started (0 for -benchtime Nx).
	Seconds          float64          `json:"seconds"`
	EstimatedSeconds float64          `json:"estimated_seconds,omitempty"`
	Results          []measure.Result `json:"results"`
	// Summary holds, per pair of codecs, the geometric means of the
	// ratios over the cases.
	Summary []benchSummary `json:"summary"`
}

// benchCase is a set of batches to measure under one name. load returns
// them, release gives them back.
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
	if len(pos) != 0 && o.input == "" {
		return usagef("unexpected argument %q (more files go after -input FILE)", pos[0])
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
	var inputs []string
	if o.input != "" {
		inputs = append([]string{o.input}, pos...)
	}
	rep := &benchReport{
		Machine:     measure.ThisMachine(),
		ArrowGo:     arrowGoVersion(),
		BenchTime:   opts.String(),
		Runs:        opts.Runs,
		Concurrency: opts.Concurrency,
		Input:       strings.Join(inputs, " "),
	}
	cases, err := benchCases(o, inputs, e.stdin, rep)
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
	rep.Notes = append(rep.Notes, codecNotes(comps)...)
	rep.EstimatedSeconds = estimateSeconds(len(cases)*len(comps), opts)

	if !o.quiet {
		// Say at once what is coming: the default run takes a while.
		what := "the built-in shapes"
		if o.shapes != "" {
			what = "shapes " + o.shapes
		}
		if len(inputs) > 0 {
			what = plural(len(cases), "file", "files")
			if len(cases) == 1 {
				what = cases[0].name
			}
		}
		est := ""
		if rep.EstimatedSeconds > 0 {
			est = fmt.Sprintf(", about %.0f s on an idle machine", math.Ceil(rep.EstimatedSeconds))
		}
		fmt.Fprintf(e.stderr, "bench: measuring arrowpack and Arrow IPC on %s, %s (%s each, median of %s%s; -q for quiet)\n",
			what, o.compression, opts.String(), plural(opts.Runs, "run", "runs"), est)
	}
	start := time.Now()
	prog := &benchProgress{e: e, quiet: o.quiet, total: len(cases) * len(comps), start: start, now: time.Now}
	// Every built-in case's batches stay in memory for the whole run, as
	// in the codec package's benchmarks: with the live heap of one small
	// batch only, the garbage collector would run so often that it, not
	// the codecs, would dominate the allocation-heavy timings (IPC's most).
	// Input files are loaded one at a time, each released once measured.
	var held [][]arrow.RecordBatch
	defer func() {
		for _, recs := range held {
			batches.Release(recs)
		}
	}()
	loaded := make([][]arrow.RecordBatch, len(cases))
	if len(inputs) == 0 {
		for i, bc := range cases {
			prog.show(bc.name, "preparing")
			if loaded[i], err = bc.load(); err != nil {
				prog.clear()
				return err
			}
			held = append(held, loaded[i])
		}
	}
	for i, bc := range cases {
		recs := loaded[i]
		if recs == nil {
			prog.show(bc.name, "reading")
			if recs, err = bc.load(); err != nil {
				prog.clear()
				return err
			}
		}
		for _, c := range comps {
			prog.step(bc.name, c)
			res, err := measure.Measure(bc.name, recs, c, opts)
			if err != nil {
				prog.clear()
				if loaded[i] == nil {
					batches.Release(recs)
				}
				return err
			}
			rep.Results = append(rep.Results, res)
		}
		if loaded[i] == nil {
			batches.Release(recs)
		}
	}
	prog.clear()
	rep.Seconds = math.Round(time.Since(start).Seconds()*10) / 10
	rep.Summary = benchSummaries(rep.Results)

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

// codecNotes explains the rows of the compressions that IPC lacks, which
// are measured against another IPC codec.
func codecNotes(comps []codec.Compression) []string {
	var notes []string
	for _, c := range comps {
		switch ipcC := measure.IPCCompression(c); {
		case ipcC == c:
		case c == codec.MinLZ:
			notes = append(notes, "minlz rows: arrowpack with MinLZ against IPC with lz4 (IPC has no MinLZ; lz4 is its fastest)")
		case c == codec.Light:
			notes = append(notes, "light rows: arrowpack with Light against IPC with zstd (IPC has no lightweight encodings; zstd is its smallest)")
		default:
			notes = append(notes, fmt.Sprintf("%s rows: against IPC with %s", c, ipcC))
		}
	}
	return notes
}

// estimateSeconds estimates how long timings (a case with a compression
// each, four timings apiece) take with opts, or 0 for a count of blocks
// (-benchtime Nx), whose duration is not known ahead. Each timing's first
// run grows its count of blocks until a run lasts the benchtime (about 0.4
// of it beyond the run that counts), and each run lasts about 1.2 times the
// benchtime, the count being aimed a fifth above it; checking the round
// trips, the collections before each run and reading the inputs add
// about a tenth.
func estimateSeconds(timings int, opts measure.Options) float64 {
	if opts.Iterations > 0 {
		return 0
	}
	bt := opts.BenchTime
	if bt <= 0 {
		bt = measure.DefaultBenchTime
	}
	runs := opts.Runs
	if runs <= 0 {
		runs = measure.DefaultRuns
	}
	return float64(timings*4) * bt.Seconds() * (1.2*float64(runs) + 0.4) * 1.1
}

// benchCases returns the cases to measure: the batches of the -input files
// (a directory's files in name order, noted in rep.Notes when they cannot
// be read), or the built-in shapes named by -shapes (all by default).
func benchCases(o *benchOptions, inputs []string, stdin io.Reader, rep *benchReport) ([]benchCase, error) {
	if len(inputs) > 0 {
		return inputCases(o, inputs, stdin, rep)
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

// inputCases returns a case per input file: each file named is opened now,
// so that a bad one fails before the run starts (standard input is read
// now, as it can be read only once); a directory gives its files with
// inputExts, those that cannot be opened noted and skipped.
func inputCases(o *benchOptions, inputs []string, stdin io.Reader, rep *benchReport) ([]benchCase, error) {
	var files []string
	checked := map[string]bool{}
	for _, in := range inputs {
		st, err := os.Stat(in)
		if in == "-" || err != nil || !st.IsDir() {
			files = append(files, in)
			continue
		}
		entries, err := os.ReadDir(in)
		if err != nil {
			return nil, err
		}
		for _, ent := range entries {
			if ent.Type().IsRegular() && slices.Contains(inputExts, strings.ToLower(filepath.Ext(ent.Name()))) {
				path := filepath.Join(in, ent.Name())
				if err := checkInput(path, o.batchRows); err != nil {
					rep.Notes = append(rep.Notes, "skipped "+oneLine(err.Error()))
					continue
				}
				files = append(files, path)
				checked[path] = true
			}
		}
	}
	names := caseNames(files)
	var cases []benchCase
	for i, path := range files {
		if path == "-" {
			recs, err := readBatches(path, stdin, o.batchRows, o.maxBatches)
			if err != nil {
				return nil, err
			}
			cases = append(cases, benchCase{name: names[i], load: func() ([]arrow.RecordBatch, error) {
				out := recs
				recs = nil // the caller releases them; a second load has none
				return out, nil
			}})
			continue
		}
		if !checked[path] {
			if err := checkInput(path, o.batchRows); err != nil {
				return nil, err
			}
		}
		cases = append(cases, benchCase{name: names[i], load: func() ([]arrow.RecordBatch, error) {
			return readBatches(path, nil, o.batchRows, o.maxBatches)
		}})
		rep.Inputs = append(rep.Inputs, path)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s holds no file bench can read (%s)", strings.Join(inputs, ", "), strings.Join(inputExts, ", "))
	}
	return cases, nil
}

// checkInput opens the file at path as an input and reads its first
// batch, to fail early on one that is not an input at all.
func checkInput(path string, batchRows int) error {
	in, err := openInput(path, nil, batchRows)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer in.Close()
	if !in.Next() && in.Err() != nil {
		return in.Err()
	}
	return nil
}

// caseNames names the cases of files by their base names ("stdin" for
// -), or by their paths where two files share a base name.
func caseNames(files []string) []string {
	names := make([]string, len(files))
	count := map[string]int{}
	for _, f := range files {
		count[filepath.Base(f)]++
	}
	for i, f := range files {
		switch {
		case f == "-":
			names[i] = "stdin"
		case count[filepath.Base(f)] > 1:
			names[i] = f
		default:
			names[i] = filepath.Base(f)
		}
	}
	return names
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

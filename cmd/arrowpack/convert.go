package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/arrowpack/arrowpack/codec"
)

const convertUsage = "arrowpack convert [-to FORMAT] [-f] [-no-sync] [-compression " + compressionChoices + "] [-level N] [-concurrency N] [-row-group-rows N] [-verify] [-salvage] IN OUT"

const convertAbout = `Converts record batches between arrowpack streams, Arrow IPC streams and
files, and Parquet files. The input's format is detected from its first
bytes; the output's is the one -to names (arrowpack, ipc, ipc-file, parquet)
or else the one its name's extension stands for: .apk (or .apks) arrowpack,
.arrows (or .stream) Arrow IPC stream, .arrow (or .feather) Arrow IPC file,
.parquet Parquet. "-" reads standard input or writes standard output (which
needs -to).

The output is written to a temporary file next to it, synced to the disk
and renamed into place only once complete (the directory synced after the
rename): when convert reports success the output survives a crash, and a
failed or interrupted (SIGINT, SIGTERM) conversion leaves the target as it
was. -no-sync skips the syncs: faster, but a crash soon after may leave the
target empty or missing. An existing output is replaced only with -f.

-compression compresses the output's blocks (arrowpack: lz4, zstd, minlz, light),
buffers (IPC: lz4, zstd) or pages (Parquet: LZ4_RAW, ZSTD) and -level sets
the level. A Parquet output gathers the batches into row groups of
-row-group-rows rows (the last one smaller), holding a row group in memory
until it is written. Types Parquet cannot hold as they are (date64,
time32[s], timestamp[s], ...) are named on stderr, with the type they will
read back as, before anything is written.

-verify reads the output back and compares it with the input, row by row,
before moving it into place: an output found unequal is removed, the target
left as it was. -salvage, for a damaged input, keeps every batch before the
damage, writes them out, says where the damage starts and ends with exit
status 1.
`

type convertOptions struct {
	to          string
	out         *outputOptions
	compression string
	level       int
	concurrency int
	verify      bool
	salvage     bool
	progress    bool
	batchRows   int
	rowGroups   int64
}

func convertFlags() (*flag.FlagSet, *convertOptions) {
	o := &convertOptions{}
	fs := newFlagSet("convert")
	fs.StringVar(&o.to, "to", "", "output `format`: arrowpack, ipc, ipc-file or parquet (default: from the output's extension)")
	o.out = outputFlags(fs)
	fs.StringVar(&o.compression, "compression", "none", "compression of the output: "+compressionNames+" (minlz and light: arrowpack only)")
	fs.IntVar(&o.level, "level", 0, "compression `level` (zstd 1..22, lz4 1..9 for high compression; 0 the default)")
	fs.IntVar(&o.concurrency, "concurrency", 1, "goroutines one compressed block may use (arrowpack and IPC output)")
	fs.BoolVar(&o.verify, "verify", false, "read the output back and compare it with the input, row by row, before it takes the target's place")
	fs.BoolVar(&o.salvage, "salvage", false, "keep the batches before the damage in a damaged input, and exit 1")
	fs.BoolVar(&o.progress, "progress", false, "show a progress bar on stderr (shown anyway for large inputs on a terminal)")
	fs.IntVar(&o.batchRows, "batch-rows", defaultBatchRows, "read a Parquet input `n` rows per batch")
	fs.Int64Var(&o.rowGroups, "row-group-rows", parquet.DefaultMaxRowGroupLen, "gather a Parquet output's batches into row groups of `n` rows (pqarrow's default)")
	return fs, o
}

// parseCompression reads a compression's name.
// compressionChoices are the compressions the command takes, as usage
// lines write them; compressionNames the same in a sentence.
const (
	compressionChoices = "none|lz4|zstd|minlz|light"
	compressionNames   = "none, lz4, zstd, minlz or light"
)

func parseCompression(s string) (codec.Compression, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "":
		return codec.None, nil
	case "lz4":
		return codec.LZ4, nil
	case "zstd":
		return codec.Zstd, nil
	case "minlz":
		return codec.MinLZ, nil
	case "light":
		return codec.Light, nil
	}
	return 0, usagef("unknown compression %q: want "+compressionNames, s)
}

// ipcCompression returns the IPC writer options for c.
func ipcCompression(c codec.Compression) []ipc.Option {
	switch c {
	case codec.LZ4:
		return []ipc.Option{ipc.WithLZ4()}
	case codec.Zstd:
		return []ipc.Option{ipc.WithZstd()}
	}
	return nil
}

func runConvert(e *env, args []string) error {
	fs, o := convertFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want an input and an output file, got %d argument(s)", len(pos))
	}
	comp, err := parseCompression(o.compression)
	if err != nil {
		return err
	}
	if o.batchRows <= 0 {
		return usagef("-batch-rows must be above 0")
	}
	if o.concurrency <= 0 {
		return usagef("-concurrency must be above 0")
	}
	if o.level < 0 || o.level > 22 {
		return usagef("-level %d is out of range: 0 (the default) to 22 for zstd, 9 for lz4", o.level)
	}
	if o.level != 0 && comp == codec.None {
		return usagef("-level %d needs a compression: give -compression lz4, zstd, minlz or light", o.level)
	}
	if o.rowGroups <= 0 {
		return usagef("-row-group-rows must be above 0")
	}
	inPath, outPath := pos[0], pos[1]
	outFormat, err := outputFormat(o.to, outPath)
	if err != nil {
		return err
	}
	if inPath != "-" && same(inPath, outPath) {
		return usagef("the output %s is the input", outPath)
	}
	if flagSet(fs, "row-group-rows") && outFormat != formatParquet {
		return usagef("-row-group-rows is for a Parquet output, not a %s", outFormat)
	}
	if outPath == "-" && isTerminal(e.stdout) {
		return usagef("will not write a binary %s to a terminal: redirect stdout or name a file", outFormat)
	}
	if o.verify && (inPath == "-" || outPath == "-") {
		return usagef("-verify reads the input and the output again: it needs files, not stdin or stdout")
	}

	// Fail on an existing output before reading anything.
	var sf *safeFile
	sink := e.stdout
	if outPath != "-" {
		if sf, err = o.out.create(outPath); err != nil {
			return err
		}
		defer sf.Abort() // a no-op once committed
		sink = sf
	}
	in, err := openInput(inPath, e.stdin, o.batchRows)
	if err != nil {
		return err
	}
	defer in.Close()
	show := o.progress || (e.tty && in.size >= progressMinSize)
	wo := writeOptions{compression: comp, level: o.level, concurrency: o.concurrency, rowGroupRows: o.rowGroups}
	for _, f := range in.int96 {
		fmt.Fprintf(e.stderr, "arrowpack convert: warning: field %s holds Parquet INT96 timestamps, which have no time zone, inside a type arrowpack cannot give them timestamp[ns] in: they read as timestamp[ns, tz=UTC] and are written so (%s)\n",
			escapeText(f), int96Effect(outFormat))
	}
	if outFormat == formatParquet {
		// Say what Parquet will change before anything is written.
		changes, err := parquetTypeChanges(in.Schema(), wo)
		if err != nil {
			return fmt.Errorf("%s -> %s: %w", in.name(), outPath, err)
		}
		for _, c := range changes {
			fmt.Fprintf(e.stderr, "arrowpack convert: warning: %s\n", c)
		}
	}
	start := time.Now()
	st, err := convert(e, in, sink, outPath, outFormat, wo, show)
	readErr := in.Err()
	if err != nil && !(o.salvage && readErr != nil && err == readErr) {
		return err
	}
	// The summary goes where it does not mix with the output.
	msgs := e.stdout
	if outPath == "-" {
		msgs = e.stderr
	}
	var verified int64
	if o.verify && readErr == nil {
		// Compare before the output takes the target's place: an unequal
		// one never replaces anything.
		in.Close()
		var announced *arrow.Schema
		if outFormat == formatParquet {
			if announced, err = parquetReadBack(in.Schema(), wo); err != nil {
				return err
			}
		}
		if verified, err = verify(e, inPath, sf.Name(), outPath, o.batchRows, show, announced); err != nil {
			return fmt.Errorf("%w; the output is removed, %s", err, targetLeft(outPath))
		}
	}
	if sf != nil {
		if err := sf.Commit(); err != nil {
			return fmt.Errorf("writing %s: %w", outPath, err)
		}
	}
	elapsed := time.Since(start)
	outName := outPath
	if outPath == "-" {
		outName = "stdout"
	}
	read := in.bytesRead()
	fmt.Fprintf(msgs, "%s (%s) -> %s (%s, %s): %s, %s, %s -> %s in %s (%s/s)\n",
		in.name(), in.format, outName, outFormat, comp, plural(st.batches, "batch", "batches"), plural(st.rows, "row", "rows"),
		humanBytes(read), humanBytes(st.size), roundDuration(elapsed), humanBytes(int64(float64(read)/max(elapsed.Seconds(), 1e-9))))
	if readErr != nil {
		// Salvaged: what was kept is written; say once where the damage is.
		where := fmt.Sprintf("at batch %d", st.batches)
		if in.damageAt >= 0 {
			where = fmt.Sprintf("at byte %d (batch %d)", in.damageAt, st.batches)
		}
		return fmt.Errorf("salvaged %s and %s into %s; the damage starts %s: %w",
			plural(st.batches, "batch", "batches"), plural(st.rows, "row", "rows"), outName, where, readErr)
	}
	if o.verify {
		fmt.Fprintf(msgs, "verified: the output holds the input's %s, equal\n", plural(verified, "row", "rows"))
	}
	return nil
}

// targetLeft tells what became of the target of a conversion that failed.
func targetLeft(target string) string {
	if _, err := os.Lstat(target); err == nil {
		return target + " is as it was"
	}
	return "nothing is written at " + target
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// roundDuration rounds d for a message: "0.12 s", "3.4 s", "75 s".
func roundDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 1:
		return fmt.Sprintf("%.2f s", s)
	case s < 10:
		return fmt.Sprintf("%.1f s", s)
	}
	return fmt.Sprintf("%.0f s", s)
}

// same reports whether paths a and b name one existing file.
func same(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// convertStats sums up a conversion.
type convertStats struct {
	batches int
	rows    int64
	size    int64 // bytes written
}

// batchWriter is what the arrowpack, IPC and Parquet writers have in common.
type batchWriter interface {
	Write(rec arrow.RecordBatch) error
	Close() error
}

// convert writes the batches of in to out, named outName, in format f.
// When reading fails part way, it still closes the writer, so that the
// batches before the damage make a whole file, and returns the read error
// (for -salvage to keep them). Any other error leaves out incomplete.
func convert(e *env, in *input, out io.Writer, outName string, f format, o writeOptions, show bool) (st convertStats, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("writing %s: %v", outName, p)
		}
	}()
	cw := &countingWriter{w: out}
	bw := bufio.NewWriterSize(cw, 1<<20)
	w, err := newBatchWriter(bw, f, in.Schema(), o)
	if err != nil {
		return st, fmt.Errorf("%s -> %s: %w", in.name(), outName, err)
	}
	bar := newProgressBar(e.stderr, "convert", show, e.tty)
	for in.Next() {
		if err := e.interruption(); err != nil {
			bar.abandon()
			return st, err
		}
		rec := in.RecordBatch()
		if err := w.Write(rec); err != nil {
			bar.abandon()
			return st, fmt.Errorf("writing batch %d to %s: %w", st.batches, outName, err)
		}
		st.batches++
		st.rows += rec.NumRows()
		bar.update(in.Progress())
	}
	readErr := in.Err()
	if readErr != nil {
		bar.abandon()
	} else {
		bar.finish(in.Progress())
	}
	if err := w.Close(); err != nil {
		return st, errors.Join(readErr, fmt.Errorf("writing %s: %w", outName, err))
	}
	if err := bw.Flush(); err != nil {
		return st, errors.Join(readErr, fmt.Errorf("writing %s: %w", outName, err))
	}
	st.size = cw.n
	return st, readErr
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// verify reads the input file and the output file at outPath (named
// outName in messages) again and compares their schemas (field names, types
// and nullability) and their rows, whatever the batches they come in
// (Parquet's row groups need not match the input's batches). A non-nil
// announced is the schema the output was announced to read back as (the
// types Parquet changes, which convert warned of): the output must have it,
// and a column of a changed type is compared by the text of its values
// (sameBatch), which the changes keep. It returns the number of rows
// compared.
func verify(e *env, inPath, outPath, outName string, batchRows int, show bool, announced *arrow.Schema) (int64, error) {
	in, err := openInput(inPath, nil, batchRows)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := openInput(outPath, nil, batchRows)
	if err != nil {
		return 0, fmt.Errorf("verify: %s: %w", outName, err)
	}
	out.path = outName
	defer out.Close()
	want, what := in.Schema(), "the input"
	if announced != nil {
		want, what = announced, "the input with the announced type changes"
	}
	if diff := codec.SchemaDiff(want, out.Schema(), what); diff != "" {
		return 0, fmt.Errorf("verify: %s differs from %s: %s", outName, what, diff)
	}
	bar := newProgressBar(e.stderr, "verify ", show, e.tty)
	a, b := &rowCursor{in: in}, &rowCursor{in: out}
	var rows int64
	for {
		ra, rb := a.avail(), b.avail()
		if err := errors.Join(in.Err(), out.Err(), e.interruption()); err != nil {
			bar.abandon()
			return rows, fmt.Errorf("verify: %w", err)
		}
		switch {
		case ra == 0 && rb == 0:
			bar.finish(out.Progress())
			return rows, nil
		case rb == 0:
			return rows, fmt.Errorf("verify: %s ends after %s, the input has more", outName, plural(rows, "row", "rows"))
		case ra == 0:
			return rows, fmt.Errorf("verify: %s has more than the input's %s", outName, plural(rows, "row", "rows"))
		}
		n := min(ra, rb)
		sa, sb := a.take(n), b.take(n)
		ok := sameBatch(sa, sb)
		sa.Release()
		sb.Release()
		if !ok {
			return rows, fmt.Errorf("verify: the %s from row %d of %s differ from the input's", plural(n, "row", "rows"), rows, outName)
		}
		rows += n
		bar.update(out.Progress())
	}
}

// int96Effect says what an INT96 timestamp read as timestamp[ns, tz=UTC]
// becomes in an output of format f.
func int96Effect(f format) string {
	if f == formatParquet {
		return "an INT64 timestamp adjusted to UTC: readers such as DuckDB see TIMESTAMP WITH TIME ZONE"
	}
	return "with the time zone UTC"
}

// fieldsDiff tells the first difference between the fields of schemas in
// and out in names, types and nullability (metadata aside), or "" if none.
func fieldsDiff(in, out *arrow.Schema) string { return codec.SchemaDiff(in, out, "the input") }

// rowCursor walks the rows of an input across its batches.
type rowCursor struct {
	in  *input
	rec arrow.RecordBatch
	off int64
}

// avail returns the rows left in the current batch, moving to the next
// non-empty batch if none; 0 at the end (or an error: see in.Err).
func (c *rowCursor) avail() int64 {
	for c.rec == nil || c.off >= c.rec.NumRows() {
		if !c.in.Next() {
			c.rec = nil
			return 0
		}
		c.rec, c.off = c.in.RecordBatch(), 0
	}
	return c.rec.NumRows() - c.off
}

// take returns the next n rows (n <= avail()) as a slice to release.
func (c *rowCursor) take(n int64) arrow.RecordBatch {
	s := c.rec.NewSlice(c.off, c.off+n)
	c.off += n
	return s
}

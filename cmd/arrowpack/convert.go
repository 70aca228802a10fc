package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/arrowpack/arrowpack/codec"
)

const convertUsage = "arrowpack convert [-compression none|lz4|zstd] [-verify] [-progress] IN OUT"

const convertAbout = `Converts an Arrow IPC file or stream, or a Parquet file, into an arrowpack
stream (one block per record batch), and an arrowpack stream into an Arrow IPC
stream. The input's format is detected from its first bytes. -compression
compresses the output's blocks (arrowpack) or buffers (IPC). -verify reads
the output back and compares it with the input, batch by batch.
`

type convertOptions struct {
	compression string
	verify      bool
	progress    bool
	batchRows   int
}

func convertFlags() (*flag.FlagSet, *convertOptions) {
	o := &convertOptions{}
	fs := newFlagSet("convert")
	fs.StringVar(&o.compression, "compression", "none", "compression of the output: none, lz4 or zstd")
	fs.BoolVar(&o.verify, "verify", false, "read the output back and compare it with the input, batch by batch")
	fs.BoolVar(&o.progress, "progress", false, "show a progress bar on stderr (shown anyway for large inputs on a terminal)")
	fs.IntVar(&o.batchRows, "batch-rows", defaultBatchRows, "rows per batch read from a Parquet `input`")
	return fs, o
}

// parseCompression reads a compression's name.
func parseCompression(s string) (codec.Compression, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "":
		return codec.None, nil
	case "lz4":
		return codec.LZ4, nil
	case "zstd":
		return codec.Zstd, nil
	}
	return 0, usagef("unknown compression %q: want none, lz4 or zstd", s)
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
	inPath, outPath := pos[0], pos[1]
	if same(inPath, outPath) {
		return usagef("the output %s is the input", outPath)
	}

	in, err := openInput(inPath, o.batchRows)
	if err != nil {
		return err
	}
	defer in.Close()
	show := o.progress || (e.tty && in.size >= progressMinSize)
	st, err := convert(e, in, outPath, comp, show)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s (%s) -> %s (%s, %s): %d batches, %d rows, %s -> %s\n",
		inPath, in.format, outPath, st.format, comp, st.batches, st.rows, humanBytes(in.size), humanBytes(st.size))
	if !o.verify {
		return nil
	}
	in.Close()
	if err := verify(e, inPath, outPath, o.batchRows, show); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "verified: the output holds the input's %d batches and %d rows, equal\n", st.batches, st.rows)
	return nil
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
	format  format
	batches int
	rows    int64
	size    int64
}

// batchWriter is what the arrowpack and IPC writers have in common.
type batchWriter interface {
	Write(rec arrow.RecordBatch) error
	Close() error
}

// convert writes the batches of in to a new file at outPath: an IPC stream
// if in is an arrowpack stream, an arrowpack stream otherwise. On failure
// it removes the output.
func convert(e *env, in *input, outPath string, comp codec.Compression, show bool) (st convertStats, err error) {
	out, err := os.Create(outPath)
	if err != nil {
		return st, err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("writing %s: %v", outPath, p)
		}
		if cerr := out.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			os.Remove(outPath)
		}
	}()
	bw := bufio.NewWriterSize(out, 1<<20)
	var w batchWriter
	if in.format == formatArrowpack {
		st.format = formatIPCStream
		w = ipc.NewWriter(bw, append([]ipc.Option{ipc.WithSchema(in.Schema())}, ipcCompression(comp)...)...)
	} else {
		st.format = formatArrowpack
		if w, err = codec.NewWriter(bw, in.Schema(), codec.WithCompression(comp)); err != nil {
			return st, fmt.Errorf("%s: %w", in.path, err)
		}
	}
	bar := newProgressBar(e.stderr, "convert", show, e.tty)
	for in.Next() {
		rec := in.RecordBatch()
		if err := w.Write(rec); err != nil {
			return st, fmt.Errorf("writing batch %d to %s: %w", st.batches, outPath, err)
		}
		st.batches++
		st.rows += rec.NumRows()
		bar.update(in.Progress())
	}
	if err := in.Err(); err != nil {
		if bar != nil {
			fmt.Fprintln(e.stderr)
		}
		return st, err
	}
	bar.finish(in.Progress())
	if err := w.Close(); err != nil {
		return st, fmt.Errorf("writing %s: %w", outPath, err)
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("writing %s: %w", outPath, err)
	}
	if fi, err := out.Stat(); err == nil {
		st.size = fi.Size()
	}
	return st, nil
}

// verify reads the input and output files again and compares their schemas
// and their batches one by one.
func verify(e *env, inPath, outPath string, batchRows int, show bool) error {
	in, err := openInput(inPath, batchRows)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := openInput(outPath, batchRows)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer out.Close()
	if !in.Schema().Equal(out.Schema()) {
		return fmt.Errorf("verify: %s has schema %s, the input %s", outPath, out.Schema(), in.Schema())
	}
	bar := newProgressBar(e.stderr, "verify ", show, e.tty)
	for i := 0; ; i++ {
		more, moreOut := in.Next(), out.Next()
		if err := errors.Join(in.Err(), out.Err()); err != nil {
			if bar != nil {
				fmt.Fprintln(e.stderr)
			}
			return fmt.Errorf("verify: %w", err)
		}
		switch {
		case !more && !moreOut:
			bar.finish(out.Progress())
			return nil
		case !moreOut:
			return fmt.Errorf("verify: %s ends after %d batches, the input has more", outPath, i)
		case !more:
			return fmt.Errorf("verify: %s has more than the input's %d batches", outPath, i)
		}
		if !sameBatch(in.RecordBatch(), out.RecordBatch()) {
			return fmt.Errorf("verify: batch %d of %s differs from the input's", i, outPath)
		}
		bar.update(out.Progress())
	}
}

package main

import (
	"flag"
	"fmt"
	"text/tabwriter"
)

const inspectUsage = "arrowpack inspect FILE"

const inspectAbout = `Shows an arrowpack stream's schema, then its blocks, one a line: index,
rows, stored size (header included), raw size (the body uncompressed),
compression, the number of compressed chunks, whether the buffers were
transformed before compression (offsets as lengths, byte transposition),
and status: ok once the block's checksum matched and it decoded
to a sound batch, or the error at the block where reading stopped. Then the
totals. A stream that stops at a bad block ends with exit status 1.
`

func inspectFlags() *flag.FlagSet { return newFlagSet("inspect") }

func runInspect(e *env, args []string) error {
	fs := inspectFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one file, got %d argument(s)", len(pos))
	}
	path := pos[0]
	in, err := openInput(path, defaultBatchRows)
	if err != nil {
		return err
	}
	defer in.Close()
	if in.format != formatArrowpack {
		return fmt.Errorf("%s is an %s, not an arrowpack stream ('arrowpack convert' makes one)", path, in.format)
	}
	fmt.Fprintf(e.stdout, "%s: arrowpack stream, %s\n%s\n\n", path, humanBytes(in.size), in.Schema())

	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "block\trows\tstored\traw\tcompression\tchunks\ttransformed\tstatus\t")
	var blocks int
	var rows, stored, raw int64
	for in.Next() {
		info := in.apk.BlockInfo()
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%s\t%d\t%s\tok\t\n", blocks, info.Rows, info.Size, info.RawSize,
			info.Compression, info.Chunks, yesNo(info.Transformed))
		blocks++
		rows += int64(info.Rows)
		stored += int64(info.Size)
		raw += int64(info.RawSize)
	}
	readErr := in.Err()
	if readErr != nil {
		fmt.Fprintf(tw, "%d\t-\t-\t-\t-\t-\t-\tstopped\t\n", blocks)
	}
	tw.Flush()
	ratio := ""
	if raw > 0 {
		ratio = fmt.Sprintf(" (stored/raw %.3f)", float64(stored)/float64(raw))
	}
	fmt.Fprintf(e.stdout, "\ntotal: %d blocks, %d rows, %d bytes stored, %d bytes raw%s\n", blocks, rows, stored, raw, ratio)
	if readErr != nil {
		fmt.Fprintf(e.stdout, "reading stopped at block %d: %s\n", blocks, oneLine(readErr.Error()))
		return readErr
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

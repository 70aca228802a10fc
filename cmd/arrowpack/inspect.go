package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

const inspectUsage = "arrowpack inspect [-json] FILE"

const inspectAbout = `Shows the format, size and schema of an arrowpack stream, an Arrow IPC
stream or file, or a Parquet file ("-" reads standard input), then its
blocks, one a line, then the totals. -json prints the same as one JSON
object.

The blocks are the batches of a stream or IPC file and the row groups of a
Parquet file (sizes from its footer), each read and checked. For each:
rows, stored bytes, raw bytes (uncompressed), compression; for arrowpack
also the number of sections (each compressed or stored raw) and whether the
buffers were transformed before compression (offsets as lengths, byte
transposition); and the status: ok once the block was read and found sound
(for arrowpack: its checksum matched and it decoded to a sound batch; for
IPC and Parquet: array.ValidateFull passed), or "stopped" at the block where
reading failed. For IPC, stored is the bytes of the batch's messages (in a
stream, with the dictionaries it needed), raw the bytes of its buffers once
read, and the compression is the one its metadata names (lz4, zstd, none).
In -json a size the format does not tell is -1, and so is a total over it.
A file that stops at a bad block ends with exit status 1 and the error on
stderr.
`

type inspectOptions struct {
	json bool
}

func inspectFlags() (*flag.FlagSet, *inspectOptions) {
	o := &inspectOptions{}
	fs := newFlagSet("inspect")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON")
	return fs, o
}

// inspectReport is what inspect prints, as text or JSON.
type inspectReport struct {
	File     string            `json:"file"`
	Format   string            `json:"format"`
	Size     int64             `json:"size"`
	Fields   []fieldReport     `json:"fields"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Blocks   []blockReport     `json:"blocks"`
	Rows     int64             `json:"rows"`
	Stored   int64             `json:"stored_bytes"` // -1 if a block's is unknown
	Raw      int64             `json:"raw_bytes"`    // -1 if a block's is unknown
	Error    string            `json:"error,omitempty"`
}

type fieldReport struct {
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Nullable bool              `json:"nullable"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// blockReport describes a block; sizes are -1 where the format does not
// tell them.
type blockReport struct {
	Index       int    `json:"index"`
	Rows        int64  `json:"rows"`
	Stored      int64  `json:"stored_bytes"`
	Raw         int64  `json:"raw_bytes"`
	Compression string `json:"compression,omitempty"`
	Sections    int    `json:"sections,omitempty"`
	RawSections int    `json:"raw_sections,omitempty"`      // sections stored uncompressed
	RawSecBytes int    `json:"raw_section_bytes,omitempty"` // their bytes
	Transformed bool   `json:"transformed,omitempty"`
	Status      string `json:"status"`
}

func runInspect(e *env, args []string) error {
	fs, o := inspectFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one file, got %d argument(s)", len(pos))
	}
	in, err := openInput(pos[0], e.stdin, defaultBatchRows)
	if err != nil {
		return err
	}
	defer in.Close()
	rep := &inspectReport{File: in.name(), Format: in.format.String(), Fields: fieldReports(in.Schema()),
		Metadata: metadataMap(in.Schema().Metadata())}
	readErr := inspectBlocks(in, rep)
	rep.Size = in.size
	if in.size < 0 {
		rep.Size = in.bytesRead()
	}
	rep.Rows, rep.Stored, rep.Raw = blockTotals(rep.Blocks)
	if readErr != nil {
		rep.Error = oneLine(readErr.Error())
	}
	if o.json {
		if err := printJSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		printInspect(e.stdout, rep)
	}
	return readErr
}

// blockTotals sums the rows and sizes of the blocks read (a "stopped"
// block aside); a total size is -1, unknown, if a block's is.
func blockTotals(blocks []blockReport) (rows, stored, raw int64) {
	for _, b := range blocks {
		if b.Status == "stopped" {
			continue
		}
		rows += b.Rows
		stored, raw = addKnown(stored, b.Stored), addKnown(raw, b.Raw)
	}
	return rows, stored, raw
}

// addKnown returns sum+n, or -1 (unknown) if either is.
func addKnown(sum, n int64) int64 {
	if sum < 0 || n < 0 {
		return -1
	}
	return sum + n
}

// inspectBlocks fills rep.Blocks from in and returns the error that
// stopped the reading, if any.
func inspectBlocks(in *input, rep *inspectReport) error {
	if in.format == formatParquet {
		md := in.pq.MetaData()
		for g := range md.NumRowGroups() {
			rg := md.RowGroup(g)
			b := blockReport{Index: g, Rows: rg.NumRows(), Stored: 0, Raw: 0, Status: "-"}
			var codecs []string
			for c := range rg.NumColumns() {
				cc, err := rg.ColumnChunk(c)
				if err != nil {
					return fmt.Errorf("%s: row group %d column %d: %v", in.name(), g, c, err)
				}
				b.Stored += cc.TotalCompressedSize()
				b.Raw += cc.TotalUncompressedSize()
				if name := parquetCodecName(cc.Compression()); !slices.Contains(codecs, name) {
					codecs = append(codecs, name)
				}
			}
			b.Compression = strings.Join(codecs, ",")
			if err := readRowGroup(in, g); err != nil {
				rep.Blocks = append(rep.Blocks, blockReport{Index: g, Stored: -1, Raw: -1, Status: "stopped"})
				return fmt.Errorf("%s: row group %d: %w", in.name(), g, err)
			}
			b.Status = "ok"
			rep.Blocks = append(rep.Blocks, b)
		}
		return nil
	}
	var fileInfos []ipcBatchInfo
	if in.format == formatIPCFile {
		// The record batch messages of an IPC file follow its 8-byte
		// magic as in a stream, in the order of its footer.
		fileInfos = ipcBatchInfos(io.NewSectionReader(in.ra, 8, max(in.size-8, 0)), ipc.WithBodySizeLimit(max(in.size, 1)))
	}
	for in.Next() {
		rec := in.RecordBatch()
		b := blockReport{Index: len(rep.Blocks), Rows: rec.NumRows(), Stored: -1, Raw: -1, Status: "ok"}
		switch in.format {
		case formatArrowpack:
			info := in.apk.BlockInfo()
			b.Stored, b.Raw = int64(info.Size), int64(info.RawSize)
			b.Compression, b.Sections, b.Transformed = info.Compression.String(), info.Sections, info.Transformed
			b.RawSections, b.RawSecBytes = info.RawSections, info.RawBytes
		case formatIPCStream:
			// The bytes of the messages this batch took (its
			// dictionaries included); raw, its buffers once read.
			b.Stored, b.Raw = in.read.n.Load()-in.batchStart, recordBytes(rec)
			b.Compression = in.ipcTap.last.compression
		case formatIPCFile:
			b.Raw, b.Compression = recordBytes(rec), "?"
			if i := len(rep.Blocks); i < len(fileInfos) {
				b.Stored, b.Compression = fileInfos[i].size, fileInfos[i].compression
			}
		}
		rep.Blocks = append(rep.Blocks, b)
	}
	if err := in.Err(); err != nil {
		rep.Blocks = append(rep.Blocks, blockReport{Index: len(rep.Blocks), Stored: -1, Raw: -1, Status: "stopped"})
		return err
	}
	return nil
}

// readRowGroup reads row group g of a Parquet input, batch by batch, and
// returns the error that stopped it, if any (panics included).
func readRowGroup(in *input, g int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	rr, err := in.pqa.GetRecordReader(context.Background(), nil, []int{g})
	if err != nil {
		return err
	}
	defer rr.Release()
	for b := 0; rr.Next(); b++ {
		if err := validBatch(rr.RecordBatch()); err != nil {
			return fmt.Errorf("batch %d is invalid: %w", b, err)
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// fieldReports describes the fields of s.
func fieldReports(s *arrow.Schema) []fieldReport {
	var fr []fieldReport
	for _, f := range s.Fields() {
		fr = append(fr, fieldReport{Name: f.Name, Type: f.Type.String(), Nullable: f.Nullable, Metadata: metadataMap(f.Metadata)})
	}
	return fr
}

func metadataMap(md arrow.Metadata) map[string]string {
	if md.Len() == 0 {
		return nil
	}
	m := make(map[string]string, md.Len())
	for i, k := range md.Keys() {
		m[k] = md.Values()[i]
	}
	return m
}

// printInspect prints the report as text.
func printInspect(w io.Writer, rep *inspectReport) {
	fmt.Fprintf(w, "%s: %s, %s\n\n", rep.File, rep.Format, humanBytes(rep.Size))
	printSchema(w, rep)
	fmt.Fprintln(w)
	unit := "block"
	if rep.Format == formatParquet.String() {
		unit = "row group"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.ReplaceAll(unit, " ", "_")+"\trows\tstored\traw\tcompression\tsections\ttransformed\tstatus\t")
	dash := func(n int64) string {
		if n < 0 {
			return "-"
		}
		return fmt.Sprint(n)
	}
	for _, b := range rep.Blocks {
		if b.Status == "stopped" {
			fmt.Fprintf(tw, "%d\t-\t-\t-\t-\t-\t-\tstopped\t\n", b.Index)
			continue
		}
		comp, sections, xf := "-", "-", "-"
		if b.Compression != "" {
			comp = b.Compression
		}
		if rep.Format == formatArrowpack.String() {
			sections, xf = fmt.Sprint(b.Sections), yesNo(b.Transformed)
			if b.RawSections > 0 {
				sections = fmt.Sprintf("%d (%d raw, %d bytes)", b.Sections, b.RawSections, b.RawSecBytes)
			}
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", b.Index, b.Rows, dash(b.Stored), dash(b.Raw), comp, sections, xf, b.Status)
	}
	tw.Flush()
	n := len(rep.Blocks)
	if rep.Error != "" {
		n--
	}
	ratio := ""
	if rep.Raw > 0 && rep.Stored > 0 {
		ratio = fmt.Sprintf(" (stored/raw %.3f)", float64(rep.Stored)/float64(rep.Raw))
	}
	fmt.Fprintf(w, "\ntotal: %s, %s", plural(n, unit, unit+"s"), plural(rep.Rows, "row", "rows"))
	if rep.Stored > 0 {
		fmt.Fprintf(w, ", %d bytes stored", rep.Stored)
	}
	if rep.Raw > 0 {
		fmt.Fprintf(w, ", %d bytes raw%s", rep.Raw, ratio)
	}
	fmt.Fprintln(w)
}

// printSchema prints the fields one a line, their metadata at the end of
// the line or indented under them, then the schema's metadata. The
// PARQUET:field_id of -1 that pqarrow gives fields without an id is left
// out (-json shows it).
func printSchema(w io.Writer, rep *inspectReport) {
	fmt.Fprintf(w, "schema: %s\n", plural(len(rep.Fields), "field", "fields"))
	for _, f := range rep.Fields {
		if f.Metadata["PARQUET:field_id"] == "-1" {
			// pqarrow's mark for "no field id": noise on every line.
			f.Metadata = maps.Clone(f.Metadata)
			delete(f.Metadata, "PARQUET:field_id")
		}
		null := ""
		if !f.Nullable {
			null = " not null"
		}
		if inline := inlineMetadata(f.Metadata); inline != "" || len(f.Metadata) == 0 {
			fmt.Fprintf(w, "  %s: %s%s%s\n", escapeText(f.Name), escapeText(f.Type), null, inline)
			continue
		}
		fmt.Fprintf(w, "  %s: %s%s\n", escapeText(f.Name), escapeText(f.Type), null)
		printMetadata(w, "    ", f.Metadata)
	}
	printMetadata(w, "  ", rep.Metadata)
}

// inlineMetadata returns short metadata as "  {k: v, k: v}" for the end
// of a field's line, or "" if there is none or it is too long for that.
func inlineMetadata(md map[string]string) string {
	if len(md) == 0 {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(md) {
		parts = append(parts, escapeText(k)+": "+oneLine(md[k]))
	}
	s := "  {" + strings.Join(parts, ", ") + "}"
	if len(s) > 60 {
		return ""
	}
	return s
}

func sortedKeys(md map[string]string) []string {
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// printMetadata prints metadata one key a line under a "metadata:" line,
// all at indent.
func printMetadata(w io.Writer, indent string, md map[string]string) {
	if len(md) == 0 {
		return
	}
	fmt.Fprintf(w, "%smetadata:\n", indent)
	for _, k := range sortedKeys(md) {
		fmt.Fprintf(w, "%s  %s: %s\n", indent, escapeText(k), oneLine(md[k]))
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// parquetCodecName names a Parquet column chunk's codec as the rest of the
// command names compressions: none for UNCOMPRESSED, lz4 for LZ4_RAW (the
// LZ4 that -compression lz4 writes), lz4-hadoop for the deprecated framed
// LZ4, the others in lower case (snappy, gzip, zstd, brotli).
func parquetCodecName(c compress.Compression) string {
	switch c {
	case compress.Codecs.Uncompressed:
		return "none"
	case compress.Codecs.Lz4Raw:
		return "lz4"
	case compress.Codecs.Lz4:
		return "lz4-hadoop"
	}
	return strings.ToLower(c.String())
}

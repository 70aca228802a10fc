package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

const catUsage = "arrowpack cat [-n N] [-json] [-width W] FILE"

const catAbout = `Prints the rows of an arrowpack stream, an Arrow IPC stream or file, or a
Parquet file ("-" reads standard input): as a table with a header of column
names (nulls shown as null, cells cut to -width characters), or with -json
as JSON lines, one object a row with the columns in order. -n stops after N
rows.
`

const headUsage = "arrowpack head [-n N] [-json] [-width W] FILE"

const headAbout = `Prints the first -n rows (10 by default) of a file, as cat does.
`

type catOptions struct {
	n         int64
	json      bool
	width     int
	batchRows int
}

func catFlags(name string) (*flag.FlagSet, *catOptions) {
	o := &catOptions{}
	fs := newFlagSet(name)
	def := int64(0)
	help := "print at most `n` rows (0: all)"
	if name == "head" {
		def, help = 10, "print the first `n` rows"
	}
	fs.Int64Var(&o.n, "n", def, help)
	fs.BoolVar(&o.json, "json", false, "print JSON lines, one object a row, instead of a table")
	fs.IntVar(&o.width, "width", 40, "cut table cells to `w` characters (0: never)")
	fs.IntVar(&o.batchRows, "batch-rows", defaultBatchRows, "read a Parquet input `n` rows per batch")
	return fs, o
}

func runCat(e *env, args []string) error  { return catCommand(e, "cat", args) }
func runHead(e *env, args []string) error { return catCommand(e, "head", args) }

func catCommand(e *env, name string, args []string) error {
	fs, o := catFlags(name)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one file, got %d argument(s)", len(pos))
	}
	if o.n < 0 || (name == "head" && o.n == 0) {
		return usagef("-n must be above 0")
	}
	if o.width < 0 || o.batchRows <= 0 {
		return usagef("-width must be 0 or more and -batch-rows above 0")
	}
	in, err := openInput(pos[0], e.stdin, o.batchRows)
	if err != nil {
		return err
	}
	defer in.Close()
	w := bufio.NewWriter(e.stdout)
	var p rowPrinter = &tablePrinter{width: o.width}
	if o.json {
		p = &jsonPrinter{}
	}
	left := o.n
	for (o.n == 0 || left > 0) && in.Next() {
		rec := in.RecordBatch()
		n := rec.NumRows()
		if o.n > 0 {
			n = min(n, left)
			left -= n
		}
		if err := p.print(w, rec, n); err != nil {
			return err
		}
	}
	if err := p.flush(w, in.Schema()); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return in.Err()
}

// rowPrinter prints rows of batches.
type rowPrinter interface {
	// print prints the first n rows of rec.
	print(w io.Writer, rec arrow.RecordBatch, n int64) error
	// flush ends the output; schema is for a header when no row came.
	flush(w io.Writer, schema *arrow.Schema) error
}

// tablePrinter prints rows as a table, aligned batch by batch, with a
// header of column names.
type tablePrinter struct {
	width  int
	header bool
}

func (t *tablePrinter) print(w io.Writer, rec arrow.RecordBatch, n int64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if !t.header {
		t.printHeader(tw, rec.Schema())
	}
	row := make([]string, rec.NumCols())
	for i := range int(n) {
		for c, col := range rec.Columns() {
			if col.IsNull(i) {
				row[c] = "null"
			} else {
				row[c] = t.cell(cellText(col, i))
			}
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

func (t *tablePrinter) printHeader(w io.Writer, schema *arrow.Schema) {
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = t.cell(f.Name)
	}
	fmt.Fprintln(w, strings.Join(names, "\t"))
	t.header = true
}

func (t *tablePrinter) flush(w io.Writer, schema *arrow.Schema) error {
	if !t.header {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		t.printHeader(tw, schema)
		return tw.Flush()
	}
	return nil
}

// cell makes s fit in a table cell: control characters escaped, cut to
// the width with "…".
func (t *tablePrinter) cell(s string) string {
	s = strings.NewReplacer("\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
	if t.width > 0 && utf8.RuneCountInString(s) > t.width {
		r := []rune(s)
		s = string(r[:max(t.width-1, 0)]) + "…"
	}
	return s
}

// jsonPrinter prints rows as JSON lines: one object a row, its keys the
// column names in order.
type jsonPrinter struct{}

func (jsonPrinter) print(w io.Writer, rec arrow.RecordBatch, n int64) error {
	names := make([][]byte, rec.NumCols())
	for c, f := range rec.Schema().Fields() {
		names[c], _ = json.Marshal(f.Name)
	}
	var line []byte
	for i := range int(n) {
		line = append(line[:0], '{')
		for c, col := range rec.Columns() {
			if c > 0 {
				line = append(line, ',')
			}
			line = append(append(line, names[c]...), ':')
			v, err := json.Marshal(col.GetOneForMarshal(i))
			if err != nil {
				return fmt.Errorf("row %d column %s: %w", i, rec.ColumnName(c), err)
			}
			line = append(line, v...)
		}
		line = append(line, '}', '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

func (jsonPrinter) flush(io.Writer, *arrow.Schema) error { return nil }

// cellText returns the text of value i of col for a table: binary values
// as text when they are printable UTF-8, else in hex; the rest as arrow-go
// prints them.
func cellText(col arrow.Array, i int) string {
	if b, ok := col.(interface{ Value(int) []byte }); ok {
		v := b.Value(i)
		if utf8.Valid(v) && !strings.ContainsFunc(string(v), func(r rune) bool { return !unicode.IsPrint(r) && !unicode.IsSpace(r) }) {
			return string(v)
		}
		return fmt.Sprintf("0x%x", v)
	}
	return col.ValueStr(i)
}

package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

const catUsage = "arrowpack cat [-n N] [-json] [-width W] FILE..."

const catAbout = `Prints the rows of arrowpack streams, Arrow IPC streams or files, or
Parquet files ("-" reads standard input), one file after the other, as
cat(1) does; the files must have the same fields. As a table: a header of
column names, the columns as wide as their widest cell among the first
rows printed (cells cut to -width characters). With -json: JSON lines, one
object a row, its keys the column names in order. -n stops after N rows
(-nN and, for head, -N work too).

The values print alike in tables and JSON: null as null at any depth;
binary as its text when it is printable UTF-8, else 0x and its bytes in
hex; characters that would not show as themselves (controls, escape
sequences, bidi overrides) escaped, as \x1b in tables and \u001b in JSON; decimals with the digits of their scale (1.00); NaN and infinities as
"NaN", "+Inf", "-Inf"; structs as objects of their fields in schema order
(a field name that repeats an earlier one in the same struct as
NAME#INDEX), lists and maps as arrays. JSON strings keep <, > and & as
they are.
`

const headUsage = "arrowpack head [-n N] [-json] [-width W] FILE..."

const headAbout = `Prints the first -n rows (10 by default) of the files, as cat does.
`

// tableSampleRows is how many rows the widths of a table's columns are
// measured on before it is printed: later rows do not move the columns.
const tableSampleRows = 1000

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

var (
	attachedN = regexp.MustCompile(`^--?n([0-9]+)$`) // -n3
	bareN     = regexp.MustCompile(`^-([0-9]+)$`)    // head -5
)

// countArgs rewrites the counts head(1) users type, -n3 and (for head)
// -5, as -n 3 and -n 5; the value of a flag (-n -1) is left as it is.
func countArgs(name string, args []string) []string {
	out := make([]string, 0, len(args)+1)
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if i > 0 && (args[i-1] == "-n" || args[i-1] == "--n" || args[i-1] == "-width" || args[i-1] == "-batch-rows") {
			out = append(out, a)
			continue
		}
		if m := attachedN.FindStringSubmatch(a); m != nil {
			out = append(out, "-n", m[1])
			continue
		}
		if m := bareN.FindStringSubmatch(a); m != nil && name == "head" {
			out = append(out, "-n", m[1])
			continue
		}
		out = append(out, a)
	}
	return out
}

func catCommand(e *env, name string, args []string) error {
	fs, o := catFlags(name)
	pos, err := parseArgs(fs, countArgs(name, args))
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("want a file")
	}
	switch {
	case name == "head" && o.n <= 0:
		return usagef("-n must be above 0, not %d", o.n)
	case o.n < 0:
		return usagef("-n must be 0 (every row) or above, not %d", o.n)
	}
	if o.width < 0 || o.batchRows <= 0 {
		return usagef("-width must be 0 or more and -batch-rows above 0")
	}
	stdins := 0
	for _, p := range pos {
		if p == "-" {
			stdins++
		}
	}
	if stdins > 1 {
		return usagef("standard input (-) can be read only once")
	}
	w := bufio.NewWriter(e.stdout)
	var p rowPrinter = &tablePrinter{width: o.width}
	if o.json {
		p = &jsonPrinter{}
	}
	left := o.n
	var first *arrow.Schema
	var firstName string
	var readErr error
	for _, path := range pos {
		if o.n > 0 && left == 0 {
			break
		}
		in, err := openInput(path, e.stdin, o.batchRows)
		if err != nil {
			readErr = err
			break
		}
		if first == nil {
			first, firstName = in.Schema(), in.name()
		} else if diff := fieldsDiff(first, in.Schema()); diff != "" {
			in.Close()
			readErr = fmt.Errorf("%s has other fields than %s: %s", in.name(), firstName, diff)
			break
		}
		for (o.n == 0 || left > 0) && in.Next() {
			rec := in.RecordBatch()
			n := rec.NumRows()
			if o.n > 0 {
				n = min(n, left)
				left -= n
			}
			if err := p.print(w, rec, n); err != nil {
				in.Close()
				return err
			}
		}
		readErr = in.Err()
		in.Close()
		if readErr != nil {
			break
		}
	}
	// What was read before a failure is printed, then the failure told.
	if first != nil {
		if err := p.flush(w, first); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return readErr
}

// rowPrinter prints rows of batches.
type rowPrinter interface {
	// print prints the first n rows of rec.
	print(w io.Writer, rec arrow.RecordBatch, n int64) error
	// flush ends the output; schema is for a header when no row came.
	flush(w io.Writer, schema *arrow.Schema) error
}

// tablePrinter prints rows as a table with a header of column names. It
// holds the first tableSampleRows rows, sets the widths of the columns from
// them and the header, and prints every row with those widths: a cell
// wider than its column later on pushes the rest of its row only.
type tablePrinter struct {
	width  int
	widths []int      // set once the sample is printed
	held   [][]string // the header and the sample, before the widths are set
}

func (t *tablePrinter) print(w io.Writer, rec arrow.RecordBatch, n int64) error {
	if t.widths == nil && t.held == nil {
		t.held = append(t.held, t.header(rec.Schema()))
	}
	for i := range int(n) {
		row := make([]string, rec.NumCols())
		for c, col := range rec.Columns() {
			s, err := cellText(col, i)
			if err != nil {
				return fmt.Errorf("row %d column %s: %w", i, rec.ColumnName(c), err)
			}
			row[c] = t.cell(s)
		}
		if t.widths != nil {
			if err := t.printRow(w, row); err != nil {
				return err
			}
			continue
		}
		t.held = append(t.held, row)
		if len(t.held) > tableSampleRows {
			if err := t.printHeld(w); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *tablePrinter) header(schema *arrow.Schema) []string {
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = t.cell(f.Name)
	}
	return names
}

// printHeld sets the widths from the rows held and prints them.
func (t *tablePrinter) printHeld(w io.Writer) error {
	t.widths = make([]int, len(t.held[0]))
	for _, row := range t.held {
		for c, s := range row {
			t.widths[c] = max(t.widths[c], displayWidth(s))
		}
	}
	for _, row := range t.held {
		if err := t.printRow(w, row); err != nil {
			return err
		}
	}
	t.held = nil
	return nil
}

// printRow prints the cells of a row padded to the widths, two spaces
// apart, with no trailing spaces.
func (t *tablePrinter) printRow(w io.Writer, row []string) error {
	var b strings.Builder
	pad := 0
	for c, s := range row {
		if c > 0 {
			b.WriteString(strings.Repeat(" ", pad+2))
		}
		b.WriteString(s)
		pad = max(t.widths[c]-displayWidth(s), 0)
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

func (t *tablePrinter) flush(w io.Writer, schema *arrow.Schema) error {
	if t.widths == nil && t.held == nil {
		t.held = append(t.held, t.header(schema))
	}
	if t.held != nil {
		return t.printHeld(w)
	}
	return nil
}

// cell makes s fit in a table cell: every character that does not show as
// itself escaped (escapeText), cut to the width in terminal columns
// (displayWidth) with "…".
func (t *tablePrinter) cell(s string) string {
	s = escapeText(s)
	if t.width > 0 && displayWidth(s) > t.width {
		s = cutToWidth(s, t.width-1) + "…"
	}
	return s
}

// jsonPrinter prints rows as JSON lines: one object a row, its keys the
// column names in order.
type jsonPrinter struct{}

func (jsonPrinter) print(w io.Writer, rec arrow.RecordBatch, n int64) error {
	keys := objectKeys(rec.Schema().Fields())
	names := make([][]byte, len(keys))
	for c, k := range keys {
		names[c] = appendJSONString(nil, k)
	}
	var line []byte
	for i := range int(n) {
		line = append(line[:0], '{')
		for c, col := range rec.Columns() {
			if c > 0 {
				line = append(line, ',')
			}
			line = append(append(line, names[c]...), ':')
			var err error
			if line, err = appendJSON(line, col, i); err != nil {
				return fmt.Errorf("row %d column %s: %w", i, rec.ColumnName(c), err)
			}
		}
		line = append(line, '}', '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

func (jsonPrinter) flush(io.Writer, *arrow.Schema) error { return nil }

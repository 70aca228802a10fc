// Command arrowpack measures arrowpack against Arrow IPC, converts Arrow IPC
// and Parquet files to arrowpack streams and back, and inspects arrowpack
// streams.
//
// Usage:
//
//	arrowpack [bench] [-input FILE] [-svg FILE] [-json] [-benchtime D]
//	arrowpack convert [-compression none|lz4|zstd] [-verify] IN OUT
//	arrowpack inspect FILE
//	arrowpack help [COMMAND]
//
// With no arguments it runs bench on its built-in batches: a TPC-H
// lineitem-like batch first, then strings, wide numeric, nested and
// dictionary batches, each encoded and decoded by arrowpack and by arrow-go's
// IPC, uncompressed, with LZ4 and with zstd, and prints a table of the
// results.
//
// Bad arguments end with exit status 2, failures (a file that cannot be
// read, a corrupt block) with 1, always with a one-line message on stderr.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// env is what a command writes to: its output, its messages and progress,
// and whether the messages go to a terminal (where a progress bar can
// redraw itself).
type env struct {
	stdout, stderr io.Writer
	tty            bool
}

// command is a subcommand: its name, a line of usage, a description and the
// function that runs it.
type command struct {
	name, usage, about string
	run                func(e *env, args []string) error
	flags              func() *flag.FlagSet // the command's flags, for help
}

func commands() []command {
	return []command{
		{"bench", benchUsage, benchAbout, runBench, func() *flag.FlagSet { fs, _ := benchFlags(); return fs }},
		{"convert", convertUsage, convertAbout, runConvert, func() *flag.FlagSet { fs, _ := convertFlags(); return fs }},
		{"inspect", inspectUsage, inspectAbout, runInspect, inspectFlags},
	}
}

// extraCommands are commands the tests add.
var extraCommands []command

func lookup(name string) (command, bool) {
	for _, c := range append(commands(), extraCommands...) {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

const mainUsage = `arrowpack encodes Arrow record batches as arrowpack blocks and compares them
with Arrow IPC.

Usage:
  arrowpack [bench] [-input FILE] [-svg FILE] [-json] [-benchtime D]
  arrowpack convert [-compression none|lz4|zstd] [-verify] [-progress] IN OUT
  arrowpack inspect FILE
  arrowpack help [COMMAND]

Commands:
  bench     measure arrowpack against Arrow IPC (the default)
  convert   Arrow IPC or Parquet to an arrowpack stream, and back to IPC
  inspect   show an arrowpack stream's schema and blocks

Run 'arrowpack help COMMAND' for a command's flags.
`

// usageError is a mistake in the arguments: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// run runs the command line args (without the program name) and returns the
// exit status: 0, 1 for a failure, 2 for bad arguments.
func run(args []string, stdout, stderr io.Writer) (code int) {
	e := &env{stdout: stdout, stderr: stderr, tty: isTerminal(stderr)}
	name := "bench"
	defer func() {
		// The last resort: whatever went wrong, one line and no stack.
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "arrowpack %s: internal error: %s\n", name, oneLine(fmt.Sprint(p)))
			code = 1
		}
	}()
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "help" || a == "-h" || a == "-help" || a == "--help":
			return help(e, args[1:])
		case !strings.HasPrefix(a, "-"):
			name, args = a, args[1:]
		}
	}
	cmd, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "arrowpack: unknown command %q (run 'arrowpack help')\n", name)
		return 2
	}
	err := cmd.run(e, args)
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		printCommandHelp(stdout, cmd)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "arrowpack %s: %s (run 'arrowpack help %s')\n", name, oneLine(ue.msg), name)
		return 2
	default:
		fmt.Fprintf(stderr, "arrowpack %s: %s\n", name, oneLine(err.Error()))
		return 1
	}
}

// help prints the usage of the program or of one command.
func help(e *env, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(e.stdout, mainUsage)
		return 0
	}
	cmd, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(e.stderr, "arrowpack help: unknown command %q (run 'arrowpack help')\n", args[0])
		return 2
	}
	printCommandHelp(e.stdout, cmd)
	return 0
}

func printCommandHelp(w io.Writer, cmd command) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\nFlags:\n", cmd.usage, cmd.about)
	fs := cmd.flags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// newFlagSet returns a flag set that reports errors to the caller instead
// of printing them.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseArgs parses flags and positional arguments in any order ("IN OUT
// -verify" as well as "-verify IN OUT"); everything after "--" is
// positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// humanBytes formats a byte count as "512 B", "1.5 KiB", "12.3 MiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// Command arrowpack converts record batches between arrowpack streams,
// Arrow IPC streams and files, and Parquet files; prints their rows and
// describes their blocks; and measures arrowpack against Arrow IPC.
//
// Usage:
//
//	arrowpack bench [-input FILE] [-svg FILE] [-json] [-benchtime D] [-compression LIST]
//	arrowpack convert [-to FORMAT] [-f] [-no-sync] [-compression none|lz4|zstd|minlz|light] [-verify] IN OUT
//	arrowpack cat [-n N] [-json] FILE...
//	arrowpack head [-n N] [-json] FILE...
//	arrowpack inspect [-json] FILE
//	arrowpack version
//	arrowpack help [COMMAND]
//
// "-" as a file name means standard input or output. With no arguments it
// prints its usage and exits with status 2.
//
// Bad arguments end with exit status 2, failures (a file that cannot be
// read, a corrupt block) with 1, always with a one-line message on stderr.
// SIGINT or SIGTERM remove the output a command was writing (the target
// stays as it was) and end with status 128+signal.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(runInterruptible(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, notifySignals()))
}

// env is what a command reads from and writes to: standard input, its
// output, its messages and progress, and whether the messages go to a
// terminal (where a progress bar can redraw itself); and its context,
// cancelled by SIGINT or SIGTERM (the error it ends with is
// e.interruption()).
type env struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	tty            bool
}

// command is a subcommand: its name, a line of usage, a line for the list
// of commands, a description and the function that runs it.
type command struct {
	name, usage, short, about string
	run                       func(e *env, args []string) error
	flags                     func() *flag.FlagSet // the command's flags, for help
}

func commands() []command {
	cmds := []command{
		{"bench", benchUsage, "measure arrowpack against Arrow IPC", benchAbout, runBench,
			func() *flag.FlagSet { fs, _ := benchFlags(); return fs }},
		{"convert", convertUsage, "convert between arrowpack, Arrow IPC and Parquet", convertAbout, runConvert,
			func() *flag.FlagSet { fs, _ := convertFlags(); return fs }},
		{"cat", catUsage, "print the rows of files as a table or JSON lines", catAbout, runCat,
			func() *flag.FlagSet { fs, _ := catFlags("cat"); return fs }},
		{"head", headUsage, "print the first rows of files (cat -n 10)", headAbout, runHead,
			func() *flag.FlagSet { fs, _ := catFlags("head"); return fs }},
		{"inspect", inspectUsage, "show a file's schema and blocks", inspectAbout, runInspect,
			func() *flag.FlagSet { fs, _ := inspectFlags(); return fs }},
		{"version", versionUsage, "print the versions and the kernels in use", versionAbout, runVersion,
			func() *flag.FlagSet { return newFlagSet("version") }},
	}
	return append(cmds, registered...)
}

// registered are commands that files of their own add with register (the
// Flight commands, say), listed after the built-in ones.
var registered []command

// register adds a command; call it from an init function.
func register(c command) { registered = append(registered, c) }

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

// mainUsage returns the program's help: what it does and its commands, one
// a line.
func mainUsage() string {
	var b strings.Builder
	b.WriteString(`arrowpack converts record batches between arrowpack streams, Arrow IPC and
Parquet, prints and inspects them, and measures arrowpack against Arrow IPC.

Usage:
  arrowpack COMMAND [FLAGS] [FILES]    ("-" is standard input or output)
  arrowpack -version

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.short)
	}
	fmt.Fprintf(&b, "  %-9s %s\n", "help", "show a command's usage and flags")
	b.WriteString("\nRun 'arrowpack help COMMAND' for a command's flags.\n")
	return b.String()
}

// usageError is a mistake in the arguments: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// run runs the command line args (without the program name) and returns the
// exit status: 0, 1 for a failure, 2 for bad arguments.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// commandName returns the name of the command args (without the program
// name) run, "" for help or none.
func commandName(args []string) string {
	if len(args) == 0 {
		return ""
	}
	switch a := args[0]; {
	case a == "-version" || a == "--version":
		return "version"
	case !strings.HasPrefix(a, "-") && a != "help":
		return a
	}
	return ""
}

// runContext is run with a context the command can watch (main's is
// cancelled by a signal).
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, tty: isTerminal(stderr)}
	name := ""
	defer func() {
		// The last resort: whatever went wrong, one line and no stack.
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "arrowpack %s: internal error: %s\n", name, oneLine(fmt.Sprint(p)))
			code = 1
		}
	}()
	if len(args) == 0 {
		// Running a long benchmark unasked is no answer to a bare name.
		fmt.Fprint(stderr, mainUsage())
		return 2
	}
	switch a := args[0]; {
	case a == "help" || a == "-h" || a == "-help" || a == "--help":
		return help(e, args[1:])
	case a == "-version" || a == "--version":
		name, args = "version", args[1:]
	case strings.HasPrefix(a, "-"):
		fmt.Fprintf(stderr, "arrowpack: unknown flag %s: flags go after the command (run 'arrowpack help')\n", a)
		return 2
	default:
		name, args = a, args[1:]
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
		fmt.Fprint(e.stdout, mainUsage())
		return 0
	}
	if args[0] == "help" {
		fmt.Fprint(e.stdout, "Usage: arrowpack help [COMMAND]\n\nLists the commands, or shows a command's usage, description and flags.\n")
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

// printCommandHelp prints a command's usage, description and flags (no
// "Flags:" heading when it has none).
func printCommandHelp(w io.Writer, cmd command) {
	fmt.Fprintf(w, "Usage: %s\n\n%s", cmd.usage, cmd.about)
	if cmd.flags == nil {
		return
	}
	fs := cmd.flags()
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintln(w, "\nFlags:")
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

// oneLine folds a message onto one line, with what it quotes from a file
// (a column's name, say) escaped where it would not show as itself.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return escapeText(strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " "))
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

// plural returns "1 batch", "2 batches": n and the noun, in the plural
// unless n is 1.
func plural[N int | int64](n N, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// printJSON writes v to w as indented JSON, what does not show as itself
// escaped (appendJSONText).
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(appendJSONText(nil, b), '\n'))
	return err
}

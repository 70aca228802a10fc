package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
)

const lsUsage = "arrowpack ls -addr HOST:PORT [-json] [PREFIX]"

const lsAbout = `Lists the streams an Arrow Flight server such as 'arrowpack serve' stores
(ListFlights): the path of each, its rows and its bytes, "-" where the
server does not know them. With PREFIX, only the paths that start with it.
-json prints a JSON array of {"path", "rows", "bytes"}, -1 for unknown.
'arrowpack list' is the same command.
`

type lsOptions struct {
	*flightOptions
	json bool
}

func lsFlags(name string) (*flag.FlagSet, *lsOptions) {
	fs, fo := flightFlags(name)
	o := &lsOptions{flightOptions: fo}
	fs.BoolVar(&o.json, "json", false, "print JSON instead of a table")
	return fs, o
}

// listed is a stream as ls shows it.
type listed struct {
	Path  string `json:"path"`
	Rows  int64  `json:"rows"`  // -1 if unknown
	Bytes int64  `json:"bytes"` // -1 if unknown
}

// runList runs ls, or list.
func runList(name string) func(e *env, args []string) error {
	return func(e *env, args []string) (err error) {
		defer func() { err = interruptedErr(e, err) }()
		fs, o := lsFlags(name)
		pos, err := parseArgs(fs, args)
		if err != nil {
			return err
		}
		if len(pos) > 1 {
			return usagef("want at most one path prefix, got %d arguments", len(pos))
		}
		if err := o.check(); err != nil {
			return err
		}
		var crit aflight.Criteria
		if len(pos) == 1 {
			crit.Expression = []byte(pos[0])
		}
		c, ctx, done, err := dialFlight(e, o.flightOptions)
		if err != nil {
			return err
		}
		defer done()
		stream, err := c.ListFlights(ctx, &crit)
		if err != nil {
			return fmt.Errorf("listing %s: %w", o.addr, err)
		}
		streams := []listed{}
		for {
			info, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("listing %s: %w", o.addr, err)
			}
			streams = append(streams, listed{Path: flightName(info), Rows: info.TotalRecords, Bytes: info.TotalBytes})
		}
		if o.json {
			return printJSON(e.stdout, streams)
		}
		if len(streams) == 0 {
			if len(pos) == 1 {
				fmt.Fprintf(e.stderr, "no stream stored on %s has a path starting with %q\n", o.addr, pos[0])
			} else {
				fmt.Fprintf(e.stderr, "no streams stored on %s\n", o.addr)
			}
			return nil
		}
		return printListed(e.stdout, streams)
	}
}

// flightName is how ls names a stream: its descriptor's path, elements
// joined with "/", or else what its descriptor or ticket holds.
func flightName(info *aflight.FlightInfo) string {
	d := info.FlightDescriptor
	switch {
	case d != nil && d.Type == aflight.DescriptorPATH:
		return strings.Join(d.Path, "/")
	case d != nil && len(d.Cmd) > 0:
		return strconv.Quote(string(d.Cmd))
	case len(info.Endpoint) > 0 && info.Endpoint[0].Ticket != nil:
		return strconv.Quote(string(info.Endpoint[0].Ticket.Ticket))
	}
	return "?"
}

// printListed prints streams as a table: the paths to the left, rows and
// bytes to the right.
func printListed(w io.Writer, streams []listed) error {
	count := func(n int64) string {
		if n < 0 {
			return "-"
		}
		return strconv.FormatInt(n, 10)
	}
	rows := [][3]string{{"PATH", "ROWS", "BYTES"}}
	for _, s := range streams {
		rows = append(rows, [3]string{escapeText(s.Path), count(s.Rows), count(s.Bytes)})
	}
	var wide [3]int
	for _, r := range rows {
		for i, c := range r {
			wide[i] = max(wide[i], len(c))
		}
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%-*s  %*s  %*s\n", wide[0], r[0], wide[1], r[1], wide[2], r[2]); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	register(command{"ls", lsUsage, "list the streams a Flight server stores", lsAbout, runList("ls"),
		func() *flag.FlagSet { fs, _ := lsFlags("ls"); return fs }})
	register(command{"list", strings.Replace(lsUsage, " ls ", " list ", 1), "same as ls", lsAbout, runList("list"),
		func() *flag.FlagSet { fs, _ := lsFlags("list"); return fs }})
}

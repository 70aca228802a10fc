package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/flight"
)

const getUsage = "arrowpack get -addr HOST:PORT [-to FORMAT] [-f] [-no-sync] [-ipc] [-compression " + compressionChoices + "] PATH OUT"

const getAbout = `Gets the stream stored under the descriptor path PATH (names separated by
single '/', as put takes them) from an Arrow Flight server such as 'arrowpack serve' and writes it
to OUT in the format -to names (arrowpack, ipc, ipc-file, parquet) or else
the one OUT's extension stands for, as convert does; a name without an
extension, and "-" (standard output), get an arrowpack stream.

The server is asked for arrowpack blocks compressed with -compression, which
also compresses the output; -ipc asks for plain Arrow IPC instead, as any
Flight client would.

The output is written to a temporary file next to it, synced and renamed
into place only once complete (-no-sync skips the syncs): a failed or
interrupted get leaves the target as it was, a finished one survives a
crash. An existing output is replaced only with -f. The summary goes to
standard error.
`

type getOptions struct {
	*flightOptions
	out             *outputOptions
	compression, to string
	ipc             bool
}

func getFlags() (*flag.FlagSet, *getOptions) {
	fs, fo := flightFlags("get")
	o := &getOptions{flightOptions: fo}
	fs.StringVar(&o.compression, "compression", "lz4", "compression of the blocks on the wire and of the output: "+compressionNames)
	fs.BoolVar(&o.ipc, "ipc", false, "ask for Arrow IPC instead of arrowpack blocks")
	fs.StringVar(&o.to, "to", "", "output `format`: arrowpack, ipc, ipc-file or parquet (default: from the output's extension; arrowpack without one)")
	o.out = outputFlags(fs)
	return fs, o
}

// getFormat chooses the format get writes to out: convert's rules
// (outputFormat), except that an output whose name has no extension, or
// stdout, is an arrowpack stream, as get has always written.
func getFormat(to, out string) (format, error) {
	if to == "" && (out == "-" || filepath.Ext(out) == "") {
		to = "arrowpack"
	}
	return outputFormat(to, out)
}

func runGet(e *env, args []string) (err error) {
	defer func() { err = interruptedErr(e, err) }()
	fs, o := getFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want a path and an output file, got %d argument(s)", len(pos))
	}
	if err := o.check(); err != nil {
		return err
	}
	comp, err := parseCompression(o.compression)
	if err != nil {
		return err
	}
	path, err := descriptorPath(pos[0])
	if err != nil {
		return err
	}
	name, outPath := strings.Join(path, "/"), pos[1]
	// Fail on an existing output before fetching anything.
	out, err := createGetOutput(e, o.out, o.to, outPath)
	if err != nil {
		return err
	}
	defer out.abort() // on any error; a no-op once committed
	outFormat, sf, sink, outName := out.format, out.sf, out.sink, out.name

	c, ctx, done, err := dialFlight(e, o.flightOptions)
	if err != nil {
		return err
	}
	defer done()
	info, err := c.GetFlightInfo(ctx, &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
	if err != nil {
		return fmt.Errorf("get %s: %w", name, err)
	}
	if len(info.Endpoint) == 0 || info.Endpoint[0].Ticket == nil {
		return fmt.Errorf("get %s: the server gave no endpoint", name)
	}
	wire := "Arrow IPC"
	if !o.ipc {
		ctx, wire = flight.Accept(ctx, comp), "arrowpack"
	}
	stream, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return fmt.Errorf("get %s: %w", name, err)
	}
	r, err := flight.NewReader(stream)
	if err != nil {
		return fmt.Errorf("get %s: %w", name, err)
	}
	defer r.Release()
	wo := writeOptions{compression: comp, concurrency: 1}
	if outFormat == formatParquet {
		// Say what Parquet will change before anything is written.
		changes, err := parquetTypeChanges(r.Schema(), wo)
		if err != nil {
			return fmt.Errorf("get %s -> %s: %w", name, outName, err)
		}
		for _, c := range changes {
			fmt.Fprintf(e.stderr, "arrowpack get: warning: %s\n", c)
		}
	}
	st, err := writeFlight(sink, r, outFormat, wo)
	if err != nil {
		return fmt.Errorf("get %s -> %s: %w", name, outName, err)
	}
	if sf != nil {
		if err := sf.Commit(); err != nil {
			return fmt.Errorf("writing %s: %w", outPath, err)
		}
	}
	fmt.Fprintf(e.stderr, "%s %s -> %s (%s, %s; %s on the wire): %s, %s\n", o.addr, name, outName, outFormat, comp, wire,
		plural(st.batches, "batch", "batches"), plural(st.rows, "row", "rows"))
	return nil
}

// getOutput is where get and fetch write: a file (sf) or stdout.
type getOutput struct {
	format format
	sf     *safeFile // nil for stdout
	sink   io.Writer
	name   string
}

// createGetOutput chooses the format of outPath (getFormat), refuses a
// binary output to a terminal, and creates the file (refusing an existing
// one unless out says so) before anything is fetched.
func createGetOutput(e *env, out *outputOptions, to, outPath string) (getOutput, error) {
	f, err := getFormat(to, outPath)
	if err != nil {
		return getOutput{}, err
	}
	if outPath == "-" {
		if isTerminal(e.stdout) {
			return getOutput{}, usagef("will not write a binary %s to a terminal: redirect stdout or name a file", f)
		}
		return getOutput{format: f, sink: e.stdout, name: "stdout"}, nil
	}
	sf, err := out.create(outPath)
	if err != nil {
		return getOutput{}, err
	}
	return getOutput{format: f, sf: sf, sink: sf, name: outPath}, nil
}

// abort removes an output file not yet committed.
func (g getOutput) abort() {
	if g.sf != nil {
		g.sf.Abort()
	}
}

// writeFlight writes the batches of r to w in format f as o says. On error
// what it wrote is incomplete.
func writeFlight(w io.Writer, r array.RecordReader, f format, o writeOptions) (st convertStats, err error) {
	defer func() {
		if p := recover(); p != nil { // arrow-go's writers panic on some inputs
			err = fmt.Errorf("%v", p)
		}
	}()
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	bwr, err := newBatchWriter(bw, f, r.Schema(), o)
	if err != nil {
		return st, err
	}
	for r.Next() {
		rec := r.RecordBatch()
		if err := bwr.Write(rec); err != nil {
			return st, err
		}
		st.batches++
		st.rows += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		return st, err
	}
	if err := bwr.Close(); err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, err
	}
	st.size = cw.n
	return st, nil
}

func init() {
	register(command{"get", getUsage, "get a stream from a Flight server into a file", getAbout, runGet,
		func() *flag.FlagSet { fs, _ := getFlags(); return fs }})
}

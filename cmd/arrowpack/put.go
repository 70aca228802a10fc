package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const putUsage = "arrowpack put -addr HOST:PORT [-f] [-compression " + compressionChoices + "] [-batch-rows N] [-block-rows N] FILE PATH"

const putAbout = `Puts a file (an arrowpack stream, an Arrow IPC file or stream, or a
Parquet file) to an Arrow Flight server such as 'arrowpack serve', as
arrowpack blocks, under the descriptor path PATH: names separated by
single '/', with none before the first or after the last (tables/lineitem;
/tables and tables//lineitem are refused). "-" reads standard input.

A stream already stored under PATH is replaced only with -f; without it
the put is refused and the stored stream stays as it was.
`

type putOptions struct {
	*flightOptions
	compression string
	force       bool
	batchRows   int
	blockRows   int
}

func putFlags() (*flag.FlagSet, *putOptions) {
	fs, fo := flightFlags("put")
	o := &putOptions{flightOptions: fo}
	fs.StringVar(&o.compression, "compression", "lz4", "compression of the blocks on the wire (and so of the stored stream): "+compressionNames)
	fs.BoolVar(&o.force, "f", false, "replace the stream stored under PATH if there is one")
	fs.BoolVar(&o.force, "force", false, "same as -f")
	fs.IntVar(&o.batchRows, "batch-rows", defaultBatchRows, "read a Parquet input `n` rows per batch")
	fs.IntVar(&o.blockRows, "block-rows", 0, "gather small batches into blocks of this many `rows` before sending (0: a block per batch)")
	return fs, o
}

func runPut(e *env, args []string) (err error) {
	defer func() { err = interruptedErr(e, err) }()
	fs, o := putFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want a file and a path, got %d argument(s)", len(pos))
	}
	if err := o.check(); err != nil {
		return err
	}
	if o.batchRows <= 0 {
		return usagef("-batch-rows must be above 0")
	}
	if o.blockRows < 0 {
		return usagef("-block-rows must be 0 or above")
	}
	comp, err := parseCompression(o.compression)
	if err != nil {
		return err
	}
	path, err := descriptorPath(pos[1])
	if err != nil {
		return err
	}
	name := strings.Join(path, "/")
	in, err := openInput(pos[0], e.stdin, o.batchRows)
	if err != nil {
		return err
	}
	defer in.Close()
	c, ctx, done, err := dialFlight(e, o.flightOptions)
	if err != nil {
		return err
	}
	defer done() // before the put completes, this aborts it: nothing is stored
	if o.force {
		ctx = flight.Replace(ctx)
	}
	stream, err := c.DoPut(ctx)
	if err != nil {
		return putError(name, o.addr, err)
	}
	wopts := []codec.Option{codec.WithCompression(comp)}
	if o.blockRows > 0 {
		wopts = append(wopts, codec.WithBlockRows(o.blockRows))
	}
	w, err := flight.NewWriter(stream, in.Schema(), wopts...)
	if err != nil {
		return err
	}
	w.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
	var batches int
	var rows int64
	for in.Next() {
		rec := in.RecordBatch()
		if err := w.Write(rec); err != nil {
			return putError(name, o.addr, serverError(stream, err))
		}
		batches++
		rows += rec.NumRows()
	}
	if err := in.Err(); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return putError(name, o.addr, serverError(stream, err))
	}
	if err := stream.CloseSend(); err != nil {
		return putError(name, o.addr, err)
	}
	if err := drainPut(stream); err != nil {
		return putError(name, o.addr, err)
	}
	fmt.Fprintf(e.stdout, "%s -> %s %s: %s, %s\n", in.name(), o.addr, name,
		plural(batches, "batch", "batches"), plural(rows, "row", "rows"))
	return nil
}

// putError says what went wrong with the put of name to addr: the server's
// refusal to replace a stored stream in words, any other error as it is.
func putError(name, addr string, err error) error {
	if status.Code(err) == codes.AlreadyExists {
		return fmt.Errorf("%s is already stored on %s: give -f to replace it", name, addr)
	}
	return fmt.Errorf("put %s: %w", name, err)
}

// drainPut reads the server's answers to a put up to its status.
func drainPut(stream aflight.FlightService_DoPutClient) error {
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// serverError returns the server's status when a send failed because the
// server ended the call (gRPC reports io.EOF from Send then).
func serverError(stream aflight.FlightService_DoPutClient, err error) error {
	if errors.Is(err, io.EOF) {
		if serr := drainPut(stream); serr != nil {
			return serr
		}
	}
	return err
}

func init() {
	register(command{"put", putUsage, "put a file to a Flight server as arrowpack blocks", putAbout, runPut,
		func() *flag.FlagSet { fs, _ := putFlags(); return fs }})
}

package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

const putUsage = "arrowpack put -addr HOST:PORT [-compression none|lz4|zstd] [-block-rows N] FILE PATH"

const putAbout = `Puts a file (an arrowpack stream, an Arrow IPC file or stream, or a
Parquet file) to an Arrow Flight server such as 'arrowpack serve', as
arrowpack blocks, under the descriptor path PATH (elements separated by
'/').
`

const getUsage = "arrowpack get -addr HOST:PORT [-ipc] [-compression none|lz4|zstd] PATH OUT"

const getAbout = `Gets the stream stored under the descriptor path PATH (elements separated
by '/') from an Arrow Flight server such as 'arrowpack serve' and writes it
to OUT as an arrowpack stream. The server is asked for arrowpack blocks
compressed with -compression; -ipc asks for plain Arrow IPC instead, as any
Flight client would.
`

type flightOptions struct {
	addr, compression string
	ipc               bool
	timeout           time.Duration
	batchRows         int
	blockRows         int
	transport         transportOptions
}

func flightFlags(name string) (*flag.FlagSet, *flightOptions) {
	o := &flightOptions{}
	fs := newFlagSet(name)
	fs.StringVar(&o.addr, "addr", "", "`address` of the Flight server (required)")
	fs.StringVar(&o.compression, "compression", "lz4", "compression of the blocks on the wire: none, lz4 or zstd")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	o.transport.flags(fs)
	if name == "get" {
		fs.BoolVar(&o.ipc, "ipc", false, "ask for Arrow IPC instead of arrowpack blocks")
	} else {
		fs.IntVar(&o.batchRows, "batch-rows", defaultBatchRows, "rows per batch read from a Parquet `input`")
		fs.IntVar(&o.blockRows, "block-rows", 0, "gather small batches into blocks of this many `rows` before sending (0: a block per batch)")
	}
	return fs, o
}

// flightArgs parses the flags and the two positional arguments of get and
// put.
func flightArgs(name string, args []string) (*flightOptions, codec.Compression, []string, error) {
	fs, o := flightFlags(name)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, 0, nil, err
	}
	if len(pos) != 2 {
		return nil, 0, nil, usagef("want two arguments, got %d", len(pos))
	}
	if o.addr == "" {
		return nil, 0, nil, usagef("-addr is required")
	}
	if o.timeout <= 0 {
		return nil, 0, nil, usagef("-timeout must be above 0")
	}
	if err := o.transport.check(); err != nil {
		return nil, 0, nil, err
	}
	comp, err := parseCompression(o.compression)
	return o, comp, pos, err
}

// transportOptions are the gRPC transport flags of serve, get and put.
type transportOptions struct {
	buffer, window int
}

func (t *transportOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&t.buffer, "grpc-buffer", flight.DefaultReadBufferSize, "gRPC read and write buffer size in `bytes` (0: gRPC's default, 32 KiB)")
	fs.IntVar(&t.window, "grpc-window", 0, "gRPC flow control window of a stream and a connection in `bytes` (0: gRPC's dynamic window)")
}

func (t *transportOptions) check() error {
	if t.buffer < 0 {
		return usagef("-grpc-buffer must be 0 or above")
	}
	if t.window != 0 && (t.window < 64<<10 || t.window > 1<<31-1) {
		return usagef("-grpc-window must be 0 or between 64 KiB and 2 GiB")
	}
	return nil
}

func (t *transportOptions) options() []flight.TransportOption {
	opts := []flight.TransportOption{flight.WithBufferSizes(t.buffer, t.buffer)}
	if t.window > 0 {
		opts = append(opts, flight.WithWindowSizes(int32(t.window), int32(t.window)))
	}
	return opts
}

// descriptorPath splits a PATH argument into descriptor path elements.
func descriptorPath(s string) ([]string, error) {
	path := strings.Split(strings.Trim(s, "/"), "/")
	for _, e := range path {
		if e == "" {
			return nil, usagef("path %q has an empty element", s)
		}
	}
	return path, nil
}

// dialFlight connects to the Flight server at o.addr and returns the
// client and a context that ends after o.timeout; done closes the client
// and cancels the context.
func dialFlight(o *flightOptions) (c aflight.Client, ctx context.Context, done func(), err error) {
	opts := append(flight.GRPCDialOptions(o.transport.options()...), grpc.WithTransportCredentials(insecure.NewCredentials()))
	c, err = aflight.NewClientWithMiddleware(o.addr, nil, nil, opts...)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	return c, ctx, func() { cancel(); c.Close() }, nil
}

func runPut(e *env, args []string) error {
	o, comp, pos, err := flightArgs("put", args)
	if err != nil {
		return err
	}
	if o.batchRows <= 0 {
		return usagef("-batch-rows must be above 0")
	}
	if o.blockRows < 0 {
		return usagef("-block-rows must be 0 or above")
	}
	path, err := descriptorPath(pos[1])
	if err != nil {
		return err
	}
	in, err := openInput(pos[0], e.stdin, o.batchRows)
	if err != nil {
		return err
	}
	defer in.Close()
	c, ctx, done, err := dialFlight(o)
	if err != nil {
		return err
	}
	defer done()
	stream, err := c.DoPut(ctx)
	if err != nil {
		return err
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
			return fmt.Errorf("put %s: %w", pos[1], serverError(stream, err))
		}
		batches++
		rows += rec.NumRows()
	}
	if err := in.Err(); err != nil {
		return err // the deferred cancel aborts the put: nothing is stored
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("put %s: %w", pos[1], serverError(stream, err))
	}
	if err := stream.CloseSend(); err != nil {
		return fmt.Errorf("put %s: %w", pos[1], err)
	}
	if err := drainPut(stream); err != nil {
		return fmt.Errorf("put %s: %w", pos[1], err)
	}
	fmt.Fprintf(e.stdout, "%s -> %s %s: %d batches, %d rows\n", pos[0], o.addr, strings.Join(path, "/"), batches, rows)
	return nil
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

func runGet(e *env, args []string) (err error) {
	o, comp, pos, err := flightArgs("get", args)
	if err != nil {
		return err
	}
	path, err := descriptorPath(pos[0])
	if err != nil {
		return err
	}
	c, ctx, done, err := dialFlight(o)
	if err != nil {
		return err
	}
	defer done()
	info, err := c.GetFlightInfo(ctx, &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
	if err != nil {
		return fmt.Errorf("get %s: %w", pos[0], err)
	}
	if len(info.Endpoint) == 0 || info.Endpoint[0].Ticket == nil {
		return fmt.Errorf("get %s: the server gave no endpoint", pos[0])
	}
	if !o.ipc {
		ctx = flight.Accept(ctx, comp)
	}
	stream, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return fmt.Errorf("get %s: %w", pos[0], err)
	}
	r, err := flight.NewReader(stream)
	if err != nil {
		return fmt.Errorf("get %s: %w", pos[0], err)
	}
	defer r.Release()
	out, err := os.Create(pos[1])
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			os.Remove(pos[1])
		}
	}()
	bw := bufio.NewWriterSize(out, 1<<20)
	n, rows, err := copyBatches(bw, r, comp)
	if err != nil {
		return fmt.Errorf("get %s: %w", pos[0], err)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	wire := "arrowpack"
	if o.ipc {
		wire = "Arrow IPC"
	}
	fmt.Fprintf(e.stdout, "%s %s -> %s (%s on the wire): %d batches, %d rows\n", o.addr, strings.Join(path, "/"), pos[1], wire, n, rows)
	return nil
}

// copyBatches writes the batches of r to w as an arrowpack stream.
func copyBatches(w io.Writer, r *flight.Reader, comp codec.Compression) (batches int, rows int64, err error) {
	aw, err := codec.NewWriter(w, r.Schema(), codec.WithCompression(comp))
	if err != nil {
		return 0, 0, err
	}
	for r.Next() {
		rec := r.RecordBatch()
		if err := aw.Write(rec); err != nil {
			return batches, rows, err
		}
		batches++
		rows += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		return batches, rows, err
	}
	return batches, rows, aw.Close()
}

func init() {
	register(command{"put", putUsage, "put a file to a Flight server as arrowpack blocks", putAbout, runPut,
		func() *flag.FlagSet { fs, _ := flightFlags("put"); return fs }})
	register(command{"get", getUsage, "get a stream from a Flight server into an arrowpack file", getAbout, runGet,
		func() *flag.FlagSet { fs, _ := flightFlags("get"); return fs }})
}

package main

import (
	"context"
	"flag"
	"strings"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// flightOptions are the flags every Flight client command (get, put, ls)
// has.
type flightOptions struct {
	addr      string
	timeout   time.Duration
	transport transportOptions
}

// flightFlags returns a flag set named name with the flags of every Flight
// client command.
func flightFlags(name string) (*flag.FlagSet, *flightOptions) {
	o := &flightOptions{}
	fs := newFlagSet(name)
	fs.StringVar(&o.addr, "addr", "", "`address` of the Flight server (required)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	o.transport.flags(fs)
	return fs, o
}

// check reports a missing -addr or a bad -timeout.
func (o *flightOptions) check() error {
	if o.addr == "" {
		return usagef("-addr is required")
	}
	if o.timeout <= 0 {
		return usagef("-timeout must be above 0")
	}
	return o.transport.check()
}

// transportOptions are the gRPC transport flags of serve, get, put and ls.
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

// pathRule is the one rule of the PATH arguments of put and get, as their
// help states it.
const pathRule = "a PATH is names separated by single '/', with none before the first or after the last (tables/lineitem)"

// descriptorPath splits a PATH argument into descriptor path elements by
// pathRule: "/abs", "a//b" and "a/" are refused alike, never changed.
func descriptorPath(s string) ([]string, error) {
	path := strings.Split(s, "/")
	for _, e := range path {
		if e == "" {
			return nil, usagef("path %q has an empty element: %s", s, pathRule)
		}
	}
	return path, nil
}

// dialFlight connects to the Flight server at o.addr and returns the
// client and a context, from the command's (which a signal cancels), that
// ends after o.timeout; done closes the client and cancels the context,
// which ends any call still in progress.
func dialFlight(e *env, o *flightOptions) (c aflight.Client, ctx context.Context, done func(), err error) {
	opts := append(flight.GRPCDialOptions(o.transport.options()...), grpc.WithTransportCredentials(insecure.NewCredentials()))
	c, err = aflight.NewClientWithMiddleware(o.addr, nil, nil, opts...)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(e.ctx, o.timeout)
	return c, ctx, func() { cancel(); c.Close() }, nil
}

// interruptedErr returns the error a signal ended the command with in place
// of err, when there was one: the calls it cancelled fail with gRPC's
// Canceled, which does not say why.
func interruptedErr(e *env, err error) error {
	if err != nil {
		if ierr := e.interruption(); ierr != nil {
			return ierr
		}
	}
	return err
}

package main

import (
	"context"
	"flag"
	"strings"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// flightOptions are the flags every Flight client command (get, put, ls)
// has.
type flightOptions struct {
	addr    string
	timeout time.Duration
}

// flightFlags returns a flag set named name with the flags of every Flight
// client command.
func flightFlags(name string) (*flag.FlagSet, *flightOptions) {
	o := &flightOptions{}
	fs := newFlagSet(name)
	fs.StringVar(&o.addr, "addr", "", "`address` of the Flight server (required)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
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
	return nil
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
// client and a context, from the command's (which a signal cancels), that
// ends after o.timeout; done closes the client and cancels the context,
// which ends any call still in progress.
func dialFlight(e *env, o *flightOptions) (c aflight.Client, ctx context.Context, done func(), err error) {
	c, err = aflight.NewClientWithMiddleware(o.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
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

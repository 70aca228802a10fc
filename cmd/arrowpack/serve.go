package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/flight"
	"google.golang.org/grpc"
)

const serveUsage = "arrowpack serve [-addr HOST:PORT] -dir DIR [-compression none|lz4|zstd] [-grpc-buffer BYTES] [-grpc-window BYTES]"

const serveAbout = `Runs an Arrow Flight server that stores the streams put to it with DoPut
under their descriptor path, as arrowpack stream files in DIR (so a restart
keeps them), and serves them with DoGet, ListFlights, GetFlightInfo and
GetSchema: as arrowpack blocks to clients that send the request header
arrowpack-accept, as Arrow IPC to every other Flight client. It prints the
address it listens on and stops cleanly on SIGINT or SIGTERM.
`

type serveOptions struct {
	addr, dir, compression string
	transport              transportOptions
}

func serveFlags() (*flag.FlagSet, *serveOptions) {
	o := &serveOptions{}
	fs := newFlagSet("serve")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "`address` to listen on (port 0: one the system chooses)")
	fs.StringVar(&o.dir, "dir", "", "`directory` the streams are stored in (required)")
	fs.StringVar(&o.compression, "compression", "lz4", "compression of the streams put as Arrow IPC: none, lz4 or zstd (arrowpack blocks are stored as they come)")
	o.transport.flags(fs)
	return fs, o
}

// serveGrace is how long a stopping server waits for calls in progress.
const serveGrace = 10 * time.Second

func runServe(e *env, args []string) error {
	fs, o := serveFlags()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if o.dir == "" {
		return usagef("-dir is required")
	}
	if err := o.transport.check(); err != nil {
		return err
	}
	comp, err := parseCompression(o.compression)
	if err != nil {
		return err
	}
	store, err := flight.NewServer(o.dir, codec.WithCompression(comp))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lis, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv := grpc.NewServer(flight.ServerOptions(o.transport.options()...)...)
	aflight.RegisterFlightServiceServer(srv, store)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	fmt.Fprintf(e.stdout, "listening on %s, storing in %s\n", lis.Addr(), o.dir)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	done := make(chan struct{})
	go func() { srv.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(serveGrace):
		srv.Stop()
	}
	fmt.Fprintln(e.stdout, "stopped")
	return nil
}

func init() {
	register(command{"serve", serveUsage, "an Arrow Flight server storing streams as arrowpack files", serveAbout, runServe,
		func() *flag.FlagSet { fs, _ := serveFlags(); return fs }})
}

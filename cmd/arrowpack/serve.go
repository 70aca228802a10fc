package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/flight"
	"google.golang.org/grpc"
)

const serveUsage = "arrowpack serve [-addr HOST:PORT] -dir DIR [-compression " + compressionChoices + "] [-no-sync] [-no-map] [-max-block SIZE] [-max-memory SIZE] [-grpc-buffer BYTES] [-grpc-window BYTES]"

const serveAbout = `Runs an Arrow Flight server that stores the streams put to it with DoPut
under their descriptor path, as arrowpack stream files in DIR (created if
it does not exist; a restart keeps them), and serves them with DoGet, ListFlights, GetFlightInfo and
GetSchema: as arrowpack blocks to clients that send the request header
arrowpack-accept, as Arrow IPC to every other Flight client. It prints the
address it listens on and stops cleanly on SIGINT or SIGTERM.

A put is acknowledged once its file is complete and synced to disk with its
directory entry, so it survives a crash or a power loss (-no-sync: faster,
but a crash of the machine may lose recent puts). A put onto a stored path
is refused unless the client asks to replace it (put -f). On start, serve
removes the temporary files of puts a killed server left unfinished. Stored
files are mapped into memory to be served (-no-map: read them instead, for a
directory whose files something else may cut short while they are served,
which would crash a server that maps them). A block
larger than -max-block once decompressed is refused, and so is any call
that would take the blocks in flight past -max-memory (gRPC status
ResourceExhausted). SIZE is a number of bytes with an optional KiB, MiB or
GiB.
`

type serveOptions struct {
	addr, dir, compression string
	noSync, noMap          bool
	maxBlock, maxMemory    byteSize
	transport              transportOptions
}

func serveFlags() (*flag.FlagSet, *serveOptions) {
	o := &serveOptions{}
	fs := newFlagSet("serve")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "`address` to listen on (port 0: one the system chooses)")
	fs.StringVar(&o.dir, "dir", "", "`directory` the streams are stored in (required)")
	fs.StringVar(&o.compression, "compression", "lz4", "compression of the blocks the server encodes: of streams put as Arrow IPC, and of gets asking for another compression than the stored one (arrowpack puts are stored as sent): "+compressionNames)
	fs.BoolVar(&o.noSync, "no-sync", false, "acknowledge puts without syncing them to disk (faster; a machine crash may lose recent puts)")
	fs.BoolVar(&o.noMap, "no-map", false, "read stored files to serve them instead of mapping them into memory")
	o.maxBlock, o.maxMemory = flight.DefaultMaxBlock, flight.DefaultMaxMemory
	fs.Var(&o.maxBlock, "max-block", "`SIZE` of the largest block, decompressed, a put may send or a get read from the store")
	fs.Var(&o.maxMemory, "max-memory", "`SIZE` the blocks in flight of all calls may hold together")
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
	comp, err := parseCompression(o.compression)
	if err != nil {
		return err
	}
	if o.maxBlock <= 0 || o.maxMemory <= 0 {
		return usagef("-max-block and -max-memory must be above 0")
	}
	if err := o.transport.check(); err != nil {
		return err
	}
	created, err := storeDir(o.dir)
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(e.stderr, "arrowpack serve: created %s\n", o.dir)
	}
	store, err := flight.NewServerWith(o.dir, flight.ServerOptions{
		Codec:     []codec.Option{codec.WithCompression(comp)},
		NoSync:    o.noSync,
		NoMap:     o.noMap,
		MaxBlock:  int(min(o.maxBlock, byteSize(math.MaxInt))),
		MaxMemory: int64(o.maxMemory),
		Log:       log.New(e.stderr, "arrowpack serve: ", log.LstdFlags),
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lis, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv := grpc.NewServer(flight.GRPCServerOptions(o.transport.options()...)...)
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

// storeDir makes sure dir is a directory to store streams in, creating it
// (and its parents) if it does not exist, as servers do, and reports
// whether it did.
func storeDir(dir string) (created bool, err error) {
	st, err := os.Stat(dir)
	switch {
	case err == nil && st.IsDir():
		return false, nil
	case err == nil:
		return false, fmt.Errorf("-dir %s is not a directory", dir)
	case !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("-dir %s: %v", dir, unwrapPath(err))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("cannot create the store directory %s: %v", dir, unwrapPath(err))
	}
	return true, nil
}

// unwrapPath returns the reason of a *PathError without its operation and
// path, which the message gives itself.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// byteSize is a flag of a number of bytes: "65536", "64MiB", "1GiB".
type byteSize int64

// String returns the size as Set reads it, in the largest unit that
// divides it.
func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Set reads a number of bytes with an optional unit.

func (b *byteSize) Set(s string) error {
	num, mult := s, int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = strings.TrimSpace(v), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return fmt.Errorf("%q is not a size: a number of bytes with an optional KiB, MiB or GiB", s)
	}
	*b = byteSize(n * mult)
	return nil
}

func init() {
	register(command{"serve", serveUsage, "an Arrow Flight server storing streams as arrowpack files", serveAbout, runServe,
		func() *flag.FlagSet { fs, _ := serveFlags(); return fs }})
}

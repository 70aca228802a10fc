package flight

import (
	"context"
	"net"
	"testing"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// The gRPC options of the servers and clients of startServer and dial:
// the standard ones, unless a test runs others' tests with Codec installed
// (withTransport).
var (
	testServerOpts []grpc.ServerOption
	testDialOpts   []grpc.DialOption
)

// testServer is a Server listening on 127.0.0.1 at a port the OS chose.
type testServer struct {
	srv    *grpc.Server
	store  *Server
	dir    string
	addr   string
	served chan error
}

// startServer starts a Flight server on a Server storing in a new
// temporary directory; it stops at the end of the test.
func startServer(t testing.TB, fs aflight.FlightServer, opts ...codec.Option) *testServer {
	t.Helper()
	ts := &testServer{dir: t.TempDir(), served: make(chan error, 1)}
	if fs == nil {
		s, err := NewServer(ts.dir, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ts.store, fs = s, s
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.srv = grpc.NewServer(testServerOpts...)
	aflight.RegisterFlightServiceServer(ts.srv, fs)
	ts.addr = lis.Addr().String()
	go func() { ts.served <- ts.srv.Serve(lis) }()
	t.Cleanup(ts.stop)
	return ts
}

// stop stops the server at once, dropping its connections.
func (ts *testServer) stop() {
	if ts.srv == nil {
		return
	}
	ts.srv.Stop()
	ts.srv = nil
}

// dial returns a client of addr with default options; it closes at the end
// of the test.
func dial(t testing.TB, addr string) aflight.Client {
	t.Helper()
	opts := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, testDialOpts...)
	c, err := aflight.NewClientWithMiddleware(addr, nil, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// testCtx returns a context that ends after d or at the end of the test.
func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// metadataCtx returns ctx asking for arrowpack with compression name v.
func metadataCtx(ctx context.Context, v string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, MetadataKey, v)
}

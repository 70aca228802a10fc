package flight

import (
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"google.golang.org/grpc"
)

// withTransport makes startServer and dial use the given options until the
// end of the test.
func withTransport(t *testing.T, so []grpc.ServerOption, do []grpc.DialOption) {
	oldS, oldD := testServerOpts, testDialOpts
	testServerOpts, testDialOpts = so, do
	t.Cleanup(func() { testServerOpts, testDialOpts = oldS, oldD })
}

// waitLive waits for every block the codec handed out to come back, and
// every stored file mapped to be unmapped.
func waitLive(t *testing.T) {
	t.Helper()
	waitLiveWith(t, func() {})
}

// waitLiveGC is waitLive for a test after which gRPC may have dropped
// blocks without giving them back (those of a stream that ended while they
// were queued): it collects garbage while it waits, so that their cleanup
// runs.
func waitLiveGC(t *testing.T) {
	t.Helper()
	waitLiveWith(t, runtime.GC)
}

func waitLiveWith(t *testing.T, each func()) {
	t.Helper()
	for i := 0; liveBlocks.Load() != 0 || liveMaps.Load() != 0; i++ {
		if i == 1000 {
			t.Fatalf("%d blocks or bodies never given back, %d files never unmapped", liveBlocks.Load(), liveMaps.Load())
		}
		each()
		time.Sleep(10 * time.Millisecond)
	}
}

// Standard and Codec servers and clients, in every pairing, store what
// arrowpack and IPC writers put and give it back to arrowpack readers
// (arrowpack or IPC) and to arrow-go's own reader, equal.
func TestCodecInterop(t *testing.T) {
	recs := lineitemBatches(3000, 1, 20000, 0, 500)
	defer batches.Release(recs)
	schema := recs[0].Schema()
	sides := []struct {
		name string
		opts []TransportOption
	}{{"standard", []TransportOption{WithStandardCodec()}}, {"codec", nil}}
	for _, srv := range sides {
		for _, cli := range sides {
			t.Run(srv.name+"-server/"+cli.name+"-client", func(t *testing.T) {
				withTransport(t, GRPCServerOptions(srv.opts...), GRPCDialOptions(cli.opts...))
				ts := startServer(t, nil, codec.WithCompression(codec.LZ4))
				c := dial(t, ts.addr)
				ctx := testCtx(t, 60*time.Second)
				for _, putWith := range []string{"arrowpack", "arrowpack-split", "ipc"} {
					path := []string{putWith}
					stream, err := c.DoPut(ctx)
					if err != nil {
						t.Fatal(err)
					}
					var w interface {
						Write(arrow.RecordBatch) error
						Close() error
					}
					switch putWith {
					case "ipc":
						iw := aflight.NewRecordWriter(stream, ipc.WithSchema(schema))
						iw.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
						w = iw
					default:
						aw, err := NewWriter(stream, schema)
						if err != nil {
							t.Fatal(err)
						}
						if putWith == "arrowpack-split" {
							aw.SetMaxMessageSize(20 << 10) // blocks in parts
						}
						aw.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
						w = aw
					}
					if err := batches.WriteAll(w, recs); err != nil {
						t.Fatalf("put %s: %v", putWith, err)
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
					if err := closePut(stream); err != nil {
						t.Fatalf("put %s: %v", putWith, err)
					}
					for _, comp := range []codec.Compression{codec.None, codec.LZ4} {
						got, err := get(ctx, c, path, true, comp)
						if err != nil {
							t.Fatalf("put %s, get arrowpack %s: %v", putWith, comp, err)
						}
						checkEqual(t, got, recs)
						batches.Release(got)
					}
					got, err := get(ctx, c, path, false, 0)
					if err != nil {
						t.Fatalf("put %s, get IPC: %v", putWith, err)
					}
					checkEqual(t, got, recs)
					batches.Release(got)

					gs, err := c.DoGet(ctx, &aflight.Ticket{Ticket: []byte(putWith)})
					if err != nil {
						t.Fatal(err)
					}
					r, err := aflight.NewRecordReader(gs)
					if err != nil {
						t.Fatalf("put %s, arrow-go reader: %v", putWith, err)
					}
					got, err = batches.ReadAll(r)
					r.Release()
					if err != nil {
						t.Fatalf("put %s, arrow-go reader: %v", putWith, err)
					}
					checkEqual(t, got, recs)
					batches.Release(got)
				}
				waitLive(t)
			})
		}
	}
}

// The package's tests of failures, stalls and round trips pass with Codec
// on both ends and the default transport settings.
func TestWithCodec(t *testing.T) {
	withTransport(t, GRPCServerOptions(), GRPCDialOptions())
	t.Run("PutGetRoundTrip", TestPutGetRoundTrip)
	t.Run("StandardClient", TestStandardClient)
	t.Run("ServerStoppedMidDoGet", TestServerStoppedMidDoGet)
	t.Run("CorruptDoPut", TestCorruptDoPut)
	t.Run("ServerBadRequests", TestServerBadRequests)
	t.Run("LargeBlock", TestLargeBlock)
	t.Run("Shuffle", TestShuffle)
	waitLive(t)
}

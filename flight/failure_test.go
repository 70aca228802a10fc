package flight

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// stallServer is a Server whose DoGet stops sending, and waits for the end
// of the call, once its stream has sent what stall says.
type stallServer struct {
	*Server
	stall   func(fd *aflight.FlightData, sent int) bool
	stalled chan struct{}
}

type stallStream struct {
	aflight.FlightService_DoGetServer
	s    *stallServer
	sent int
}

func (st *stallStream) Send(fd *aflight.FlightData) error {
	if err := st.FlightService_DoGetServer.Send(fd); err != nil {
		return err
	}
	st.sent++
	if st.s.stall(fd, st.sent) {
		close(st.s.stalled)
		<-st.Context().Done()
		return st.Context().Err()
	}
	return nil
}

func (s *stallServer) DoGet(t *aflight.Ticket, stream aflight.FlightService_DoGetServer) error {
	return s.Server.DoGet(t, &stallStream{FlightService_DoGetServer: stream, s: s})
}

// A server stopped in the middle of a DoGet: the reader ends with an
// error, after whole batches only, well before its deadline.
func TestServerStoppedMidDoGet(t *testing.T) {
	small := lineitemBatches(1000, 1000, 1000)
	defer batches.Release(small)
	big := lineitemBatches(60000) // a block over 4 MiB: split in parts
	defer batches.Release(big)
	cases := []struct {
		name  string
		recs  []arrow.RecordBatch
		stall func(fd *aflight.FlightData, sent int) bool
		whole int // batches sent whole before the stall
	}{
		{"between batches", small, func(_ *aflight.FlightData, sent int) bool { return sent == 3 }, 2},
		{"inside a split block", big, func(fd *aflight.FlightData, _ int) bool {
			return hasMarker(fd.AppMetadata) && fd.AppMetadata[5]&flagLast == 0
		}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			store, err := NewServer(dir)
			if err != nil {
				t.Fatal(err)
			}
			ss := &stallServer{Server: store, stall: tc.stall, stalled: make(chan struct{})}
			ts := startServer(t, ss)
			c := dial(t, ts.addr)
			ctx := testCtx(t, 60*time.Second)
			path := []string{"stall"}
			if err := put(ctx, c, path, tc.recs[0].Schema(), tc.recs); err != nil {
				t.Fatal(err)
			}
			stream, err := c.DoGet(Accept(ctx, codec.None), &aflight.Ticket{Ticket: []byte("stall")})
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(stream)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			// The client reads while the server sends: without a reader,
			// gRPC's flow control can hold the server back before the
			// stall (seen on a slow emulated arm64).
			read := make(chan int, 1)
			go func() {
				n := 0
				for r.Next() {
					n++
				}
				read <- n
			}()
			reached := false
			select {
			case <-ss.stalled:
				reached = true
			case <-ctx.Done():
			}
			ts.stop()
			n := <-read
			if !reached {
				t.Fatal("the server never reached the stall")
			}
			// gRPC may drop what it had buffered when the connection
			// breaks, but never more than the whole batches sent arrive.
			if n > tc.whole {
				t.Errorf("got %d batches, only %d were sent whole", n, tc.whole)
			}
			err = r.Err()
			if err == nil {
				t.Fatal("no error after the server stopped")
			}
			if errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded {
				t.Errorf("the reader waited for its deadline: %v", err)
			}
			t.Logf("error: %v", err)
		})
	}
}

// corruptStream returns the FlightData of a put of recs under path,
// after corrupt has changed them.
func corruptStream(t *testing.T, recs []arrow.RecordBatch, path []string, corrupt func([]*aflight.FlightData) []*aflight.FlightData, opts ...codec.Option) []*aflight.FlightData {
	t.Helper()
	var m memStream
	w, err := NewWriter(&m, recs[0].Schema(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxMessageSize(64 << 10)
	w.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	return corrupt(m.msgs)
}

// A DoPut of a stream that is corrupt in any way is refused with a gRPC
// status that names the problem, and nothing is stored.
func TestCorruptDoPut(t *testing.T) {
	recs := lineitemBatches(2000, 5000)
	defer batches.Release(recs)
	flip := func(i, at int) func([]*aflight.FlightData) []*aflight.FlightData {
		return func(m []*aflight.FlightData) []*aflight.FlightData {
			b := m[i].DataBody
			b[min(at, len(b)-1)] ^= 0x40
			return m
		}
	}
	cases := []struct {
		name    string
		corrupt func([]*aflight.FlightData) []*aflight.FlightData
		code    codes.Code
		want    string
	}{
		{"flipped header byte", flip(1, 3), codes.InvalidArgument, "checksum"},
		{"flipped body byte", flip(2, 3000), codes.InvalidArgument, "checksum"},
		{"truncated split block", func(m []*aflight.FlightData) []*aflight.FlightData { return m[:3] }, codes.InvalidArgument, "stream ended"},
		{"missing part", func(m []*aflight.FlightData) []*aflight.FlightData { return append(m[:2], m[3:]...) }, codes.InvalidArgument, "bytes"},
		{"block before schema", func(m []*aflight.FlightData) []*aflight.FlightData {
			m[1].FlightDescriptor = m[0].FlightDescriptor
			return m[1:]
		}, codes.InvalidArgument, "before the schema"},
		{"marker on IPC header", func(m []*aflight.FlightData) []*aflight.FlightData {
			m[1].DataHeader = m[0].DataHeader
			return m
		}, codes.InvalidArgument, "IPC header"},
		{"body without header or marker", func(m []*aflight.FlightData) []*aflight.FlightData {
			m[1].AppMetadata = nil
			return m
		}, codes.InvalidArgument, "neither"},
		{"garbage IPC header", func(m []*aflight.FlightData) []*aflight.FlightData {
			m[1].AppMetadata = nil
			m[1].DataHeader = []byte("not a flatbuffer at all, no")
			return m
		}, codes.InvalidArgument, "corrupt"},
		{"no descriptor", func(m []*aflight.FlightData) []*aflight.FlightData {
			m[0].FlightDescriptor = nil
			return m
		}, codes.InvalidArgument, "descriptor"},
		{"path escaping the directory", func(m []*aflight.FlightData) []*aflight.FlightData {
			m[0].FlightDescriptor = &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{"..", "x"}}
			return m
		}, codes.OK, ""},
		{"command descriptor", func(m []*aflight.FlightData) []*aflight.FlightData {
			m[0].FlightDescriptor = &aflight.FlightDescriptor{Type: aflight.DescriptorCMD, Cmd: []byte("x")}
			return m
		}, codes.InvalidArgument, "PATH"},
	}
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msgs := corruptStream(t, recs, []string{"bad"}, tc.corrupt)
			stream, err := c.DoPut(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, fd := range msgs {
				if err := stream.Send(fd); err != nil {
					break // the server refused early; the status follows
				}
			}
			err = closePut(stream)
			ents, _ := os.ReadDir(ts.dir)
			if tc.code == codes.OK {
				// The path is stored escaped, inside the directory.
				if err != nil || len(ents) != 1 || ents[0].Name() != "%2E.+x.apk" {
					t.Fatalf("put: %v, directory %v", err, ents)
				}
				os.Remove(ts.dir + "/" + ents[0].Name())
				return
			}
			if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("status %v, want code %v naming %q", err, tc.code, tc.want)
			}
			if len(ents) != 0 {
				t.Errorf("the refused put left %v in the directory", ents)
			}
		})
	}
}

// Bad requests to the server's other entry points get a status, never a
// panic or a file outside the directory.
func TestServerBadRequests(t *testing.T) {
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	ctx := testCtx(t, 30*time.Second)
	for _, tk := range []string{"", "../x", "a/b", "%2", "%zz", "x.apk", "nothing", strings.Repeat("a", 300)} {
		stream, err := c.DoGet(ctx, &aflight.Ticket{Ticket: []byte(tk)})
		if err == nil {
			_, err = stream.Recv()
		}
		if code := status.Code(err); code != codes.InvalidArgument && code != codes.NotFound {
			t.Errorf("DoGet %q: %v", tk, err)
		}
	}
	stream, err := c.DoGet(metadataCtx(ctx, "brotli"), &aflight.Ticket{Ticket: []byte("x")})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("DoGet with an unknown compression: %v", err)
	}
	for _, d := range []*aflight.FlightDescriptor{
		{Type: aflight.DescriptorCMD, Cmd: []byte("select")},
		{Type: aflight.DescriptorPATH},
		{Type: aflight.DescriptorPATH, Path: []string{""}},
		{Type: aflight.DescriptorPATH, Path: []string{"absent"}},
		{Type: aflight.DescriptorPATH, Path: []string{strings.Repeat("é", 200)}},
	} {
		if _, err := c.GetFlightInfo(ctx, d); status.Code(err) != codes.InvalidArgument && status.Code(err) != codes.NotFound {
			t.Errorf("GetFlightInfo %v: %v", d, err)
		}
		if _, err := c.GetSchema(ctx, d); status.Code(err) != codes.InvalidArgument && status.Code(err) != codes.NotFound {
			t.Errorf("GetSchema %v: %v", d, err)
		}
	}
	// A stored file that is not an arrowpack stream: DataLoss, not a panic.
	if err := os.WriteFile(ts.dir+"/junk.apk", []byte("APKS but not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetFlightInfo(ctx, &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{"junk"}}); status.Code(err) != codes.DataLoss {
		t.Errorf("GetFlightInfo of a junk file: %v", err)
	}
}

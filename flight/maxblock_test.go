package flight

import (
	"errors"
	"strings"
	"testing"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A Reader given codec.WithMaxBlockSize refuses an IPC batch, compressed
// or not, and an arrowpack block, whole or split, that holds more than that
// (and reads what holds less).
func TestReaderMaxBlockSize(t *testing.T) {
	recs := lineitemBatches(4000)
	defer batches.Release(recs)
	size := batchBytes(recs[0])
	streams := map[string]*memStream{}
	for _, ipcComp := range []string{"none", "zstd"} {
		var m memStream
		opts := []ipc.Option{ipc.WithSchema(recs[0].Schema())}
		if ipcComp == "zstd" {
			opts = append(opts, ipc.WithZstd())
		}
		w := aflight.NewRecordWriter(&m, opts...)
		if err := w.Write(recs[0]); err != nil {
			t.Fatal(err)
		}
		w.Close()
		streams["ipc-"+ipcComp] = &m
	}
	for _, split := range []bool{false, true} {
		var m memStream
		w, err := NewWriter(&m, recs[0].Schema(), codec.WithCompression(codec.Zstd))
		if err != nil {
			t.Fatal(err)
		}
		if split {
			w.SetMaxMessageSize(16 << 10)
		}
		if err := w.Write(recs[0]); err != nil {
			t.Fatal(err)
		}
		w.Close()
		streams[map[bool]string{false: "arrowpack", true: "arrowpack-split"}[split]] = &m
	}
	for name, m := range streams {
		for _, limit := range []int{int(size / 4), int(4 * size)} {
			m.i = 0
			r, err := NewReader(m, codec.WithMaxBlockSize(limit))
			if err != nil {
				t.Fatal(err)
			}
			got, err := batches.ReadAll(r)
			r.Release()
			batches.Release(got)
			over := limit < int(size)
			if over && !errors.Is(err, codec.ErrCorrupt) {
				t.Errorf("%s: a batch of %d bytes under a limit of %d: %v, want ErrCorrupt", name, size, limit, err)
			}
			if !over && (err != nil || len(got) != 1) {
				t.Errorf("%s: a batch of %d bytes under a limit of %d: %d batches, %v", name, size, limit, len(got), err)
			}
		}
	}
}

// A DoPut of a block over the server's MaxBlock is ResourceExhausted
// naming -max-block, whether it came in one message or split over several,
// and an IPC batch over it too.
func TestDoPutOverMaxBlock(t *testing.T) {
	recs := lineitemBatches(4000)
	defer batches.Release(recs)
	size := batchBytes(recs[0])
	ts := startServer(t, nil)
	ts.store.maxBlock = int(size / 4)
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	for _, way := range []string{"arrowpack", "arrowpack-split", "ipc", "ipc-zstd"} {
		stream, err := c.DoPut(ctx)
		if err != nil {
			t.Fatal(err)
		}
		desc := &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{way}}
		if strings.HasPrefix(way, "ipc") {
			opts := []ipc.Option{ipc.WithSchema(recs[0].Schema())}
			if way == "ipc-zstd" {
				opts = append(opts, ipc.WithZstd())
			}
			iw := aflight.NewRecordWriter(stream, opts...)
			iw.SetFlightDescriptor(desc)
			iw.Write(recs[0])
			iw.Close()
		} else {
			aw, err := NewWriter(stream, recs[0].Schema(), codec.WithCompression(codec.Zstd))
			if err != nil {
				t.Fatal(err)
			}
			if way == "arrowpack-split" {
				aw.SetMaxMessageSize(16 << 10)
			}
			aw.SetFlightDescriptor(desc)
			aw.Write(recs[0])
			aw.Close()
		}
		err = closePut(stream)
		if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "max-block") {
			t.Errorf("%s: a batch of %d bytes to a server of -max-block %d: %v, want ResourceExhausted naming -max-block", way, size, ts.store.maxBlock, err)
		}
		if used := ts.store.budget.inUse(); used != 0 {
			t.Errorf("%s: the budget holds %d bytes after the call", way, used)
		}
	}
}

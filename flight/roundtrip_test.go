package flight

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// put sends recs to the server under path with a Writer and waits for the
// server's answer.
func put(ctx context.Context, c aflight.Client, path []string, schema *arrow.Schema, recs []arrow.RecordBatch, opts ...codec.Option) error {
	stream, err := c.DoPut(ctx)
	if err != nil {
		return err
	}
	w, err := NewWriter(stream, schema, opts...)
	if err != nil {
		return err
	}
	w.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
	if err := batches.WriteAll(w, recs); err != nil {
		return err
	}
	return closePut(stream)
}

// closePut ends a DoPut and returns the server's status.
func closePut(stream aflight.FlightService_DoPutClient) error {
	if err := stream.CloseSend(); err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// get reads the stream stored under path with a Reader, asking for
// arrowpack with compression c, and returns its batches.
func get(ctx context.Context, c aflight.Client, path []string, ap bool, comp codec.Compression) ([]arrow.RecordBatch, error) {
	info, err := c.GetFlightInfo(ctx, &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
	if err != nil {
		return nil, err
	}
	if ap {
		ctx = Accept(ctx, comp)
	}
	stream, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(stream)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	recs, err := batches.ReadAll(r)
	if err != nil {
		batches.Release(recs)
		return nil, err
	}
	return recs, nil
}

// checkEqual checks that got holds the rows of want, batch for batch.
func checkEqual(t *testing.T, got, want []arrow.RecordBatch) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d batches, want %d", len(got), len(want))
	}
	for i := range want {
		if !array.RecordEqual(got[i], want[i]) {
			t.Fatalf("batch %d differs", i)
		}
	}
}

func lineitemBatches(rows ...int) []arrow.RecordBatch {
	var recs []arrow.RecordBatch
	for _, n := range rows {
		recs = append(recs, randbatch.Lineitem(memory.DefaultAllocator, n))
	}
	return recs
}

func TestPutGetRoundTrip(t *testing.T) {
	recs := lineitemBatches(1000, 0, 1, 3000)
	defer batches.Release(recs)
	big := recs[3].NewSlice(7, 2500) // a slice: offsets not at 0, bitmaps at a bit offset
	defer big.Release()
	recs = append(recs, big)
	ts := startServer(t, nil, codec.WithCompression(codec.LZ4))
	c := dial(t, ts.addr)
	ctx := Replace(testCtx(t, 30*time.Second)) // each put replaces the last
	path := []string{"round", "trip"}
	for _, comp := range []codec.Compression{codec.None, codec.LZ4, codec.Zstd} {
		if err := put(ctx, c, path, recs[0].Schema(), recs, codec.WithCompression(comp)); err != nil {
			t.Fatalf("put %s: %v", comp, err)
		}
		for _, ap := range []bool{true, false} {
			got, err := get(ctx, c, path, ap, comp)
			if err != nil {
				t.Fatalf("get arrowpack=%v %s: %v", ap, comp, err)
			}
			checkEqual(t, got, recs)
			batches.Release(got)
		}
	}
	waitLive(t) // the files mapped by the gets, unmapped
}

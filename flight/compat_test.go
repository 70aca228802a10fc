package flight

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
)

// A standard arrow-go Flight client, which knows nothing of arrowpack, reads
// what was put with arrowpack and gets equal batches; and what it puts with
// arrow-go's IPC writer an arrowpack Reader gets back.
func TestStandardClient(t *testing.T) {
	recs := lineitemBatches(2000, 1, 500)
	defer batches.Release(recs)
	ts := startServer(t, nil, codec.WithCompression(codec.Zstd))
	c := dial(t, ts.addr)
	ctx := testCtx(t, 30*time.Second)
	path := []string{"std"}
	if err := put(ctx, c, path, recs[0].Schema(), recs, codec.WithCompression(codec.LZ4)); err != nil {
		t.Fatal(err)
	}
	info, err := c.GetFlightInfo(ctx, &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	schema, err := aflight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
	if err != nil || !schema.Equal(recs[0].Schema()) {
		t.Fatalf("FlightInfo schema %v, %v; want %v", schema, err, recs[0].Schema())
	}
	stream, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	r, err := aflight.NewRecordReader(stream)
	if err != nil {
		t.Fatal(err)
	}
	got, err := batches.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	r.Release()
	checkEqual(t, got, recs)
	batches.Release(got)

	// arrow-go's IPC writer puts, with app_metadata; the server converts.
	ps, err := c.DoPut(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := aflight.NewRecordWriter(ps, ipc.WithSchema(recs[0].Schema()), ipc.WithLZ4())
	w.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{"from", "ipc"}})
	for _, rec := range recs {
		if err := w.WriteWithAppMetadata(rec, []byte("user")); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if err := closePut(ps); err != nil {
		t.Fatal(err)
	}
	got, err = get(ctx, c, []string{"from", "ipc"}, true, codec.None)
	if err != nil {
		t.Fatal(err)
	}
	checkEqual(t, got, recs)
	batches.Release(got)
}

// memStream is a DataStreamWriter and DataStreamReader in memory.
type memStream struct {
	msgs []*aflight.FlightData
	i    int
}

func (m *memStream) Send(fd *aflight.FlightData) error {
	// Copy as gRPC would marshal: the Writer reuses its buffers.
	c := &aflight.FlightData{
		FlightDescriptor: fd.FlightDescriptor,
		DataHeader:       bytes.Clone(fd.DataHeader),
		DataBody:         bytes.Clone(fd.DataBody),
		AppMetadata:      bytes.Clone(fd.AppMetadata),
	}
	m.msgs = append(m.msgs, c)
	return nil
}

func (m *memStream) Recv() (*aflight.FlightData, error) {
	if m.i == len(m.msgs) {
		return nil, io.EOF
	}
	m.i++
	return m.msgs[m.i-1], nil
}

// The user's app_metadata travels next to the marker and comes back
// without it; split blocks are joined; Read follows arrio.Reader.
func TestAppMetadataAndSplit(t *testing.T) {
	recs := lineitemBatches(3000, 10)
	defer batches.Release(recs)
	var m memStream
	w, err := NewWriter(&m, recs[0].Schema())
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxMessageSize(1 << 10) // split the first block in many parts
	if err := w.WriteWithAppMetadata(recs[0], []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMetadata([]byte("alone")); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs[1]); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMetadata([]byte("APKF...")); err == nil {
		t.Error("WriteMetadata took metadata that starts with the marker")
	}
	if len(m.msgs) < 10 {
		t.Fatalf("%d messages: the block was not split", len(m.msgs))
	}
	r, err := NewReader(&m)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	rec, err := r.Read()
	if err != nil || !array.RecordEqual(rec, recs[0]) || string(r.LatestAppMetadata()) != "first" {
		t.Fatalf("first batch: %v, metadata %q", err, r.LatestAppMetadata())
	}
	rec, err = r.Read()
	if err != nil || !array.RecordEqual(rec, recs[1]) || len(r.LatestAppMetadata()) != 0 {
		t.Fatalf("second batch: %v, metadata %q", err, r.LatestAppMetadata())
	}
	if rec, err = r.Read(); rec != nil || err != io.EOF {
		t.Fatalf("after the end: %v, %v", rec, err)
	}
}

package flight

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/randbatch"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// mapFixture is a map output stored in a test server's directory and what
// each partition holds.
type mapFixture struct {
	path   []string
	file   string
	schema *arrow.Schema
	want   [][]arrow.RecordBatch
}

// storeMapOutput writes a map output of parts partitions of random batches
// under path into the server's directory, each batch's rows sent to a
// partition drawn at random (the last partition left empty).
func storeMapOutput(t testing.TB, ts *testServer, path []string, seed uint64, parts, batches int, opts ...codec.Option) mapFixture {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	schema := randbatch.RandomSchema(r, 4, 1)
	file, err := MapOutputFile(ts.dir, path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := codec.CreateMapOutput(file, schema, parts, codec.MapOutputOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := codec.NewEncoder(schema, opts...)
	if err != nil {
		t.Fatal(err)
	}
	fx := mapFixture{path: path, file: file, schema: schema, want: make([][]arrow.RecordBatch, parts)}
	for range batches {
		rec := randbatch.Batch(memory.NewGoAllocator(), r, schema, 1+r.IntN(300), randbatch.Options{NullProb: 0.2, Slice: true})
		t.Cleanup(rec.Release)
		p := r.IntN(max(1, parts-1))
		block, err := enc.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteBlock(p, block); err != nil {
			t.Fatal(err)
		}
		fx.want[p] = append(fx.want[p], rec)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return fx
}

// readAll reads every batch of rr, checking each against want.
func readAll(t testing.TB, rr array.RecordReader, want []arrow.RecordBatch) error {
	t.Helper()
	i := 0
	for rr.Next() {
		if i >= len(want) {
			t.Fatalf("more than the %d batches stored", len(want))
		}
		if !array.RecordEqual(rr.RecordBatch(), want[i]) {
			t.Fatalf("batch %d differs", i)
		}
		i++
	}
	if err := rr.Err(); err != nil {
		return err
	}
	if i != len(want) {
		t.Fatalf("%d batches, stored %d", i, len(want))
	}
	return nil
}

func TestServeMapOutputPartitions(t *testing.T) {
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	ctx := testCtx(t, time.Minute)
	fx := storeMapOutput(t, ts, []string{"shuffle", "map0"}, 1, 5, 12, codec.WithCompression(codec.LZ4))
	for p := range 5 {
		tk, err := PartitionTicket(fx.path, p)
		if err != nil {
			t.Fatal(err)
		}
		// arrowpack, as stored and recompressed.
		for _, actx := range []context.Context{Accept(ctx, codec.LZ4), Accept(ctx, codec.Zstd)} {
			stream, err := c.DoGet(actx, tk)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(stream)
			if err != nil {
				t.Fatal(err)
			}
			if err := readAll(t, r, fx.want[p]); err != nil {
				t.Fatalf("partition %d: %v", p, err)
			}
			r.Release()
		}
		// A plain arrow-go client, with nothing of arrowpack: the ticket
		// built by hand as the documentation says, the stream read as IPC.
		stream, err := c.DoGet(ctx, &aflight.Ticket{Ticket: []byte("shuffle+map0@" + string(rune('0'+p)))})
		if err != nil {
			t.Fatal(err)
		}
		ir, err := aflight.NewRecordReader(stream)
		if err != nil {
			t.Fatal(err)
		}
		if err := readAll(t, ir, fx.want[p]); err != nil {
			t.Fatalf("partition %d as IPC: %v", p, err)
		}
		ir.Release()
	}

	fi, err := c.GetFlightInfo(ctx, &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: fx.path})
	if err != nil {
		t.Fatal(err)
	}
	if len(fi.Endpoint) != 5 {
		t.Fatalf("%d endpoints, want one per partition", len(fi.Endpoint))
	}
	var total int64
	for p, ep := range fi.Endpoint {
		var meta PartitionMeta
		if err := json.Unmarshal(ep.AppMetadata, &meta); err != nil {
			t.Fatal(err)
		}
		var rows int64
		for _, rec := range fx.want[p] {
			rows += rec.NumRows()
		}
		if meta.Partition != p || meta.Rows != rows || meta.Blocks != int64(len(fx.want[p])) || (rows == 0) != (meta.Bytes == 0) {
			t.Fatalf("endpoint %d: %+v, stored %d rows in %d blocks", p, meta, rows, len(fx.want[p]))
		}
		tk, _ := PartitionTicket(fx.path, p)
		if string(ep.Ticket.Ticket) != string(tk.Ticket) {
			t.Fatalf("endpoint %d ticket %q, want %q", p, ep.Ticket.Ticket, tk.Ticket)
		}
		total += rows
	}
	if fi.TotalRecords != total {
		t.Fatalf("TotalRecords %d, stored %d", fi.TotalRecords, total)
	}
	lf, err := c.ListFlights(ctx, &aflight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for {
		info, err := lf.Recv()
		if err != nil {
			break
		}
		found = found || len(info.Endpoint) == 5
	}
	if !found {
		t.Fatal("ListFlights does not list the map output")
	}

	for _, bad := range []struct {
		ticket string
		code   codes.Code
	}{{"shuffle+map0@5", codes.NotFound}, {"shuffle+map0@x", codes.InvalidArgument}, {"shuffle+map0@-1", codes.InvalidArgument},
		{"shuffle+map0@+1", codes.InvalidArgument}, {"shuffle+nosuch@0", codes.NotFound}} {
		stream, err := c.DoGet(ctx, &aflight.Ticket{Ticket: []byte(bad.ticket)})
		if err == nil {
			_, err = stream.Recv()
		}
		if status.Code(err) != bad.code {
			t.Errorf("ticket %q: %v, want %s", bad.ticket, err, bad.code)
		}
	}
}

// TestServeMapOutputDamaged: a block whose bytes changed, or an index
// whose row count lies, ends the partition's DoGet with DataLoss, both as
// stored bytes passed through and as IPC; the fetching reader reports it
// naming the map output.
func TestServeMapOutputDamaged(t *testing.T) {
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	ctx := testCtx(t, time.Minute)
	fx := storeMapOutput(t, ts, []string{"m"}, 2, 2, 6)
	data, err := os.ReadFile(fx.file)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(fx.file)
	m, err := codec.OpenMapOutput(f, int64(len(data)))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	info, _ := m.Partition(0)
	damage := map[string]func([]byte){
		"a byte of the last block": func(b []byte) { b[info.Offset+info.Length-3] ^= 1 },
		"the index's row count": func(b []byte) {
			foot := b[len(b)-32:]
			idx := binary.LittleEndian.Uint64(foot)
			parts := binary.LittleEndian.Uint64(foot[8:])
			e := b[idx+16:]
			binary.LittleEndian.PutUint64(e, binary.LittleEndian.Uint64(e)+1)
			binary.LittleEndian.PutUint32(foot[16:], codec.Checksum(b[idx:idx+parts*32]))
		},
	}
	for name, f := range damage {
		bad := append([]byte(nil), data...)
		f(bad)
		if err := os.WriteFile(fx.file, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		tk, _ := PartitionTicket(fx.path, 0)
		for _, actx := range []context.Context{metadataCtx(ctx, ""), ctx} {
			stream, err := c.DoGet(actx, tk)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(stream)
			if err == nil {
				for r.Next() {
				}
				err = r.Err()
				r.Release()
			}
			if status.Code(err) != codes.DataLoss {
				t.Errorf("%s: %v, want DataLoss", name, err)
			}
		}
		pr, err := FetchPartition(ctx, 0, []PartitionSource{{Client: c, Server: ts.addr, Path: fx.path}}, FetchOptions{})
		if err == nil {
			for pr.Next() {
			}
			err = pr.Err()
			pr.Release()
		}
		if status.Code(errors.Unwrap(err)) != codes.DataLoss && status.Code(err) != codes.DataLoss {
			t.Errorf("%s: FetchPartition: %v, want DataLoss", name, err)
		}
	}
}

// TestFetchPartition: a partition fetched from several map outputs on
// several servers holds every stored batch of it exactly once, whatever
// the concurrency and byte bound; a server that is gone is an error
// naming it.
func TestFetchPartition(t *testing.T) {
	ctx := testCtx(t, time.Minute)
	var sources []PartitionSource
	var fixtures []mapFixture
	var servers []*testServer
	for s := range 3 {
		ts := startServer(t, nil)
		servers = append(servers, ts)
		c := dial(t, ts.addr)
		for m := range 2 {
			path := []string{"job", "map" + string(rune('0'+2*s+m))}
			fx := storeMapOutput(t, ts, path, 7, 4, 10) // one seed: one schema for all
			fixtures = append(fixtures, fx)
			sources = append(sources, PartitionSource{Client: c, Server: ts.addr, Path: path})
		}
	}
	for _, o := range []FetchOptions{{}, {Concurrency: 1, MaxBytes: 1}, {Concurrency: 16, Recompress: true, Compression: codec.Zstd}} {
		for p := range 4 {
			pr, err := FetchPartition(ctx, p, sources, o)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for pr.Next() {
				got[recordKey(t, pr.RecordBatch())]++
			}
			if err := pr.Err(); err != nil {
				t.Fatal(err)
			}
			pr.Release()
			want := map[string]int{}
			for _, fx := range fixtures {
				for _, rec := range fx.want[p] {
					want[recordKey(t, rec)]++
				}
			}
			if len(got) != len(want) {
				t.Fatalf("partition %d: %d distinct batches, stored %d", p, len(got), len(want))
			}
			for k, n := range want {
				if got[k] != n {
					t.Fatalf("partition %d: a batch arrived %d times, stored %d", p, got[k], n)
				}
			}
		}
	}
	// Coalesced: the same rows, in batches of at least BatchRows but the
	// last.
	for p := range 4 {
		var wantRows int64
		var wantSum uint64
		for _, fx := range fixtures {
			for _, rec := range fx.want[p] {
				wantRows += rec.NumRows()
				wantSum += rowKeysSum(t, rec)
			}
		}
		pr, err := FetchPartition(ctx, p, sources, FetchOptions{BatchRows: 700, MaxBytes: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		var rows int64
		var sum uint64
		short := 0
		for pr.Next() {
			rec := pr.RecordBatch()
			if rec.NumRows() < 700 {
				short++
			}
			rows += rec.NumRows()
			sum += rowKeysSum(t, rec)
		}
		if err := pr.Err(); err != nil {
			t.Fatal(err)
		}
		pr.Release()
		if rows != wantRows || sum != wantSum || short > 1 {
			t.Fatalf("partition %d coalesced: %d rows (sum %#x), %d short batches; stored %d rows (sum %#x)", p, rows, sum, short, wantRows, wantSum)
		}
	}
	servers[1].stop()
	pr, err := FetchPartition(ctx, 0, sources, FetchOptions{})
	if err == nil {
		for pr.Next() {
		}
		err = pr.Err()
		pr.Release()
	}
	if err == nil {
		t.Fatal("a stopped server gave no error")
	}
	if !containsAll(err.Error(), servers[1].addr, "job/map") {
		t.Fatalf("the error does not name the server and map output: %v", err)
	}
}

// rowKeysSum is the sum of a hash of each row of rec (its uncompressed
// arrowpack block alone), which does not depend on how rows are batched.
func rowKeysSum(t testing.TB, rec arrow.RecordBatch) uint64 {
	var sum uint64
	for i := range rec.NumRows() {
		row := rec.NewSlice(i, i+1)
		h := fnv.New64a()
		h.Write([]byte(recordKey(t, row)))
		row.Release()
		sum += h.Sum64()
	}
	return sum
}

// recordKey is a batch's uncompressed arrowpack block, as a string.
func recordKey(t testing.TB, rec arrow.RecordBatch) string {
	enc, err := codec.NewEncoder(rec.Schema())
	if err != nil {
		t.Fatal(err)
	}
	b, err := enc.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

package flight

import (
	"time"

	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
)

// pieces cuts rec into slices of n rows.
func pieces(rec arrow.RecordBatch, n int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for off := int64(0); off < rec.NumRows(); off += int64(n) {
		out = append(out, rec.NewSlice(off, min(off+int64(n), rec.NumRows())))
	}
	return out
}

// A Writer with WithBlockRows sends small batches gathered into blocks of
// that many rows, metadata and Flush cutting a block short, and a Reader
// gets every row back in order.
func TestWriterCoalesces(t *testing.T) {
	recs := lineitemBatches(1000)
	defer batches.Release(recs)
	small := pieces(recs[0], 16)
	defer batches.Release(small)
	ms := &memStream{}
	w, err := NewWriter(ms, recs[0].Schema(), codec.WithBlockRows(256))
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range small {
		switch i {
		case 20: // 20*16 = 320 rows: a block of 256 went, 64 held
			if err := w.WriteWithAppMetadata(rec, []byte("meta")); err != nil {
				t.Fatal(err)
			}
		case 30:
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		default:
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(ms)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var rows []int64
	var got []arrow.RecordBatch
	var metaAt int
	for r.Next() {
		rec := r.RecordBatch()
		rows = append(rows, rec.NumRows())
		if string(r.LatestAppMetadata()) == "meta" && metaAt == 0 {
			metaAt = len(rows)
		}
		rec.Retain()
		got = append(got, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	defer batches.Release(got)
	// 256 | 80 (to the batch with metadata) | 176 (to the Flush) | 256, 256 | 0..
	want := []int64{256, 80, 160, 256, 248}
	if len(rows) != len(want) {
		t.Fatalf("blocks of %v rows, want %v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Fatalf("blocks of %v rows, want %v", rows, want)
		}
	}
	if metaAt != 2 {
		t.Fatalf("metadata came with block %d, want 2", metaAt)
	}
	checkRowsInOrder(t, got, recs[0])
}

// checkRowsInOrder checks that the batches got hold the rows of whole, in
// order, and returns how many they hold.
func checkRowsInOrder(t *testing.T, got []arrow.RecordBatch, whole arrow.RecordBatch) int64 {
	t.Helper()
	off := int64(0)
	for i, rec := range got {
		if off+rec.NumRows() > whole.NumRows() {
			t.Fatalf("block %d: more rows than written", i)
		}
		want := whole.NewSlice(off, off+rec.NumRows())
		same := array.RecordEqual(rec, want)
		want.Release()
		if !same {
			t.Fatalf("block %d: rows %d.. differ from the batches written", i, off)
		}
		off += rec.NumRows()
	}
	return off
}

// Coalesced through gRPC with Codec: a put of 16-row batches with
// WithBlockRows(256) stores blocks of 256 rows holding every row.
func TestWriterCoalescesOverGRPC(t *testing.T) {
	recs := lineitemBatches(1000)
	defer batches.Release(recs)
	small := pieces(recs[0], 16)
	defer batches.Release(small)
	withTransport(t, GRPCServerOptions(), GRPCDialOptions())
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	if err := put(ctx, c, []string{"co"}, recs[0].Schema(), small, codec.WithBlockRows(256)); err != nil {
		t.Fatal(err)
	}
	got, err := get(ctx, c, []string{"co"}, true, codec.None)
	if err != nil {
		t.Fatal(err)
	}
	defer batches.Release(got)
	for i, rec := range got {
		if n := rec.NumRows(); n != min(256, 1000-256*int64(i)) {
			t.Fatalf("block %d of %d rows", i, n)
		}
	}
	if off := checkRowsInOrder(t, got, recs[0]); off != 1000 {
		t.Fatalf("%d rows, want 1000", off)
	}
	batches.Release(got)
	got = nil
	waitLive(t)
}

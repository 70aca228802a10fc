package flight

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
)

// A batch whose block is over 64 MiB goes through a put and a get with
// default gRPC options on both ends (4 MiB receive limit): the Writer
// splits it and the Reader joins it.
func TestLargeBlock(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("moves 65 MiB several times: a minute under -race; runs in the plain build")
	}
	const values, size = 65, 1 << 20
	schema := arrow.NewSchema([]arrow.Field{{Name: "blob", Type: arrow.BinaryTypes.Binary}}, nil)
	b := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]byte, size)
	for range values {
		for i := 0; i < size; i += 8 {
			u := r.Uint64()
			for j := range 8 {
				v[i+j] = byte(u >> (8 * j))
			}
		}
		b.Append(v)
	}
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, values)
	col.Release()
	defer rec.Release()

	enc, err := codec.NewEncoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := enc.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(blk) < 64<<20 {
		t.Fatalf("block of %d bytes, want over 64 MiB", len(blk))
	}
	store, err := NewServerWith(t.TempDir(), ServerOptions{MaxBlock: 128 << 20}) // over the default
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, store)
	c := dial(t, ts.addr)
	ctx := testCtx(t, 5*time.Minute)
	if err := put(ctx, c, []string{"large"}, schema, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	got, err := get(ctx, c, []string{"large"}, true, codec.None)
	if err != nil {
		t.Fatal(err)
	}
	defer batches.Release(got)
	checkEqual(t, got, []arrow.RecordBatch{rec})
}

package codec

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// FuzzPartition builds a random schema and batches from a seed, and
// partition ids from the fuzzer's bytes, and checks what checkPartitioned
// checks: the decoded partitions equal arrow-go's Take of their rows, and
// uncompressed blocks are AppendBatches's. An id out of range must be
// refused, naming its row, with nothing written.
func FuzzPartition(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(0), []byte{0, 1, 2, 3, 4, 5})
	f.Add(uint64(7), uint8(200), uint8(1), []byte{9, 8, 7})
	f.Add(uint64(42), uint8(1), uint8(2), []byte{})
	f.Add(uint64(5), uint8(7), uint8(3), []byte{255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, seed uint64, np uint8, mode uint8, ids []byte) {
		p := int(np)%200 + 1
		r := rand.New(rand.NewPCG(seed, 0xf022))
		schema := randbatch.RandomSchema(r, 1+r.IntN(4), 2)
		if _, err := NewEncoder(schema); err != nil {
			t.Skip(err)
		}
		var recs []arrow.RecordBatch
		for range 1 + r.IntN(3) {
			recs = append(recs, randbatch.Batch(memory.DefaultAllocator, r, schema, r.IntN(80), randbatch.Options{NullProb: r.Float64(), Slice: r.IntN(2) == 0}))
		}
		defer func() {
			for _, rec := range recs {
				rec.Release()
			}
		}()
		// The ids: the fuzzer's bytes, two at a time, reduced to [0, p),
		// or, when they run out, the rows' splitmix.
		id := func(b, row int) uint32 {
			k := 2 * (b*97 + row)
			if k+2 <= len(ids) {
				return uint32(binary.LittleEndian.Uint16(ids[k:])) % uint32(p)
			}
			return uint32(splitmix(b, row) % uint64(p))
		}
		if mode&4 != 0 && recs[0].NumRows() > 0 {
			// One id out of range: the batch is refused whole.
			pb := make(partBlocks, p)
			pt, err := NewPartitioner(schema, p, pb.sink)
			if err != nil {
				t.Fatal(err)
			}
			parts := make([]uint32, recs[0].NumRows())
			bad := int(seed % uint64(len(parts)))
			parts[bad] = uint32(p) + uint32(mode)
			err = pt.Write(recs[0], parts)
			if !errors.Is(err, ErrInvalidBatch) {
				t.Fatalf("id %d >= P=%d at row %d: %v", parts[bad], p, bad, err)
			}
			if pt.Held() != 0 {
				t.Fatalf("a refused batch left %d bytes pending", pt.Held())
			}
			return
		}
		opts := []Option{WithCompression(partitionCompressions[int(mode)%len(partitionCompressions)])}
		if mode&8 != 0 {
			opts = append(opts, WithBlockRows(1+int(seed%37)))
		}
		if mode&16 != 0 {
			opts = append(opts, WithMemoryLimit(1+int(seed%4096)))
		}
		checkPartitioned(t, recs, p, id, opts...)
	})
}

package codec

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// fuzzSchemas are the schemas FuzzDecode decodes against: one per type the
// generator covers, each inside a struct and a list too, and one of many
// nested columns. The first byte of a fuzz input picks one.
var fuzzSchemas = sync.OnceValue(func() []*arrow.Schema {
	var out []*arrow.Schema
	for _, dt := range randbatch.AllTypes() {
		out = append(out, arrow.NewSchema([]arrow.Field{
			{Name: "a", Type: dt, Nullable: true},
			{Name: "b", Type: arrow.StructOf(arrow.Field{Name: "x", Type: dt, Nullable: true}), Nullable: true},
			{Name: "c", Type: arrow.ListOf(dt), Nullable: true},
		}, nil))
	}
	r := rand.New(rand.NewPCG(42, 42))
	out = append(out, randbatch.RandomSchema(r, 8, 3))
	return out
})

// validBlocks returns blocks of every fuzz schema, for seeds and for the
// corruption tests.
func validBlocks(t testing.TB) (schemaIndex []int, blocks [][]byte) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(7, 7))
	for i, s := range fuzzSchemas() {
		enc, err := NewEncoder(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, rows := range []int{0, 3, 17} {
			rec := randbatch.Batch(mem, r, s, rows, randbatch.Options{NullProb: 0.3, MaxListLen: 3, Slice: rows > 3})
			b, err := enc.Append(nil, rec)
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
			schemaIndex = append(schemaIndex, i)
			blocks = append(blocks, b)
		}
	}
	return schemaIndex, blocks
}

// checkDecoded is what must hold whatever bytes were decoded: an error that
// wraps ErrCorrupt or ErrSchemaMismatch, or a batch that validates fully and
// whose every value can be read.
func checkDecoded(t testing.TB, rec arrow.RecordBatch, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaMismatch) {
			t.Fatalf("Decode error wraps neither ErrCorrupt nor ErrSchemaMismatch: %v", err)
		}
		return
	}
	defer rec.Release()
	if err := array.ValidateRecordFull(rec); err != nil {
		t.Fatalf("Decode accepted a batch that does not validate: %v", err)
	}
	for _, c := range rec.Columns() {
		readAll(c)
	}
}

// readAll reads every value of arr, recursing into children, as a user of
// the batch would.
func readAll(arr arrow.Array) {
	switch a := arr.(type) {
	case array.ExtensionArray:
		readAll(a.Storage())
		return
	case *array.Struct:
		for i := range a.NumField() {
			readAll(a.Field(i))
		}
	case array.ListLike:
		readAll(a.ListValues())
		for i := range a.Len() {
			a.ValueOffsets(i)
		}
	case array.Union:
		for i := range a.NumFields() {
			readAll(a.Field(i))
		}
	case *array.Dictionary:
		readAll(a.Dictionary())
		readAll(a.Indices())
	case *array.RunEndEncoded:
		readAll(a.RunEndsArr())
		readAll(a.Values())
	}
	for i := range arr.Len() {
		_ = arr.ValueStr(i)
	}
}

func FuzzDecode(f *testing.F) {
	idx, blocks := validBlocks(f)
	for i, b := range blocks {
		f.Add(append([]byte{byte(idx[i])}, b...))
	}
	schemas := fuzzSchemas()
	decoders := make([]*Decoder, len(schemas))
	for i, s := range schemas {
		decoders[i], _ = NewDecoder(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		dec := decoders[int(data[0])%len(decoders)]
		rec, err := dec.Decode(data[1:])
		checkDecoded(t, rec, err)
	})
}

func FuzzRoundTrip(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(seed*37), uint16(seed*1000))
	}
	mem := memory.NewGoAllocator()
	f.Fuzz(func(t *testing.T, seed uint64, shape uint8, rows uint16) {
		r := rand.New(rand.NewPCG(seed, uint64(shape)))
		schema := randbatch.RandomSchema(r, 1+int(shape%6), int(shape/64))
		opts := randbatch.Options{NullProb: float64(shape%5) / 4, MaxListLen: 1 + int(shape%7), Slice: shape&1 == 1}
		rec := randbatch.Batch(mem, r, schema, int(rows%600), opts)
		defer rec.Release()
		roundTrip(t, rec)
	})
}

// TestCorruptBlocks truncates valid blocks at every length and changes
// their bytes one at a time: Decode must never panic, must report
// ErrCorrupt (or ErrSchemaMismatch), must release everything it allocated
// on the way, and whatever it accepts must be sound.
func TestCorruptBlocks(t *testing.T) {
	idx, blocks := validBlocks(t)
	schemas := fuzzSchemas()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	r := rand.New(rand.NewPCG(9, 9))
	for bi, b := range blocks {
		s := schemas[idx[bi]]
		for _, dec := range []*Decoder{must(NewDecoder(s)), must(NewDecoder(s, WithAllocator(mem)))} {
			for n := range len(b) {
				if _, err := dec.Decode(b[:n]); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s: block truncated to %d of %d bytes: %v, want ErrCorrupt", s, n, len(b), err)
				}
			}
			if _, err := dec.Decode(append(b[:len(b):len(b)], 0, 0, 0, 0, 0, 0, 0, 0)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: block with 8 bytes more: %v, want ErrCorrupt", s, err)
			}
			// Every byte of small blocks, a sample of the others; FuzzDecode
			// explores further.
			m := append([]byte(nil), b...)
			step := 1 + len(m)/256
			for i := r.IntN(step); i < len(m); i += step {
				old := m[i]
				for _, v := range []byte{old ^ 0xff, old ^ 1, old ^ 0x80, byte(r.Uint32())} {
					m[i] = v
					rec, err := dec.Decode(m)
					checkDecoded(t, rec, err)
				}
				m[i] = old
			}
			if n := mem.CurrentAlloc(); n != 0 {
				t.Fatalf("%s: %d bytes still allocated after decoding corrupt blocks", s, n)
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
	"github.com/pierrec/lz4/v4"
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
//
// Half of the blocks are raw blocks whose buffers went through every
// transform (flagLengths, flagTranspose), which only compressed blocks may
// carry: seal compresses one and sets its flags, so that a test or the
// fuzzer can corrupt the transformed bytes and still reach the checks that
// undo the transforms, not just the decompressor's. sealed[i] says which.
func validBlocks(t testing.TB) (schemaIndex []int, blocks [][]byte, sealed []bool) {
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
			if err != nil {
				t.Fatal(err)
			}
			raw := rawBlock(t, enc, rec, len(b), transformFlags)
			rec.Release()
			schemaIndex = append(schemaIndex, i, i)
			blocks = append(blocks, b, raw)
			sealed = append(sealed, false, true)
		}
	}
	return schemaIndex, blocks, sealed
}

// seal turns a raw block whose buffers went through the transforms xf into
// an LZ4-compressed block carrying those flags, as an Encoder would write
// it. The raw block need not be valid; nothing but its length is checked.
func seal(raw []byte, xf flags) []byte {
	if len(raw) < headerSize || len(raw)%8 != 0 {
		return raw
	}
	body := raw[headerSize:]
	z := make([]byte, lz4.CompressBlockBound(len(body)))
	n, err := lz4.CompressBlock(body, z, nil)
	if err != nil || n == 0 {
		// Incompressible: an LZ4 block of one literal run.
		z = z[:1]
		z[0] = byte(min(len(body), 15)) << 4
		if rest := len(body) - 15; rest >= 0 {
			for ; rest >= 255; rest -= 255 {
				z = append(z, 255)
			}
			z = append(z, byte(rest))
		}
		z = append(z, body...)
		n = len(z)
	}
	stored := 16 + bufferSize(n) // one section
	b := make([]byte, headerSize+stored)
	copy(b, raw[:headerSize])
	b[5] = byte(LZ4)
	binary.LittleEndian.PutUint16(b[6:], uint16(xf))
	binary.LittleEndian.PutUint64(b[24:], uint64(stored))
	binary.LittleEndian.PutUint64(b[32:], uint64(len(body)))
	w := writer{buf: b, pos: headerSize}
	w.word(1)
	w.word(uint64(len(body))<<8 | uint64(LZ4))
	w.bytes(z[:n])
	return b
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
		touchAll(c)
	}
}

func FuzzDecode(f *testing.F) {
	// The first byte picks the schema (its low 7 bits) and whether the
	// rest is a raw transformed block to seal (its high bit).
	idx, blocks, sealed := validBlocks(f)
	for i, b := range blocks {
		sel := byte(idx[i])
		if sealed[i] {
			sel |= 0x80
		}
		f.Add(append([]byte{sel}, b...))
		if !sealed[i] {
			f.Add(append([]byte{sel}, sealBlock(bytes.Clone(b), 0)...))
		}
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
		dec := decoders[int(data[0]&0x7f)%len(decoders)]
		block := data[1:]
		if data[0]&0x80 != 0 {
			block = seal(block, transformFlags)
		}
		rec, err := dec.Decode(block)
		if err == nil && flags(binary.LittleEndian.Uint16(block[6:]))&flagChecksum == 0 {
			// A checksum trailer changes nothing of what a block holds.
			got, err := dec.Decode(sealBlock(bytes.Clone(block), 0))
			if err != nil {
				t.Fatalf("a block that decodes is refused with its checksum trailer: %v", err)
			}
			checkSame(t, rec, got, dec.Schema())
			got.Release()
		}
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
	idx, blocks, sealed := validBlocks(t)
	schemas := fuzzSchemas()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	r := rand.New(rand.NewPCG(9, 9))
	for bi, b := range blocks {
		s := schemas[idx[bi]]
		for _, dec := range []*Decoder{must(NewDecoder(s)), must(NewDecoder(s, WithAllocator(mem)))} {
			decode := dec.Decode
			if sealed[bi] {
				decode = func(raw []byte) (arrow.RecordBatch, error) { return dec.Decode(seal(raw, transformFlags)) }
				// Undone, the transforms give back the plain block's batch.
				got, err := decode(b)
				if err != nil {
					t.Fatalf("%s: sealed transformed block: %v", s, err)
				}
				want := must(dec.Decode(blocks[bi-1]))
				checkSame(t, want, got, s)
				got.Release()
				want.Release()
			}
			// Every truncation and every byte of small blocks; with
			// -short (CI's -race run, where each sealed decode costs a
			// compression) a sample of both.
			cut, flips := 1, 256
			if testing.Short() {
				cut, flips = 7, 16
			}
			for n := 0; n < len(b); n += cut {
				if _, err := decode(b[:n]); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s: block truncated to %d of %d bytes: %v, want ErrCorrupt", s, n, len(b), err)
				}
			}
			if _, err := decode(append(b[:len(b):len(b)], 0, 0, 0, 0, 0, 0, 0, 0)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: block with 8 bytes more: %v, want ErrCorrupt", s, err)
			}
			// Every byte of small blocks, a sample of the others; FuzzDecode
			// explores further.
			m := append([]byte(nil), b...)
			step := 1 + len(m)/flips
			for i := r.IntN(step); i < len(m); i += step {
				old := m[i]
				for _, v := range []byte{old ^ 0xff, old ^ 1, old ^ 0x80, byte(r.Uint32())} {
					m[i] = v
					rec, err := decode(m)
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

package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// WithBlockChecksum changes a block only by its header flag and trailer,
// the block decodes to the same batch, and every mutation of it (each byte
// changed, several bytes changed, truncations, bytes appended) is refused
// with ErrCorrupt, where the same mutations of the block without a
// checksum decode to other data.
func TestBlockChecksum(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(31, 4))
	undetected := 0
	for _, c := range []Compression{None, LZ4, Zstd, MinLZ, Light} {
		for seed := range 4 {
			schema := randbatch.RandomSchema(r, 1+seed, 1)
			rec := randbatch.Batch(mem, r, schema, 1+r.IntN(100), randbatch.Options{NullProb: 0.2, MaxListLen: 3})
			plain := must(must(NewEncoder(schema, WithCompression(c))).Append(nil, rec))
			block := must(must(NewEncoder(schema, WithCompression(c), WithBlockChecksum(true))).Append(nil, rec))
			want := sealBlock(bytes.Clone(plain), 0)
			if !bytes.Equal(block, want) || len(block) != len(plain)+blockTrailer {
				t.Fatalf("%s: a checksummed block of %d bytes is not the plain block of %d with the flag and trailer", c, len(block), len(plain))
			}
			if f := binary.LittleEndian.Uint16(block[6:]); f != binary.LittleEndian.Uint16(plain[6:])|1<<15 {
				t.Fatalf("%s: flags %#x", c, f)
			}
			info := must(ReadBlockInfo(block))
			if !info.Checksummed || info.Size != len(block) || must(ReadBlockInfo(plain)).Checksummed {
				t.Fatalf("%s: ReadBlockInfo %+v", c, info)
			}
			dec := must(NewDecoder(schema))
			got := must(dec.Decode(block))
			checkSame(t, rec, got, schema)
			got.Release()
			refused := func(b []byte, what string) {
				t.Helper()
				rec, err := dec.Decode(b)
				if err == nil {
					rec.Release()
					t.Fatalf("%s: a checksummed block %s decodes", c, what)
				}
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s: a checksummed block %s: %v, want ErrCorrupt", c, what, err)
				}
			}
			for i := range block {
				m := bytes.Clone(block)
				m[i] ^= byte(1 + r.IntN(255))
				refused(m, "with a byte changed")
				if i < len(plain) {
					p := bytes.Clone(plain)
					p[i] = m[i]
					if rec, err := dec.Decode(p); err == nil {
						undetected++
						rec.Release()
					}
				}
			}
			for range 200 {
				m := bytes.Clone(block)
				for range 2 + r.IntN(4) {
					m[r.IntN(len(m))] ^= byte(1 + r.IntN(255))
				}
				if !bytes.Equal(m, block) {
					refused(m, "with bytes changed")
				}
			}
			for n := 0; n < len(block); n++ {
				refused(block[:n], "cut short")
			}
			refused(append(bytes.Clone(block), make([]byte, 8)...), "with 8 bytes after it")
			rec.Release()
		}
	}
	t.Logf("of the same one-byte changes to blocks without a checksum, %d decoded", undetected)
}

// A Writer with WithBlockChecksum writes checksummed blocks that a Reader
// reads.
func TestBlockChecksumStream(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(31, 5))
	schema := randbatch.RandomSchema(r, 3, 1)
	rec := randbatch.Batch(mem, r, schema, 50, randbatch.Options{NullProb: 0.2})
	defer rec.Release()
	var buf bytes.Buffer
	w := must(NewWriter(&buf, schema, WithCompression(LZ4), WithBlockChecksum(true)))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rr := must(NewRawReaderBytes(buf.Bytes()))
	raw := must(rr.Next(nil))
	if !must(ReadBlockInfo(raw.Bytes)).Checksummed {
		t.Fatal("the Writer's block has no checksum")
	}
	rd := must(NewReader(bytes.NewReader(buf.Bytes())))
	if !rd.Next() {
		t.Fatalf("Reader: %v", rd.Err())
	}
	checkSame(t, rec, rd.RecordBatch(), rd.Schema())
}

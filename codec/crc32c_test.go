package codec

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// castagnoli is hash/crc32's Castagnoli table: the tests' reference for the
// checksums of stream headers and frames, independent of Checksum.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// TestChecksumIsCRC32C checks that Checksum gives hash/crc32's CRC32C, the
// values every stream written so far carries, at lengths around every
// path of the kernel and at a few block sizes.
func TestChecksumIsCRC32C(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 20))
	b := make([]byte, 1<<20+13)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	lengths := []int{1 << 16, 1<<16 + 5, 300000, len(b)}
	for n := 0; n <= 4200; n += 1 + n/64 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		if got, want := Checksum(b[:n]), crc32.Checksum(b[:n], castagnoli); got != want {
			t.Fatalf("Checksum of %d bytes = %#08x, hash/crc32 says %#08x", n, got, want)
		}
	}
}

package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestPackedPlanes checks packed byte planes: a section of floats whose
// top planes hold a few distinct bytes packs them and decodes exactly,
// and a packed plane whose index names no byte of its table, or whose
// table claims one distinct byte, is refused.
func TestPackedPlanes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	n := 1000
	raw := make([]byte, 8*n+8)
	for i := range n {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(r.Uint32())|uint64(r.IntN(3))<<56) // top plane: 0, 1, 2
	}
	p := planesChoice{w: 8, n: n, packed: 1 << 7}
	st := newFastLZ4()
	z := encodePlanes(st, new(lightScratch), make([]byte, planesBound(n, 8, 8)), raw, p)
	if z[planesHeader+7] != planePacked {
		t.Fatalf("top plane of codec %d, want packed", z[planesHeader+7])
	}
	got := make([]byte, len(raw))
	if err := decodePlanes(got, z); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("decoded %v, equal %v", err, bytes.Equal(got, raw))
	}
	// The packed plane is the last: d-1 = 2, bytes 0 1 2, then indices
	// of 2 bits, before the 8-byte tail.
	at := len(z) - 8 - (1 + 3 + (n+3)/4)
	if !bytes.Equal(z[at:at+4], []byte{2, 0, 1, 2}) {
		t.Fatalf("packed plane starts % x", z[at:at+4])
	}
	bad := bytes.Clone(z)
	bad[at+4] |= 3 // index 3 of 3 bytes
	if err := decodePlanes(got, bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("index past the plane's bytes: %v", err)
	}
	bad = bytes.Clone(z)
	bad[at] = 0 // one distinct byte
	if err := decodePlanes(got, bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("one distinct byte: %v", err)
	}
}

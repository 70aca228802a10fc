package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
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

// checkRoom checks a section encoder given less room than bound, as
// notOverLZ4's trials give it: for every room up to extra bytes past what
// full room takes, encode writes the same section as with full room when
// that fits and returns nil when it does not; the section decodes to raw.
func checkRoom(t *testing.T, name string, raw []byte, bound, extra int, decode func(raw, src []byte) error, encode func(dst []byte) []byte) {
	t.Helper()
	full := bytes.Clone(encode(make([]byte, bound)))
	for room := 0; room <= len(full)+extra; room++ {
		z := encode(make([]byte, room))
		switch {
		case room >= len(full) && !bytes.Equal(z, full):
			t.Fatalf("%s room %d: %d bytes, want the %d of full room", name, room, len(z), len(full))
		case room < len(full) && z != nil:
			t.Fatalf("%s room %d: %d bytes, want nil (full room takes %d)", name, room, len(z), len(full))
		}
	}
	got := make([]byte, len(raw))
	if err := decode(got, full); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("%s: decoded %v, equal %v", name, err, bytes.Equal(got, raw))
	}
}

// TestPlanesRoom checks encodePlanes given less room than planesBound, as
// notOverLZ4's trials give it: for every room it writes the same section
// as with full room when that fits, and returns nil when it does not,
// whether the planes are raw, LZ4 or packed and with a tail.
func TestPlanesRoom(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	n := 300
	raw := make([]byte, 8*n+5)
	for i := range n {
		// Plane 0 random (raw), 1 a few values (packed or LZ4), 2 runs
		// (LZ4), the rest zero.
		v := uint64(r.Uint32()&0xff) | uint64(r.IntN(4))<<8 | uint64(i/50)<<16
		binary.LittleEndian.PutUint64(raw[8*i:], v)
	}
	st, ls := newFastLZ4(), new(lightScratch)
	for _, p := range []planesChoice{
		{w: 8, n: n, lz4: 0xff},
		{w: 8, n: n, lz4: 0xfd, packed: 0x02},
		{w: 4, n: 2 * n, lz4: 0x0f},
	} {
		checkRoom(t, fmt.Sprintf("%+v", p), raw, planesBound(p.n, p.w, len(raw)-p.n*p.w), 300, decodePlanes,
			func(dst []byte) []byte { return encodePlanes(st, ls, dst, raw, p) })
	}
}

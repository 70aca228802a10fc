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
		full := bytes.Clone(encodePlanes(st, ls, make([]byte, planesBound(p.n, p.w, len(raw)-p.n*p.w)), raw, p))
		for room := 0; room <= len(full)+300; room++ {
			z := encodePlanes(st, ls, make([]byte, room), raw, p)
			switch {
			case room >= len(full) && !bytes.Equal(z, full):
				t.Fatalf("%+v room %d: %d bytes, want the %d of full room", p, room, len(z), len(full))
			case room < len(full) && z != nil:
				t.Fatalf("%+v room %d: %d bytes, want nil (full room takes %d)", p, room, len(z), len(full))
			}
		}
		got := make([]byte, len(raw))
		if err := decodePlanes(got, full); err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("%+v: decoded %v, equal %v", p, err, bytes.Equal(got, raw))
		}
	}
}

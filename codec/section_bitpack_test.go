package codec

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/arrowpack/arrowpack"
)

// deltaSection returns a bit-packed section of 4-byte values in delta
// mode: first, then the given deltas, packed against their minimum.
func deltaSection(first int32, deltas []int32) []byte {
	lo := deltas[0]
	for _, d := range deltas {
		lo = min(lo, d)
	}
	vals := make([]uint32, len(deltas))
	hi := uint32(0)
	for i, d := range deltas {
		vals[i] = uint32(d - lo)
		hi = max(hi, vals[i])
	}
	b := widthOf(uint64(hi))
	src := make([]byte, bitpackHeader+arrowpack.PackedLen(len(vals), b))
	src[0], src[1], src[2] = 4, modeDelta, byte(b)
	binary.LittleEndian.PutUint32(src[4:], uint32(len(deltas)+1))
	binary.LittleEndian.PutUint64(src[8:], uint64(uint32(lo)))
	binary.LittleEndian.PutUint64(src[16:], uint64(uint32(first)))
	arrowpack.BitPack32(src[bitpackHeader:], vals, 0, b)
	return src
}

// TestBitpackDeltaSigns checks what FORMAT.md says of delta sections: each
// delta must be non-negative (the encoder uses delta only for
// non-decreasing values), so deltas 5, -3, 4, -6, 10 after 100 are
// corrupt although their running sums stay positive, while 5, 0, 4, 6, 10
// decode to their sums.
func TestBitpackDeltaSigns(t *testing.T) {
	raw := make([]byte, 6*4)
	err := decodeBitpack(raw, deltaSection(100, []int32{5, -3, 4, -6, 10}))
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("negative deltas: got %v, want an error wrapping ErrCorrupt", err)
	}
	if err := decodeBitpack(raw, deltaSection(100, []int32{5, 0, 4, 6, 10})); err != nil {
		t.Fatal(err)
	}
	want := []uint32{100, 105, 105, 109, 115, 125}
	for i, w := range want {
		if got := binary.LittleEndian.Uint32(raw[4*i:]); got != w {
			t.Fatalf("value %d: %d, want %d", i, got, w)
		}
	}
}

package codec

import (
	"encoding/binary"
	"math"

	"github.com/arrowpack/arrowpack"
)

// decodeBitpack fills raw, exactly, from a bit-packing section
// (section_bitpack_enc.go has the layout), checking every header field
// before it uses one: w 4 or 8, a known mode, b <= 8w, n values inside
// raw, the packed bytes and the tail exactly the rest of the section, and
// in delta mode a non-empty vector whose running sums do not overflow.
func decodeBitpack(raw, src []byte) error {
	if len(src) < bitpackHeader {
		return corruptf("bit-packed section of %d bytes, shorter than its header", len(src))
	}
	w, mode, b := int(src[0]), int(src[1]), int(src[2])
	n := uint64(binary.LittleEndian.Uint32(src[4:]))
	base := binary.LittleEndian.Uint64(src[8:])
	first := binary.LittleEndian.Uint64(src[16:])
	if w != 4 && w != 8 && w != 16 || mode > modeFirst || w == 16 && mode != modeFOR || src[3] != 0 {
		return corruptf("bit-packed section of %d-byte values in mode %d (flags %d)", w, mode, src[3])
	}
	if b > min(8*w, 64) {
		return corruptf("bit-packed section of %d-bit values packed in %d bits", 8*w, b)
	}
	if n*uint64(w) > uint64(len(raw)) || n > lightMaxValues {
		return corruptf("bit-packed section of %d values of %d bytes holds %d bytes", n, w, len(raw))
	}
	if mode == modeFOR && first != 0 {
		return corruptf("bit-packed section with a first value outside delta mode")
	}
	if w == 4 && (base > math.MaxUint32 || first > math.MaxUint32) {
		return corruptf("bit-packed section of 4-byte values with an 8-byte reference")
	}
	k := int(n)
	if mode != modeFOR {
		if n == 0 {
			return corruptf("bit-packed section in mode %d without values", mode)
		}
		k--
	}
	vals := int(n) * w
	packed := arrowpack.PackedLen(k, b)
	if len(src)-bitpackHeader != packed+len(raw)-vals {
		return corruptf("bit-packed section of %d bytes, want %d packed and a tail of %d", len(src)-bitpackHeader, packed, len(raw)-vals)
	}
	p := src[bitpackHeader : bitpackHeader+packed]
	switch w {
	case 16:
		// Unpack the low words into the upper half of the values, then
		// spread them out from the front: value i's words go to words 2i
		// and 2i+1, which hold only low words already read.
		u := view[uint64](raw[:vals])[:2*n]
		arrowpack.BitUnpack64(u[n:], p, base, b)
		for i := range int(n) {
			lo := u[int(n)+i]
			u[2*i], u[2*i+1] = lo, uint64(int64(lo)>>63)
		}
	case 8:
		out := view[uint64](raw[:vals])[:n]
		switch mode {
		case modeFOR:
			arrowpack.BitUnpack64(out, p, base, b)
		case modeFirst:
			arrowpack.BitUnpack64(out[1:], p, base, b)
			out[0] = first
		default:
			arrowpack.BitUnpack64(out[1:], p, base, b)
			o := view[int64](raw[:vals])[:n]
			if !arrowpack.LengthsToOffsets64(o, o[1:], math.MaxInt64) {
				return corruptf("bit-packed deltas are negative or overflow")
			}
			addFirst(out, first)
		}
	default:
		out := view[uint32](raw[:vals])[:n]
		switch mode {
		case modeFOR:
			arrowpack.BitUnpack32(out, p, uint32(base), b)
		case modeFirst:
			arrowpack.BitUnpack32(out[1:], p, uint32(base), b)
			out[0] = uint32(first)
		default:
			arrowpack.BitUnpack32(out[1:], p, uint32(base), b)
			o := view[int32](raw[:vals])[:n]
			if !arrowpack.LengthsToOffsets32(o, o[1:], math.MaxInt32) {
				return corruptf("bit-packed deltas are negative or overflow")
			}
			addFirst(out, uint32(first))
		}
	}
	copy(raw[vals:], src[bitpackHeader+packed:])
	return nil
}

// addFirst adds first to every value of v, wrapping around: the running
// sums of a delta section start at 0.
func addFirst[T uint32 | uint64](v []T, first T) {
	if first == 0 {
		return
	}
	for i := range v {
		v[i] += first
	}
}

package codec

import (
	"encoding/binary"
	"math"

	"github.com/arrowpack/arrowpack"
)

// decodeALP fills raw, exactly, from an ALP section (section_alp_enc.go has
// the layout), checking every header field before it uses one: w 4 or 8,
// e and f in range, b <= 8w, n values inside raw, at most n exceptions, the
// packed integers, positions, exception values and tail exactly the rest
// of the section, and the positions strictly increasing below n.
func decodeALP(raw, src []byte) error {
	if len(src) < alpHeader {
		return corruptf("alp section of %d bytes, shorter than its header", len(src))
	}
	w, e, f, b := int(src[0]), int(src[1]), int(src[2]), int(src[3])
	n := uint64(binary.LittleEndian.Uint32(src[4:]))
	base := binary.LittleEndian.Uint64(src[8:])
	x := uint64(binary.LittleEndian.Uint32(src[16:]))
	maxE := alpMaxExp64
	if w == 4 {
		maxE = alpMaxExp32
	}
	if w != 4 && w != 8 || e > maxE || f > e || binary.LittleEndian.Uint32(src[20:]) != 0 {
		return corruptf("alp section of %d-byte values with exponent %d and factor %d", w, e, f)
	}
	if b > 8*w || w == 4 && base > math.MaxUint32 {
		return corruptf("alp section of %d-byte values packed in %d bits from %#x", w, b, base)
	}
	if n*uint64(w) > uint64(len(raw)) || x > n || n > lightMaxValues {
		return corruptf("alp section of %d values of %d bytes and %d exceptions holds %d bytes", n, w, x, len(raw))
	}
	vals := int(n) * w
	packed := arrowpack.PackedLen(int(n), b)
	if uint64(len(src)-alpHeader) != uint64(packed)+x*uint64(4+w)+uint64(len(raw)-vals) {
		return corruptf("alp section of %d bytes, want %d packed, %d exceptions and a tail of %d", len(src), packed, x, len(raw)-vals)
	}
	at := alpHeader + packed
	pos := src[at : at+4*int(x)]
	exc := src[at+4*int(x) : at+int(x)*(4+w)]
	if w == 8 {
		ints := view[uint64](raw[:vals])[:n]
		arrowpack.BitUnpack64(ints, src[alpHeader:at], base, b)
		arrowpack.ALPDecode64(view[float64](raw[:vals])[:n], view[int64](raw[:vals])[:n], alpPow64[f], alpInv64[e])
	} else {
		ints := view[uint32](raw[:vals])[:n]
		arrowpack.BitUnpack32(ints, src[alpHeader:at], uint32(base), b)
		arrowpack.ALPDecode32(view[float32](raw[:vals])[:n], view[int32](raw[:vals])[:n], alpPow32[f], alpInv32[e])
	}
	next := uint64(0)
	for i := range int(x) {
		p := uint64(binary.LittleEndian.Uint32(pos[4*i:]))
		if p < next || p >= n {
			return corruptf("alp exception %d at value %d, after %d of %d values", i, p, next, n)
		}
		copy(raw[int(p)*w:int(p+1)*w], exc[i*w:(i+1)*w])
		next = p + 1
	}
	copy(raw[vals:], src[at+int(x)*(4+w):])
	return nil
}

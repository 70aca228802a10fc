package codec

import (
	"encoding/binary"
	"sync"

	"github.com/arrowpack/arrowpack"
	"github.com/pierrec/lz4/v4"
)

// planeScratch is room to decode a byte-plane section's planes into
// before untransposing them, at most the section's raw length.
var planeScratch = sync.Pool{New: func() any { return new([]byte) }}

// decodePlanes fills raw, exactly, from a byte-plane section
// (section_planes_enc.go has the layout), checking every header field
// before it uses one: w 4 or 8, n at most 2^20 and n*w at most r, known
// plane codecs, raw planes of n bytes, the planes and the tail exactly the
// rest of the section, each LZ4 plane decoding to exactly n bytes.
func decodePlanes(raw, src []byte) error {
	if len(src) < planesHeader {
		return corruptf("byte-plane section of %d bytes, shorter than its header", len(src))
	}
	w := int(src[0])
	n := uint64(binary.LittleEndian.Uint32(src[4:]))
	if w != 4 && w != 8 || src[1]|src[2]|src[3] != 0 {
		return corruptf("byte-plane section of %d-byte values", w)
	}
	if n > lightMaxValues || n*uint64(w) > uint64(len(raw)) || len(src) < planesHeader+5*w {
		return corruptf("byte-plane section of %d values of %d bytes in %d raw bytes", n, w, len(raw))
	}
	vals := int(n) * w
	total := uint64(planesHeader + 5*w)
	for j := range w {
		codec := src[planesHeader+j]
		size := uint64(binary.LittleEndian.Uint32(src[planesHeader+w+4*j:]))
		if codec > 1 || codec == 0 && size != n || codec == 1 && (size == 0 || n > 255*size) {
			return corruptf("byte plane %d of codec %d stores %d bytes for %d", j, codec, size, n)
		}
		total += size
	}
	if total+uint64(len(raw)-vals) != uint64(len(src)) {
		return corruptf("byte-plane section of %d bytes, its planes and tail take %d", len(src), total+uint64(len(raw)-vals))
	}
	sp := planeScratch.Get().(*[]byte)
	defer planeScratch.Put(sp)
	if cap(*sp) < vals {
		*sp = make([]byte, vals)
	}
	t := (*sp)[:vals]
	at := planesHeader + 5*w
	for j := range w {
		size := int(binary.LittleEndian.Uint32(src[planesHeader+w+4*j:]))
		plane := t[j*int(n) : (j+1)*int(n)]
		if src[planesHeader+j] == 0 {
			copy(plane, src[at:at+size])
		} else if got, err := lz4.UncompressBlock(src[at:at+size], plane); err != nil || got != int(n) {
			return corruptf("byte plane %d: lz4 gave %d bytes of %d (%v)", j, got, n, err)
		}
		at += size
	}
	arrowpack.UntransposeBytes(raw[:vals], t, w)
	copy(raw[vals:], src[at:])
	return nil
}

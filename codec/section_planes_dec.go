package codec

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"

	"github.com/arrowpack/arrowpack"
	"github.com/pierrec/lz4/v4"
)

// planeScratch is room to decode a byte-plane section's planes into
// before untransposing them, at most the section's raw length.
var planeScratch = sync.Pool{New: func() any { return new([]byte) }}

// planeIndices is room to unpack a packed plane's indices into, n uint32s
// (4n bytes of a section of at least n*w raw bytes).
var planeIndices = sync.Pool{New: func() any { return new([]uint32) }}

// decodePlanes fills raw, exactly, from a byte-plane section
// (section_planes_enc.go has the layout), checking every header field
// before it uses one: w 4 or 8, n at most 2^20 and n*w at most r, known
// plane codecs, raw planes of n bytes, packed planes of at least 2
// distinct bytes and exactly the bytes their indices take, the planes and
// the tail exactly the rest of the section, each LZ4 plane decoding to
// exactly n bytes, each packed index naming one of its plane's bytes.
func decodePlanes(raw, src []byte) error {
	w, n, err := planesHead(src, "byte-plane")
	if err != nil {
		return err
	}
	if n > lightMaxValues || n*uint64(w) > uint64(len(raw)) || len(src) < planesHeader+5*w {
		return corruptf("byte-plane section of %d values of %d bytes in %d raw bytes", n, w, len(raw))
	}
	vals := int(n) * w
	total := uint64(planesHeader + 5*w)
	for j := range w {
		codec := src[planesHeader+j]
		size := uint64(binary.LittleEndian.Uint32(src[planesHeader+w+4*j:]))
		if codec > planePacked || codec == planeRaw && size != n || codec == planeLZ4 && (size == 0 || n > 255*size) ||
			codec == planePacked && (size < 3 || n > 8*size) {
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
		switch src[planesHeader+j] {
		case planeRaw:
			copy(plane, src[at:at+size])
		case planeLZ4:
			if got, err := lz4.UncompressBlock(src[at:at+size], plane); err != nil || got != int(n) {
				return corruptf("byte plane %d: lz4 gave %d bytes of %d (%v)", j, got, n, err)
			}
		case planePacked:
			if err := unpackPlane(plane, src[at:at+size]); err != nil {
				return fmt.Errorf("byte plane %d: %w", j, err)
			}
		}
		at += size
	}
	arrowpack.UntransposeBytes(raw[:vals], t, w)
	copy(raw[vals:], src[at:])
	return nil
}

// planesHead returns w and n from the header of a byte-plane or transposed
// LZ4 section (what names it in errors), which the two share: w 4 or 8,
// then 3 zero bytes, then n.
func planesHead(src []byte, what string) (w int, n uint64, err error) {
	if len(src) < 8 {
		return 0, 0, corruptf("%s section of %d bytes, shorter than its header", what, len(src))
	}
	w = int(src[0])
	if w != 4 && w != 8 || src[1]|src[2]|src[3] != 0 {
		return 0, 0, corruptf("%s section of %d-byte values", what, w)
	}
	return w, uint64(binary.LittleEndian.Uint32(src[4:])), nil
}

// unpackPlane fills plane from its packed bytes z (at least 3, checked by
// decodePlanes): d-1, the d distinct bytes, the indices, which must take
// exactly the rest of z and each name one of the d bytes.
func unpackPlane(plane, z []byte) error {
	d := int(z[0]) + 1
	if d < 2 || len(z) < 1+d {
		return corruptf("packed plane of %d bytes holds %d distinct bytes", len(z), d)
	}
	width := bits.Len(uint(d - 1))
	if want := 1 + d + arrowpack.PackedLen(len(plane), width); len(z) != want {
		return corruptf("packed plane of %d bytes, %d values of %d bits take %d", len(z), len(plane), width, want)
	}
	var vals [256]byte
	copy(vals[:], z[1:1+d])
	ip := planeIndices.Get().(*[]uint32)
	defer planeIndices.Put(ip)
	if cap(*ip) < len(plane) {
		*ip = make([]uint32, len(plane))
	}
	idx := (*ip)[:len(plane)]
	arrowpack.BitUnpack32(idx, z[1+d:], 0, width)
	for i, x := range idx {
		if x >= uint32(d) {
			return corruptf("packed plane index %d names byte %d of %d", i, x, d)
		}
		plane[i] = vals[uint8(x)]
	}
	return nil
}

package arrowpack

import (
	"encoding/binary"
	"math/bits"
)

// The pure-Go bitmap kernels, part of genericImpl (codec_generic.go).

func shiftBitsGeneric(dst, src []byte, k uint) {
	i := 0
	// Eight bytes at a time while src holds the byte after the word.
	for ; i+8 < len(src) && i+8 <= len(dst); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])>>k | uint64(src[i+8])<<(64-k)
		binary.LittleEndian.PutUint64(dst[i:], w)
	}
	for ; i < len(dst); i++ {
		b := src[i] >> k
		if i+1 < len(src) {
			b |= src[i+1] << (8 - k)
		}
		dst[i] = b
	}
}

func popcountGeneric(b []byte) int {
	c := 0
	for len(b) >= 32 {
		c += bits.OnesCount64(binary.LittleEndian.Uint64(b)) +
			bits.OnesCount64(binary.LittleEndian.Uint64(b[8:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(b[16:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(b[24:]))
		b = b[32:]
	}
	for len(b) >= 8 {
		c += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, v := range b {
		c += bits.OnesCount8(v)
	}
	return c
}

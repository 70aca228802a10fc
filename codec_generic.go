package arrowpack

import (
	"encoding/binary"
	"math/bits"
)

// The pure-Go kernels: the reference every vector path is tested against,
// and the path used on other architectures and under -tags purego.

var genericImpl = impl{
	name:            "generic",
	rebase32:        rebaseGeneric[int32],
	rebase64:        rebaseGeneric[int64],
	nondecreasing32: nondecreasingGeneric[int32],
	nondecreasing64: nondecreasingGeneric[int64],
	shiftBits:       shiftBitsGeneric,
	popcount:        popcountGeneric,
	transpose:       transposeGeneric,
	untranspose:     untransposeGeneric,
	deltas32:        deltasGeneric[int32],
	deltas64:        deltasGeneric[int64],
	prefixSum32:     prefixSumGeneric[int32],
	prefixSum64:     prefixSumGeneric[int64],
	isASCII:         isASCIIGeneric,
	max8:            maxGeneric[uint8],
	max16:           maxGeneric[uint16],
	max32:           maxGeneric[uint32],
	max64:           maxGeneric[uint64],
}

// offset is the element type of Arrow offsets.
type offset interface{ int32 | int64 }

func rebaseGeneric[T offset](dst, src []T, base T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v - base
	}
}

func nondecreasingGeneric[T offset](x []T) bool {
	if len(x) == 0 {
		return true
	}
	// Fold the comparisons without a branch per element; real offsets are
	// valid, so the scan always runs to the end anyway.
	bad := false
	prev := x[0]
	for _, v := range x[1:] {
		bad = bad || v < prev
		prev = v
	}
	return !bad
}

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

// maxGeneric returns the largest element of x, 0 if x is empty. Four
// independent running maxima keep the compare-and-select chains apart.
func maxGeneric[T uint8 | uint16 | uint32 | uint64](x []T) T {
	var m0, m1, m2, m3 T
	for len(x) >= 4 {
		m0 = max(m0, x[0])
		m1 = max(m1, x[1])
		m2 = max(m2, x[2])
		m3 = max(m3, x[3])
		x = x[4:]
	}
	for _, v := range x {
		m0 = max(m0, v)
	}
	return max(m0, m1, m2, m3)
}

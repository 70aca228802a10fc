package arrowpack

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// The pure-Go copy-and-check kernels, part of genericImpl (codec_generic.go)
// and, below 32 bytes, the vector path's (copycheck_vec.go). len(dst) ==
// len(src); they do not overlap.
//
// Below smallCopy bytes each is one fused loop, which costs less than the
// calls to memmove and to the check. From there on a fused loop in Go
// gains nothing over copy (runtime.memmove, itself vectorised) and then
// the check on what is now in cache, so each is just that.

// smallCopy is the length in bytes below which the kernels run one fused
// scalar loop; the vector path hands them exactly those inputs.
const smallCopy = 32

func copyASCIIGeneric(dst, src []byte) bool {
	n := len(src)
	if n >= smallCopy {
		copy(dst, src)
		return isASCIIGeneric(src)
	}
	dst = dst[:n]
	if n >= 8 {
		// Whole words, the last one overlapping the one before.
		var acc uint64
		for i := 0; i < n-8; i += 8 {
			w := binary.LittleEndian.Uint64(src[i:])
			binary.LittleEndian.PutUint64(dst[i:], w)
			acc |= w
		}
		w := binary.LittleEndian.Uint64(src[n-8:])
		binary.LittleEndian.PutUint64(dst[n-8:], w)
		return (acc|w)&0x8080808080808080 == 0
	}
	var acc byte
	for i, c := range src {
		dst[i] = c
		acc |= c
	}
	return acc < 0x80
}

func copyMaxGeneric[T uint8 | uint16 | uint32 | uint64](dst, src []T) T {
	var zero T
	if len(src)*int(unsafe.Sizeof(zero)) >= smallCopy {
		copy(dst, src)
		return maxGeneric(src)
	}
	dst = dst[:len(src)]
	m := zero
	for i, v := range src {
		dst[i] = v
		m = max(m, v)
	}
	return m
}

func copyCountOnesGeneric(dst, src []byte) int {
	n := len(src)
	if n >= smallCopy {
		copy(dst, src)
		return popcountGeneric(src)
	}
	dst = dst[:n]
	c, i := 0, 0
	for ; i+8 <= n; i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		binary.LittleEndian.PutUint64(dst[i:], w)
		c += bits.OnesCount64(w)
	}
	for ; i < n; i++ {
		dst[i] = src[i]
		c += bits.OnesCount8(src[i])
	}
	return c
}

// rebaseNondecreasingGeneric fuses the subtraction and the comparison with
// the previous value at every length, folding the comparisons without a
// branch per element as nondecreasingGeneric does: the separate kernels
// would each be such a loop too.
func rebaseNondecreasingGeneric[T offset](dst, src []T, base T) bool {
	if len(src) == 0 {
		return true
	}
	dst = dst[:len(src)]
	bad := false
	prev := src[0]
	for i, v := range src {
		dst[i] = v - base
		bad = bad || v < prev
		prev = v
	}
	return !bad
}

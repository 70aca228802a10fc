// Package arrowpack holds the bulk kernels that the arrowpack block codec runs
// over every offset and validity buffer: rebasing and validating offsets,
// copying bitmaps to bit 0 and counting their set bits.
//
// Each kernel has a pure-Go reference version (codec_generic.go) and, on amd64
// with AVX2 and on arm64 with ASIMD, a vector version in assembly. The version
// is chosen once, at start-up, from the CPU's features; Implementation reports
// which. Building with -tags purego forces the generic versions everywhere.
//
// The kernels know nothing of Arrow; package codec builds on them.
package arrowpack

import "math/bits"

// impl is one implementation of the kernels' inner loops. The exported
// functions check their arguments, slice the inputs and then call the active
// impl, so every impl sees well-formed, equally long slices.
type impl struct {
	name string
	// rebase32 sets dst[i] = src[i] - base; len(dst) == len(src).
	rebase32 func(dst, src []int32, base int32)
	rebase64 func(dst, src []int64, base int64)
	// nondecreasing32 reports whether x[i] <= x[i+1] for every i.
	nondecreasing32 func(x []int32) bool
	nondecreasing64 func(x []int64) bool
	// shiftBits sets dst[j] = src[j]>>k | src[j+1]<<(8-k) for every j <
	// len(dst), with src[len(dst)] taken as 0 when len(src) == len(dst);
	// 1 <= k <= 7 and len(src) is len(dst) or len(dst)+1.
	shiftBits func(dst, src []byte, k uint)
	// popcount returns the number of set bits in b.
	popcount func(b []byte) int
}

// impls lists every implementation this machine can run, the generic one
// first; active is the one the exported functions use. Both are set by init
// functions before main runs and never change afterwards.
var (
	impls  = []*impl{&genericImpl}
	active = &genericImpl
)

// Implementation returns the name of the kernel path chosen on this machine:
// "avx2", "neon" or "generic".
func Implementation() string { return active.name }

// RebaseOffsets32 sets dst[i] = src[i] - base for every i < len(src). dst may
// be src itself. It panics if len(dst) < len(src).
func RebaseOffsets32(dst, src []int32, base int32) {
	active.rebase32(dst[:len(src)], src, base)
}

// RebaseOffsets64 sets dst[i] = src[i] - base for every i < len(src). dst may
// be src itself. It panics if len(dst) < len(src).
func RebaseOffsets64(dst, src []int64, base int64) {
	active.rebase64(dst[:len(src)], src, base)
}

// ValidOffsets32 reports whether offsets is a valid Arrow offsets buffer for
// data of limit bytes or elements: true iff len(offsets) == 0, or offsets[0]
// >= 0, the offsets never decrease and the last one is <= limit.
func ValidOffsets32(offsets []int32, limit int32) bool {
	return validOffsets32(active, offsets, limit)
}

// ValidOffsets64 is ValidOffsets32 for 64-bit offsets.
func ValidOffsets64(offsets []int64, limit int64) bool {
	return validOffsets64(active, offsets, limit)
}

// CopyBits copies n bits of src, starting at bit srcOffset (Arrow's LSB-first
// bit order), to bits [0, n) of dst. The unused high bits of the last byte
// written are cleared; no other byte of dst is touched. It panics if
// srcOffset or n is negative, or if src or dst is too short.
func CopyBits(dst, src []byte, srcOffset, n int) {
	copyBits(active, dst, src, srcOffset, n)
}

// CountOnes returns the number of set bits in bits [offset, offset+n) of
// bits, in Arrow's LSB-first bit order. It panics if offset or n is negative
// or if bits is too short.
func CountOnes(bits []byte, offset, n int) int {
	return countOnes(active, bits, offset, n)
}

func validOffsets32(im *impl, offsets []int32, limit int32) bool {
	if len(offsets) == 0 {
		return true
	}
	return offsets[0] >= 0 && offsets[len(offsets)-1] <= limit && im.nondecreasing32(offsets)
}

func validOffsets64(im *impl, offsets []int64, limit int64) bool {
	if len(offsets) == 0 {
		return true
	}
	return offsets[0] >= 0 && offsets[len(offsets)-1] <= limit && im.nondecreasing64(offsets)
}

func copyBits(im *impl, dst, src []byte, srcOffset, n int) {
	if srcOffset < 0 || n < 0 {
		panic("arrowpack: CopyBits with a negative offset or length")
	}
	if n == 0 {
		return
	}
	nbytes := (n + 7) >> 3
	dst = dst[:nbytes]
	src = src[srcOffset>>3 : (srcOffset+n+7)>>3]
	if k := uint(srcOffset & 7); k == 0 {
		copy(dst, src)
	} else {
		im.shiftBits(dst, src, k)
	}
	if r := n & 7; r != 0 {
		dst[nbytes-1] &= byte(1)<<r - 1
	}
}

func countOnes(im *impl, b []byte, offset, n int) int {
	if offset < 0 || n < 0 {
		panic("arrowpack: CountOnes with a negative offset or length")
	}
	if n == 0 {
		return 0
	}
	end := offset + n
	b = b[offset>>3 : (end+7)>>3]
	c := im.popcount(b)
	// Take away the bits of the first byte before offset and of the last
	// byte from end on.
	c -= bits.OnesCount8(b[0] & (byte(1)<<(offset&7) - 1))
	if r := end & 7; r != 0 {
		c -= bits.OnesCount8(b[len(b)-1] >> r)
	}
	return c
}

package arrowpack

import (
	"math/bits"
	"unsafe"
)

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

	// transpose sets dst[j*n+i] = src[i*width+j] for every i < n =
	// len(src)/width and j < width; untranspose sets dst[i*width+j] =
	// src[j*n+i]. width is 2, 4, 8 or 16, len(src) is a multiple of it,
	// len(dst) == len(src), and dst and src do not overlap.
	transpose   func(dst, src []byte, width int)
	untranspose func(dst, src []byte, width int)
	// deltas sets dst[i] = x[i+1] - x[i] (wrapping) for every i <
	// len(dst); len(x) == len(dst)+1. dst may start where x starts;
	// otherwise they do not overlap.
	deltas32 func(dst, x []int32)
	deltas64 func(dst, x []int64)
	// prefixSum sets dst[i] = x[0] + ... + x[i] (wrapping) for every i <
	// len(x) and reports whether every x[i] and every dst[i] is >= 0;
	// len(dst) == len(x). dst may be x itself; otherwise they do not
	// overlap.
	prefixSum32 func(dst, x []int32) (nonneg bool)
	prefixSum64 func(dst, x []int64) (nonneg bool)

	// isASCII reports whether every byte of b is below 0x80.
	isASCII func(b []byte) bool
	// max returns the largest element of x, 0 if x is empty.
	max8  func(x []uint8) uint8
	max16 func(x []uint16) uint16
	max32 func(x []uint32) uint32
	max64 func(x []uint64) uint64
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
	return validOffsets(offsets, limit, im.nondecreasing32)
}

func validOffsets64(im *impl, offsets []int64, limit int64) bool {
	return validOffsets(offsets, limit, im.nondecreasing64)
}

func validOffsets[T offset](offsets []T, limit T, nondecreasing func([]T) bool) bool {
	if len(offsets) == 0 {
		return true
	}
	return offsets[0] >= 0 && offsets[len(offsets)-1] <= limit && nondecreasing(offsets)
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

// TransposeBytes splits the n = len(src)/width values of width bytes in src
// into width planes of n bytes, the first byte of every value, then the
// second, and so on: dst[j*n+i] = src[i*width+j] for every i < n and j <
// width. Planes of like bytes (the high bytes of small integers, the
// exponents of floats) compress much better than the values they came from.
//
// width must be 2, 4, 8 or 16 and len(src) a multiple of it; dst must hold
// len(src) bytes and not overlap src. Only dst[:len(src)] is written.
// TransposeBytes panics if any of this does not hold.
func TransposeBytes(dst, src []byte, width int) {
	transposeBytes(active, dst, src, width)
}

// UntransposeBytes is the inverse of TransposeBytes: it joins the width
// planes of n = len(src)/width bytes in src into n values of width bytes,
// dst[i*width+j] = src[j*n+i] for every i < n and j < width.
//
// width must be 2, 4, 8 or 16 and len(src) a multiple of it; dst must hold
// len(src) bytes and not overlap src. Only dst[:len(src)] is written.
// UntransposeBytes panics if any of this does not hold.
func UntransposeBytes(dst, src []byte, width int) {
	untransposeBytes(active, dst, src, width)
}

// OffsetsToLengths32 sets dst[i] = offsets[i+1] - offsets[i] for every i <
// len(offsets)-1: the lengths of the values an Arrow offsets buffer
// delimits. Fewer than two offsets give no lengths. The differences wrap
// around as Go's subtraction does; nothing is validated (ValidOffsets32
// does that).
//
// dst may start at the same element as offsets, which turns the offsets
// into lengths in place: OffsetsToLengths32(o, o) leaves the lengths in
// o[:len(o)-1] (and o[len(o)-1] as it was). Otherwise dst and offsets must
// not overlap. It panics if len(dst) < len(offsets)-1 or if dst overlaps
// offsets other than by starting at the same element. Only
// dst[:len(offsets)-1] is written.
func OffsetsToLengths32(dst, offsets []int32) {
	offsetsToLengths32(active, dst, offsets)
}

// OffsetsToLengths64 is OffsetsToLengths32 for 64-bit offsets.
func OffsetsToLengths64(dst, offsets []int64) {
	offsetsToLengths64(active, dst, offsets)
}

// LengthsToOffsets32 is the inverse of OffsetsToLengths32 that validates as
// it goes: it sets dst[0] = 0 and dst[i+1] = dst[i] + lengths[i] for every
// i < len(lengths), and reports whether the result is a valid offsets
// buffer for limit bytes or elements of data. It returns false, leaving the
// contents of dst[:len(lengths)+1] unspecified, if any length is negative
// or any running total exceeds limit (for a negative limit, always). A
// total that would overflow int32 exceeds limit; no wrapped value is ever
// accepted.
//
// lengths may be dst[1:len(lengths)+1] itself, which turns lengths stored
// one element into an offsets buffer into the offsets in place. Otherwise
// dst and lengths must not overlap. It panics if len(dst) < len(lengths)+1
// or if dst overlaps lengths other than by lengths starting at dst[1].
// Only dst[:len(lengths)+1] is written.
func LengthsToOffsets32(dst, lengths []int32, limit int32) bool {
	return lengthsToOffsets32(active, dst, lengths, limit)
}

// LengthsToOffsets64 is LengthsToOffsets32 for 64-bit offsets.
func LengthsToOffsets64(dst, lengths []int64, limit int64) bool {
	return lengthsToOffsets64(active, dst, lengths, limit)
}

// checkTranspose panics unless dst and src are valid arguments of
// TransposeBytes or UntransposeBytes, and returns dst[:len(src)].
func checkTranspose(fn string, dst, src []byte, width int) []byte {
	switch width {
	case 2, 4, 8, 16:
	default:
		panic("arrowpack: " + fn + " with a width other than 2, 4, 8 or 16")
	}
	if len(src)%width != 0 {
		panic("arrowpack: " + fn + " of a src whose length is not a multiple of width")
	}
	if len(dst) < len(src) {
		panic("arrowpack: " + fn + " with a dst shorter than src")
	}
	dst = dst[:len(src)]
	if overlap(dst, src) {
		panic("arrowpack: " + fn + " with overlapping dst and src")
	}
	return dst
}

func transposeBytes(im *impl, dst, src []byte, width int) {
	dst = checkTranspose("TransposeBytes", dst, src, width)
	im.transpose(dst, src, width)
}

func untransposeBytes(im *impl, dst, src []byte, width int) {
	dst = checkTranspose("UntransposeBytes", dst, src, width)
	im.untranspose(dst, src, width)
}

func offsetsToLengths32(im *impl, dst, offsets []int32) {
	offsetsToLengths("OffsetsToLengths32", dst, offsets, im.deltas32)
}

func offsetsToLengths64(im *impl, dst, offsets []int64) {
	offsetsToLengths("OffsetsToLengths64", dst, offsets, im.deltas64)
}

func offsetsToLengths[T offset](fn string, dst, offsets []T, deltas func(dst, x []T)) {
	if len(offsets) < 2 {
		return
	}
	dst = dst[:len(offsets)-1]
	if overlap(dst, offsets) && &dst[0] != &offsets[0] {
		panic("arrowpack: " + fn + " with a dst that overlaps offsets but does not start with it")
	}
	deltas(dst, offsets)
}

func lengthsToOffsets32(im *impl, dst, lengths []int32, limit int32) bool {
	return lengthsToOffsets("LengthsToOffsets32", dst, lengths, limit, im.prefixSum32)
}

func lengthsToOffsets64(im *impl, dst, lengths []int64, limit int64) bool {
	return lengthsToOffsets("LengthsToOffsets64", dst, lengths, limit, im.prefixSum64)
}

func lengthsToOffsets[T offset](fn string, dst, lengths []T, limit T, prefixSum func(dst, x []T) bool) bool {
	n := len(lengths)
	dst = dst[:n+1]
	if overlap(dst, lengths) && &lengths[0] != &dst[1] {
		panic("arrowpack: " + fn + " with a dst that overlaps lengths other than at dst[1:]")
	}
	dst[0] = 0
	if n == 0 {
		return limit >= 0
	}
	// With no negative length and no negative running total, no total
	// wrapped around (each is below half the type's range and the next adds
	// less than that, so a wrap would have shown as a negative total); then
	// the totals never decrease and the last one is the largest.
	return prefixSum(dst[1:], lengths) && dst[n] <= limit
}

// MaxUint8/16/32/64 return the largest value in x, or 0 if x is empty. The
// codec checks dictionary indices with them: one scan for the largest index
// instead of a bounds check per value.
func MaxUint8(x []uint8) uint8 { return active.max8(x) }

// MaxUint16 returns the largest value in x, or 0 if x is empty.
func MaxUint16(x []uint16) uint16 { return active.max16(x) }

// MaxUint32 returns the largest value in x, or 0 if x is empty.
func MaxUint32(x []uint32) uint32 { return active.max32(x) }

// MaxUint64 returns the largest value in x, or 0 if x is empty.
func MaxUint64(x []uint64) uint64 { return active.max64(x) }

// overlap reports whether a and b share any element.
func overlap[T any](a, b []T) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	var zero T
	size := unsafe.Sizeof(zero)
	pa := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	pb := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b))*size && pb < pa+uintptr(len(a))*size
}

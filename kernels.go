package arrowpack

import (
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

	// pack sets dst to the packed bytes of src (bitpack.go); len(dst) ==
	// PackedLen(len(src), width) and 0 <= width <= the value size.
	// unpack is its inverse, len(src) == PackedLen(len(dst), width).
	pack32   func(dst []byte, src []uint32, base uint32, width int)
	pack64   func(dst []byte, src []uint64, base uint64, width int)
	unpack32 func(dst []uint32, src []byte, base uint32, width int)
	unpack64 func(dst []uint64, src []byte, base uint64, width int)
	// minmax returns the smallest and the largest element of x, (0, 0)
	// if x is empty.
	minmax32    func(x []uint32) (lo, hi uint32)
	minmax64    func(x []uint64) (lo, hi uint64)
	minmaxInt32 func(x []int32) (lo, hi int32)
	minmaxInt64 func(x []int64) (lo, hi int64)
	// alp sets dst[i] = float(src[i]) * f * e; len(dst) == len(src).
	alp64 func(dst []float64, src []int64, f, e float64)
	alp32 func(dst []float32, src []int32, f, e float32)

	// The fused copy-and-check kernels (copycheck.go): each copies src
	// into dst (rebaseNondecreasing: src[i] - base) and returns what its
	// check of src found; len(dst) == len(src) and they do not overlap.
	copyASCII             func(dst, src []byte) bool
	copyMax8              func(dst, src []uint8) uint8
	copyMax16             func(dst, src []uint16) uint16
	copyMax32             func(dst, src []uint32) uint32
	copyMax64             func(dst, src []uint64) uint64
	rebaseNondecreasing32 func(dst, src []int32, base int32) bool
	rebaseNondecreasing64 func(dst, src []int64, base int64) bool
	copyCountOnes         func(dst, src []byte) int

	// scatter stores src[r] at the cursor of partition parts[r] and
	// advances it (scatter.go); len(src) == len(parts). A partition out
	// of range panics, the rows before it written.
	scatter32 func(cur []Cursor, src []uint32, parts []uint32)
	scatter64 func(cur []Cursor, src []uint64, parts []uint32)
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

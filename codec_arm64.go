//go:build !purego

package arrowpack

import "unsafe"

// The NEON (ASIMD) routines in codec_arm64.s, which kernels_vec.go calls as
// it calls the AVX2 ones. Each keeps the contract of its amd64 namesake,
// written once in asm/ and generated into the comments of codec_amd64.go;
// only the block size differs, the unit of which every count a routine
// returns is a whole number: one 64-byte block of four Q registers here,
// where amd64 takes one 32-byte vector (the transpositions' blocks are the
// same on both). Each declaration below gives its block size.

// rebase32Vec works in blocks of 16 elements.
//
//go:noescape
func rebase32Vec(dst, src []int32, base int32) int

// rebase64Vec works in blocks of 8 elements.
//
//go:noescape
func rebase64Vec(dst, src []int64, base int64) int

// nondecreasing32Vec works in blocks of 16 pairs.
//
//go:noescape
func nondecreasing32Vec(x []int32) (n int, ok bool)

// nondecreasing64Vec works in blocks of 8 pairs.
//
//go:noescape
func nondecreasing64Vec(x []int64) (n int, ok bool)

// shiftBitsVec works in blocks of 64 bytes.
//
//go:noescape
func shiftBitsVec(dst, src []byte, k uint) int

// popcountVec works in blocks of 64 bytes.
//
//go:noescape
func popcountVec(b []byte) (ones, n int)

// transpose2Vec works in blocks of 32 values.
//
//go:noescape
func transpose2Vec(dst, src []byte) int

// transpose4Vec works in blocks of 32 values.
//
//go:noescape
func transpose4Vec(dst, src []byte) int

// transpose8Vec works in blocks of 32 values.
//
//go:noescape
func transpose8Vec(dst, src []byte) int

// transpose16Vec works in blocks of 16 values.
//
//go:noescape
func transpose16Vec(dst, src []byte) int

// untranspose2Vec works in blocks of 32 values.
//
//go:noescape
func untranspose2Vec(dst, src []byte) int

// untranspose4Vec works in blocks of 32 values.
//
//go:noescape
func untranspose4Vec(dst, src []byte) int

// untranspose8Vec works in blocks of 32 values.
//
//go:noescape
func untranspose8Vec(dst, src []byte) int

// untranspose16Vec works in blocks of 16 values.
//
//go:noescape
func untranspose16Vec(dst, src []byte) int

// deltas32Vec works in blocks of 16 elements.
//
//go:noescape
func deltas32Vec(dst, x []int32) int

// deltas64Vec works in blocks of 8 elements.
//
//go:noescape
func deltas64Vec(dst, x []int64) int

// prefixSum32Vec works in blocks of 16 elements.
//
//go:noescape
func prefixSum32Vec(dst, x []int32, carry int32) (n int, nonneg bool)

// prefixSum64Vec works in blocks of 8 elements.
//
//go:noescape
func prefixSum64Vec(dst, x []int64, carry int64) (n int, nonneg bool)

// asciiVec works in blocks of 64 bytes.
//
//go:noescape
func asciiVec(b []byte) (n int, ok bool)

// max8Vec works in blocks of 64 elements.
//
//go:noescape
func max8Vec(x []uint8) (m uint8, n int)

// max16Vec works in blocks of 32 elements.
//
//go:noescape
func max16Vec(x []uint16) (m uint16, n int)

// max32Vec works in blocks of 16 elements.
//
//go:noescape
func max32Vec(x []uint32) (m uint32, n int)

// max64Vec works in blocks of 8 elements.
//
//go:noescape
func max64Vec(x []uint64) (m uint64, n int)

// histogramVec adds to counts[v] the number of bytes of src[:n] equal to v,
// where n is len(src) rounded down to a multiple of 32, and returns n.
// It reads nothing at or past src[n].
//
//go:noescape
func histogramVec(counts *[256]uint32, src []byte) int

// The bit-packing routines work in blocks of 256 values, as on amd64, but
// leave width 0 to Go: they return 0 for it.
//
//go:noescape
func unpack32Vec(dst []uint32, src []byte, base uint32, width int) int

//go:noescape
func unpack64Vec(dst []uint64, src []byte, base uint64, width int) int

//go:noescape
func pack32Vec(dst []byte, src []uint32, base uint32, width int) int

//go:noescape
func pack64Vec(dst []byte, src []uint64, base uint64, width int) int

// The min/max routines work in blocks of 8 (32-bit) or 4 (64-bit)
// elements, two Q registers.
//
//go:noescape
func minmaxU32Vec(x []uint32) (lo, hi uint32, n int)

//go:noescape
func minmaxI32Vec(x []int32) (lo, hi int32, n int)

//go:noescape
func minmaxU64Vec(x []uint64) (lo, hi uint64, n int)

//go:noescape
func minmaxI64Vec(x []int64) (lo, hi int64, n int)

// The ALP routines work in blocks of 4 (float64) or 8 (float32)
// elements; alp64Vec handles every int64 (SCVTF has no domain limit), so
// it never stops early.
//
//go:noescape
func alp64Vec(dst []float64, src []int64, f, e float64) int

//go:noescape
func alp32Vec(dst []float32, src []int32, f, e float32) int

// scatterWordsVec is scatter32Vec (shift 2) and scatter64Vec (shift 3) in
// one routine, src the first value.
//
//go:noescape
func scatterWordsVec(cur []uintptr, src unsafe.Pointer, parts []uint32, shift int) int

// scatter32Vec and scatter64Vec do every row, one at a time.
func scatter32Vec(cur []uintptr, src []uint32, parts []uint32) int {
	return scatterWordsVec(cur, unsafe.Pointer(unsafe.SliceData(src)), parts, 2)
}

func scatter64Vec(cur []uintptr, src []uint64, parts []uint32) int {
	return scatterWordsVec(cur, unsafe.Pointer(unsafe.SliceData(src)), parts, 3)
}

//go:build !purego

package arrowpack

// The NEON copy-and-check routines in copycheck_arm64.s, which
// copycheck_vec.go calls as it calls the AVX2 ones, with the same
// contracts (asm/copycheck.go, and the comments in codec_amd64.go): each
// does the whole input given at least 32 bytes of it (the rebase one
// element more).
//
// TEMPORARY: Go stand-ins until copycheck_arm64.s lands.

func copyASCIIVec(dst, src []byte) bool     { return copyASCIIGeneric(dst, src) }
func copyMax8Vec(dst, src []uint8) uint8    { return copyMaxGeneric(dst, src) }
func copyMax16Vec(dst, src []uint16) uint16 { return copyMaxGeneric(dst, src) }
func copyMax32Vec(dst, src []uint32) uint32 { return copyMaxGeneric(dst, src) }
func copyMax64Vec(dst, src []uint64) uint64 { return copyMaxGeneric(dst, src) }
func copyCountOnesVec(dst, src []byte) int  { return copyCountOnesGeneric(dst, src) }
func rebaseNondecreasing32Vec(dst, src []int32, base int32) bool {
	return rebaseNondecreasingGeneric(dst, src, base)
}
func rebaseNondecreasing64Vec(dst, src []int64, base int64) bool {
	return rebaseNondecreasingGeneric(dst, src, base)
}

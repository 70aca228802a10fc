//go:build !purego

package arrowpack

// The NEON copy-and-check routines in copycheck_arm64.s, which
// copycheck_vec.go calls as it calls the AVX2 ones, with the same
// contracts (asm/copycheck.go, and the comments in codec_amd64.go): each
// does the whole input, given at least 32 bytes of it (the rebase one
// element more).

//go:noescape
func copyASCIIVec(dst, src []byte) bool

//go:noescape
func copyMax8Vec(dst, src []uint8) uint8

//go:noescape
func copyMax16Vec(dst, src []uint16) uint16

//go:noescape
func copyMax32Vec(dst, src []uint32) uint32

//go:noescape
func copyMax64Vec(dst, src []uint64) uint64

//go:noescape
func rebaseNondecreasing32Vec(dst, src []int32, base int32) bool

//go:noescape
func rebaseNondecreasing64Vec(dst, src []int64, base int64) bool

//go:noescape
func copyCountOnesVec(dst, src []byte) int

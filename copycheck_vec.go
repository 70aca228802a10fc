//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector copy-and-check kernels. The assembly does the whole input,
// tail included (see asm/copycheck.go), but needs one 32-byte vector of it
// (the rebase one element more); shorter inputs go to the generic kernels,
// a copy of a few bytes and a check of at most 31 bytes, cheaper than the
// call and the vector setup.

func copyASCIIVector(dst, src []byte) bool {
	if len(src) < 32 {
		return copyASCIIGeneric(dst, src)
	}
	return copyASCIIVec(dst, src)
}

func copyCountOnesVector(dst, src []byte) int {
	if len(src) < 32 {
		return copyCountOnesGeneric(dst, src)
	}
	return copyCountOnesVec(dst, src)
}

// copyMaxVector returns the copyMax kernel for values of type T, which
// takes at least lanes values.
func copyMaxVector[T uint8 | uint16 | uint32 | uint64](asm func(dst, src []T) T, lanes int) func(dst, src []T) T {
	return func(dst, src []T) T {
		if len(src) < lanes {
			return copyMaxGeneric(dst, src)
		}
		return asm(dst, src)
	}
}

func rebaseNondecreasingVector[T offset](asm func(dst, src []T, base T) bool, lanes int) func(dst, src []T, base T) bool {
	return func(dst, src []T, base T) bool {
		if len(src) <= lanes {
			return rebaseNondecreasingGeneric(dst, src, base)
		}
		return asm(dst, src, base)
	}
}

var (
	copyMax8Vector              = copyMaxVector(copyMax8Vec, 32)
	copyMax16Vector             = copyMaxVector(copyMax16Vec, 16)
	copyMax32Vector             = copyMaxVector(copyMax32Vec, 8)
	copyMax64Vector             = copyMaxVector(copyMax64Vec, 4)
	rebaseNondecreasing32Vector = rebaseNondecreasingVector(rebaseNondecreasing32Vec, 8)
	rebaseNondecreasing64Vector = rebaseNondecreasingVector(rebaseNondecreasing64Vec, 4)
)

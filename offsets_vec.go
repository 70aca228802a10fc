//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector offsets kernels: the assembly does whole blocks, Go the rest
// (see kernels_vec.go).

// The offsets kernels are the same Go around an int32 and an int64
// assembly routine; each wrapper below is made once per width.

func rebaseVector[T offset](asm func(dst, src []T, base T) int) func(dst, src []T, base T) {
	return func(dst, src []T, base T) {
		n := 0
		if len(src) >= minVec {
			n = asm(dst, src, base)
		}
		rebaseGeneric(dst[n:], src[n:], base)
	}
}

func nondecreasingVector[T offset](asm func(x []T) (int, bool)) func(x []T) bool {
	return func(x []T) bool {
		n := 0
		if len(x) >= minVec {
			var ok bool
			if n, ok = asm(x); !ok {
				return false
			}
		}
		return nondecreasingGeneric(x[n:])
	}
}

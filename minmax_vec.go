//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector min/max kernels: the assembly does whole pairs of vectors, Go
// folds in the tail (see kernels_vec.go).

func minmaxVector[T uint32 | uint64 | int32 | int64](asm func(x []T) (T, T, int)) func([]T) (T, T) {
	return func(x []T) (T, T) {
		if len(x) < minVec {
			return minmaxGeneric(x)
		}
		lo, hi, n := asm(x)
		for _, v := range x[n:] {
			lo = min(lo, v)
			hi = max(hi, v)
		}
		return lo, hi
	}
}

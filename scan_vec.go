//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector scan kernels: the assembly does whole blocks, Go the rest
// (see kernels_vec.go).

// The maxima: the assembly's maximum of its blocks, then the tail's.

func isASCIIVector(b []byte) bool {
	n := 0
	if len(b) >= minVec {
		var ok bool
		if n, ok = asciiVec(b); !ok {
			return false
		}
	}
	return isASCIIGeneric(b[n:])
}

// maxVector returns the max kernel for values of type T: vec over whole
// vector blocks, then maxGeneric over the tail.
func maxVector[T uint8 | uint16 | uint32 | uint64](vec func(x []T) (T, int)) func([]T) T {
	return func(x []T) T {
		if len(x) < minVec {
			return maxGeneric(x)
		}
		m, n := vec(x)
		return max(m, maxGeneric(x[n:]))
	}
}

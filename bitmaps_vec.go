//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector bitmap kernels: the assembly does whole blocks, Go the rest
// (see kernels_vec.go).

func shiftBitsVector(dst, src []byte, k uint) {
	n := 0
	if len(dst) >= minVec {
		n = shiftBitsVec(dst, src, k)
	}
	shiftBitsGeneric(dst[n:], src[n:], k)
}

func popcountVector(b []byte) int {
	c, n := 0, 0
	if len(b) >= minVec {
		c, n = popcountVec(b)
	}
	return c + popcountGeneric(b[n:])
}

//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector ALP kernels: the assembly does whole vectors, Go the tail
// (see kernels_vec.go). alp64Vec stops before a vector with an element
// outside its exact domain (|v| < 2^51 on AVX2); Go converts that vector
// and hands the rest back to the assembly.

func alp64Vector(dst []float64, src []int64, f, e float64) {
	i := 0
	for len(src)-i >= minVec {
		i += alp64Vec(dst[i:], src[i:], f, e)
		if j := min(i+4, len(src)); len(src)-i >= minVec {
			alpGeneric64(dst[i:j], src[i:j], f, e)
			i = j
		}
	}
	alpGeneric64(dst[i:], src[i:], f, e)
}

func alp32Vector(dst []float32, src []int32, f, e float32) {
	i := 0
	if len(src) >= minVec {
		i = alp32Vec(dst, src, f, e)
	}
	alpGeneric32(dst[i:], src[i:], f, e)
}

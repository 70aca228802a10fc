package arrowpack

// The pure-Go ALP kernels, part of genericImpl (codec_generic.go).

func alpGeneric64(dst []float64, src []int64, f, e float64) {
	for i, v := range src {
		// The explicit conversions keep Go from fusing the products.
		dst[i] = float64(float64(v)*f) * e
	}
}

func alpGeneric32(dst []float32, src []int32, f, e float32) {
	for i, v := range src {
		dst[i] = float32(float32(v)*f) * e
	}
}

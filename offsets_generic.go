package arrowpack

// The pure-Go offsets kernels, part of genericImpl (codec_generic.go).

func rebaseGeneric[T offset](dst, src []T, base T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v - base
	}
}

func nondecreasingGeneric[T offset](x []T) bool {
	if len(x) == 0 {
		return true
	}
	// Fold the comparisons without a branch per element; real offsets are
	// valid, so the scan always runs to the end anyway.
	bad := false
	prev := x[0]
	for _, v := range x[1:] {
		bad = bad || v < prev
		prev = v
	}
	return !bad
}

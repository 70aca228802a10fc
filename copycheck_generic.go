package arrowpack

// The pure-Go copy-and-check kernels, part of genericImpl (codec_generic.go).
// Without vectors a fused loop gains nothing over copy (runtime.memmove,
// itself vectorised) and then the check on what is now in cache, so each is
// just that. len(dst) == len(src); they do not overlap.

func copyASCIIGeneric(dst, src []byte) bool {
	copy(dst, src)
	return isASCIIGeneric(src)
}

func copyMaxGeneric[T uint8 | uint16 | uint32 | uint64](dst, src []T) T {
	copy(dst, src)
	return maxGeneric(src)
}

func copyCountOnesGeneric(dst, src []byte) int {
	copy(dst, src)
	return popcountGeneric(src)
}

// rebaseNondecreasingGeneric fuses the subtraction and the comparison with
// the previous value, folding the comparisons without a branch per element
// as nondecreasingGeneric does.
func rebaseNondecreasingGeneric[T offset](dst, src []T, base T) bool {
	if len(src) == 0 {
		return true
	}
	dst = dst[:len(src)]
	bad := false
	prev := src[0]
	for i, v := range src {
		dst[i] = v - base
		bad = bad || v < prev
		prev = v
	}
	return !bad
}

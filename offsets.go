package arrowpack

// The offsets kernels: rebasing Arrow offsets to start at 0 and checking
// that they are a valid offsets buffer. Generic versions are in
// offsets_generic.go, vector glue in offsets_vec.go, the assembly in
// codec_amd64.s (from asm/offsets.go) and codec_arm64.s.

// RebaseOffsets32 sets dst[i] = src[i] - base for every i < len(src). dst may
// be src itself. It panics if len(dst) < len(src).
func RebaseOffsets32(dst, src []int32, base int32) {
	active.rebase32(dst[:len(src)], src, base)
}

// RebaseOffsets64 sets dst[i] = src[i] - base for every i < len(src). dst may
// be src itself. It panics if len(dst) < len(src).
func RebaseOffsets64(dst, src []int64, base int64) {
	active.rebase64(dst[:len(src)], src, base)
}

// ValidOffsets32 reports whether offsets is a valid Arrow offsets buffer for
// data of limit bytes or elements: true iff len(offsets) == 0, or offsets[0]
// >= 0, the offsets never decrease and the last one is <= limit.
func ValidOffsets32(offsets []int32, limit int32) bool {
	return validOffsets32(active, offsets, limit)
}

// ValidOffsets64 is ValidOffsets32 for 64-bit offsets.
func ValidOffsets64(offsets []int64, limit int64) bool {
	return validOffsets64(active, offsets, limit)
}

func validOffsets32(im *impl, offsets []int32, limit int32) bool {
	return validOffsets(offsets, limit, im.nondecreasing32)
}

func validOffsets64(im *impl, offsets []int64, limit int64) bool {
	return validOffsets(offsets, limit, im.nondecreasing64)
}

func validOffsets[T offset](offsets []T, limit T, nondecreasing func([]T) bool) bool {
	if len(offsets) == 0 {
		return true
	}
	return offsets[0] >= 0 && offsets[len(offsets)-1] <= limit && nondecreasing(offsets)
}

package arrowpack

// The pure-Go min/max kernels, part of genericImpl (codec_generic.go).

func minmaxGeneric[T uint32 | uint64 | int32 | int64](x []T) (lo, hi T) {
	if len(x) == 0 {
		return 0, 0
	}
	lo, hi = x[0], x[0]
	for _, v := range x[1:] {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return lo, hi
}

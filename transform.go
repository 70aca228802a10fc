package arrowpack

// The transform kernels, which make buffers compress better: byte
// transposition of fixed-width values, and offsets turned into lengths and
// back. Generic versions are in transform_generic.go, vector glue in
// transform_vec.go, the assembly in codec_amd64.s (from asm/transform.go)
// and codec_arm64.s.

// TransposeBytes splits the n = len(src)/width values of width bytes in src
// into width planes of n bytes, the first byte of every value, then the
// second, and so on: dst[j*n+i] = src[i*width+j] for every i < n and j <
// width. Planes of like bytes (the high bytes of small integers, the
// exponents of floats) compress much better than the values they came from.
//
// width must be 2, 4, 8 or 16 and len(src) a multiple of it; dst must hold
// len(src) bytes and not overlap src. Only dst[:len(src)] is written.
// TransposeBytes panics if any of this does not hold.
func TransposeBytes(dst, src []byte, width int) {
	transposeBytes(active, dst, src, width)
}

// UntransposeBytes is the inverse of TransposeBytes: it joins the width
// planes of n = len(src)/width bytes in src into n values of width bytes,
// dst[i*width+j] = src[j*n+i] for every i < n and j < width.
//
// width must be 2, 4, 8 or 16 and len(src) a multiple of it; dst must hold
// len(src) bytes and not overlap src. Only dst[:len(src)] is written.
// UntransposeBytes panics if any of this does not hold.
func UntransposeBytes(dst, src []byte, width int) {
	untransposeBytes(active, dst, src, width)
}

// OffsetsToLengths32 sets dst[i] = offsets[i+1] - offsets[i] for every i <
// len(offsets)-1: the lengths of the values an Arrow offsets buffer
// delimits. Fewer than two offsets give no lengths. The differences wrap
// around as Go's subtraction does; nothing is validated (ValidOffsets32
// does that).
//
// dst may start at the same element as offsets, which turns the offsets
// into lengths in place: OffsetsToLengths32(o, o) leaves the lengths in
// o[:len(o)-1] (and o[len(o)-1] as it was). Otherwise dst and offsets must
// not overlap. It panics if len(dst) < len(offsets)-1 or if dst overlaps
// offsets other than by starting at the same element. Only
// dst[:len(offsets)-1] is written.
func OffsetsToLengths32(dst, offsets []int32) {
	offsetsToLengths32(active, dst, offsets)
}

// OffsetsToLengths64 is OffsetsToLengths32 for 64-bit offsets.
func OffsetsToLengths64(dst, offsets []int64) {
	offsetsToLengths64(active, dst, offsets)
}

// LengthsToOffsets32 is the inverse of OffsetsToLengths32 that validates as
// it goes: it sets dst[0] = 0 and dst[i+1] = dst[i] + lengths[i] for every
// i < len(lengths), and reports whether the result is a valid offsets
// buffer for limit bytes or elements of data. It returns false, leaving the
// contents of dst[:len(lengths)+1] unspecified, if any length is negative
// or any running total exceeds limit (for a negative limit, always). A
// total that would overflow int32 exceeds limit; no wrapped value is ever
// accepted.
//
// lengths may be dst[1:len(lengths)+1] itself, which turns lengths stored
// one element into an offsets buffer into the offsets in place. Otherwise
// dst and lengths must not overlap. It panics if len(dst) < len(lengths)+1
// or if dst overlaps lengths other than by lengths starting at dst[1].
// Only dst[:len(lengths)+1] is written.
func LengthsToOffsets32(dst, lengths []int32, limit int32) bool {
	return lengthsToOffsets32(active, dst, lengths, limit)
}

// LengthsToOffsets64 is LengthsToOffsets32 for 64-bit offsets.
func LengthsToOffsets64(dst, lengths []int64, limit int64) bool {
	return lengthsToOffsets64(active, dst, lengths, limit)
}

// checkTranspose panics unless dst and src are valid arguments of
// TransposeBytes or UntransposeBytes, and returns dst[:len(src)].
func checkTranspose(fn string, dst, src []byte, width int) []byte {
	switch width {
	case 2, 4, 8, 16:
	default:
		panic("arrowpack: " + fn + " with a width other than 2, 4, 8 or 16")
	}
	if len(src)%width != 0 {
		panic("arrowpack: " + fn + " of a src whose length is not a multiple of width")
	}
	if len(dst) < len(src) {
		panic("arrowpack: " + fn + " with a dst shorter than src")
	}
	dst = dst[:len(src)]
	if overlap(dst, src) {
		panic("arrowpack: " + fn + " with overlapping dst and src")
	}
	return dst
}

func transposeBytes(im *impl, dst, src []byte, width int) {
	dst = checkTranspose("TransposeBytes", dst, src, width)
	im.transpose(dst, src, width)
}

func untransposeBytes(im *impl, dst, src []byte, width int) {
	dst = checkTranspose("UntransposeBytes", dst, src, width)
	im.untranspose(dst, src, width)
}

func offsetsToLengths32(im *impl, dst, offsets []int32) {
	offsetsToLengths("OffsetsToLengths32", dst, offsets, im.deltas32)
}

func offsetsToLengths64(im *impl, dst, offsets []int64) {
	offsetsToLengths("OffsetsToLengths64", dst, offsets, im.deltas64)
}

func offsetsToLengths[T offset](fn string, dst, offsets []T, deltas func(dst, x []T)) {
	if len(offsets) < 2 {
		return
	}
	dst = dst[:len(offsets)-1]
	if overlap(dst, offsets) && &dst[0] != &offsets[0] {
		panic("arrowpack: " + fn + " with a dst that overlaps offsets but does not start with it")
	}
	deltas(dst, offsets)
}

func lengthsToOffsets32(im *impl, dst, lengths []int32, limit int32) bool {
	return lengthsToOffsets("LengthsToOffsets32", dst, lengths, limit, im.prefixSum32)
}

func lengthsToOffsets64(im *impl, dst, lengths []int64, limit int64) bool {
	return lengthsToOffsets("LengthsToOffsets64", dst, lengths, limit, im.prefixSum64)
}

func lengthsToOffsets[T offset](fn string, dst, lengths []T, limit T, prefixSum func(dst, x []T) bool) bool {
	n := len(lengths)
	dst = dst[:n+1]
	if overlap(dst, lengths) && &lengths[0] != &dst[1] {
		panic("arrowpack: " + fn + " with a dst that overlaps lengths other than at dst[1:]")
	}
	dst[0] = 0
	if n == 0 {
		return limit >= 0
	}
	// With no negative length and no negative running total, no total
	// wrapped around (each is below half the type's range and the next adds
	// less than that, so a wrap would have shown as a negative total); then
	// the totals never decrease and the last one is the largest.
	return prefixSum(dst[1:], lengths) && dst[n] <= limit
}

package arrowpack

import "unsafe"

// ALP's integer-to-float step (Afroozeh, Kuffo and Boncz, SIGMOD 2024): a
// float that came from a decimal is stored as the integer v =
// round(x * 10^e * 10^-f), and decodes as float(v) * 10^f * 10^-e, the two
// multiplications in that order and rounded one at a time, as cwida/ALP's
// decoder does. The generic versions are in alp_generic.go, the vector
// glue in alp_vec.go, the assembly in codec_amd64.s (from asm/alp.go) and
// codec_arm64.s.

// ALPDecode64 sets dst[i] = float64(src[i]) * f * e for every i <
// len(src), rounded exactly as that Go expression is: the conversion, then
// the product with f, then the product with e (no fused multiply-add).
// ALP passes f = 10^fexp and e = 10^-exp. Every int64 is handled exactly;
// the vector paths are fastest for |src[i]| < 2^51, which covers every
// value ALP's encoder emits. dst may be src's memory itself, decoding in
// place (the same elements, viewed as floats); otherwise they must not
// overlap. It panics if dst is shorter than src or overlaps it other than
// by starting at the same address. Only dst[:len(src)] is written.
func ALPDecode64(dst []float64, src []int64, f, e float64) {
	alpDecode64(active, dst, src, f, e)
}

// ALPDecode32 is ALPDecode64 for float32: dst[i] = float32(src[i]) * f * e,
// each step rounded to float32; it too may decode in place.
func ALPDecode32(dst []float32, src []int32, f, e float32) {
	alpDecode32(active, dst, src, f, e)
}

func alpDecode64(im *impl, dst []float64, src []int64, f, e float64) {
	if len(dst) < len(src) {
		panic("arrowpack: ALPDecode64 with a dst shorter than src")
	}
	checkInPlace("ALPDecode64", dst[:len(src)], src)
	im.alp64(dst[:len(src)], src, f, e)
}

func alpDecode32(im *impl, dst []float32, src []int32, f, e float32) {
	if len(dst) < len(src) {
		panic("arrowpack: ALPDecode32 with a dst shorter than src")
	}
	checkInPlace("ALPDecode32", dst[:len(src)], src)
	im.alp32(dst[:len(src)], src, f, e)
}

// checkInPlace panics if dst and src overlap other than by starting at the
// same address (len(dst) == len(src), elements of the same size).
func checkInPlace[D, S any](fn string, dst []D, src []S) {
	if len(src) == 0 {
		return
	}
	db := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)*int(unsafe.Sizeof(dst[0])))
	if overlapBytes(db, src) && unsafe.Pointer(&dst[0]) != unsafe.Pointer(&src[0]) {
		panic("arrowpack: " + fn + " with a dst that overlaps src but does not start with it")
	}
}

package arrowpack

import "math/bits"

// The bitmap kernels: copying bits to bit 0 and counting set bits, over
// Arrow's LSB-first validity bitmaps. Generic versions are in
// bitmaps_generic.go, vector glue in bitmaps_vec.go, the assembly in
// codec_amd64.s (from asm/bitmaps.go) and codec_arm64.s.

// CopyBits copies n bits of src, starting at bit srcOffset (Arrow's LSB-first
// bit order), to bits [0, n) of dst. The unused high bits of the last byte
// written are cleared; no other byte of dst is touched. It panics if
// srcOffset or n is negative, or if src or dst is too short.
func CopyBits(dst, src []byte, srcOffset, n int) {
	copyBits(active, dst, src, srcOffset, n)
}

// CountOnes returns the number of set bits in bits [offset, offset+n) of
// bits, in Arrow's LSB-first bit order. It panics if offset or n is negative
// or if bits is too short.
func CountOnes(bits []byte, offset, n int) int {
	return countOnes(active, bits, offset, n)
}

func copyBits(im *impl, dst, src []byte, srcOffset, n int) {
	if srcOffset < 0 || n < 0 {
		panic("arrowpack: CopyBits with a negative offset or length")
	}
	if n == 0 {
		return
	}
	nbytes := (n + 7) >> 3
	dst = dst[:nbytes]
	src = src[srcOffset>>3 : (srcOffset+n+7)>>3]
	if k := uint(srcOffset & 7); k == 0 {
		copy(dst, src)
	} else {
		im.shiftBits(dst, src, k)
	}
	if r := n & 7; r != 0 {
		dst[nbytes-1] &= byte(1)<<r - 1
	}
}

func countOnes(im *impl, b []byte, offset, n int) int {
	if offset < 0 || n < 0 {
		panic("arrowpack: CountOnes with a negative offset or length")
	}
	if n == 0 {
		return 0
	}
	end := offset + n
	b = b[offset>>3 : (end+7)>>3]
	c := im.popcount(b)
	// Take away the bits of the first byte before offset and of the last
	// byte from end on.
	c -= bits.OnesCount8(b[0] & (byte(1)<<(offset&7) - 1))
	if r := end & 7; r != 0 {
		c -= bits.OnesCount8(b[len(b)-1] >> r)
	}
	return c
}

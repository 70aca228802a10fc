package arrowpack

import (
	"encoding/binary"
	"math/bits"
)

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
	rest := b[offset>>3:]
	b = b[offset>>3 : (end+7)>>3]
	if len(b) <= 8 {
		// A short run (the validity of a small batch): one word, counted
		// here rather than through the kernel's call and tail.
		var w uint64
		if len(rest) >= 8 {
			w = binary.LittleEndian.Uint64(rest)
		} else {
			for i, v := range b {
				w |= uint64(v) << (8 * i)
			}
		}
		w >>= uint(offset & 7)
		return bits.OnesCount64(w & (1<<uint(n) - 1))
	}
	c := im.popcount(b)
	// Take away the bits of the first byte before offset and of the last
	// byte from end on.
	c -= bits.OnesCount8(b[0] & (byte(1)<<(offset&7) - 1))
	if r := end & 7; r != 0 {
		c -= bits.OnesCount8(b[len(b)-1] >> r)
	}
	return c
}

// Placing bitmaps at a bit offset: what concatenating arrays needs, where
// each array's validity lands wherever the previous one ended. The head of
// at most 7 bits is done here; from the first whole byte of dst on it is
// CopyBits, so the bulk runs through the shiftBits kernel of the active path
// (generic, AVX2 or NEON).

// CopyBitsAt copies n bits of src, starting at bit srcOffset, to bits
// [dstOffset, dstOffset+n) of dst, in Arrow's LSB-first bit order. The bits
// of dst's first byte below dstOffset keep their values; the bits of the last
// byte written above dstOffset+n are cleared; no other byte of dst is touched.
// Appending bitmaps one after the other with it therefore leaves exactly
// their concatenation. It panics if an offset or n is negative, or if src or
// dst is too short.
func CopyBitsAt(dst []byte, dstOffset int, src []byte, srcOffset, n int) {
	copyBitsAt(active, dst, dstOffset, src, srcOffset, n)
}

// SetBitsAt sets bits [offset, offset+n) of dst, in Arrow's LSB-first bit
// order: an all-valid run in a validity bitmap. Like CopyBitsAt, it keeps
// the bits of the first byte below offset, clears the bits of the last byte
// above offset+n and touches no other byte. It panics if offset or n is
// negative or if dst is too short.
func SetBitsAt(dst []byte, offset, n int) {
	if offset < 0 || n < 0 {
		panic("arrowpack: SetBitsAt with a negative offset or length")
	}
	if n == 0 {
		return
	}
	end := offset + n
	dst = dst[offset>>3 : (end+7)>>3]
	first, r := &dst[0], uint(offset&7)
	if len(dst) == 1 {
		*first = *first&(byte(1)<<r-1) | byte((1<<uint(n)-1)<<r)
		return
	}
	*first = *first&(byte(1)<<r-1) | byte(0xff)<<r
	for i := 1; i < len(dst)-1; i++ {
		dst[i] = 0xff
	}
	last := byte(0xff)
	if e := end & 7; e != 0 {
		last = byte(1)<<e - 1
	}
	dst[len(dst)-1] = last
}

func copyBitsAt(im *impl, dst []byte, dstOffset int, src []byte, srcOffset, n int) {
	if dstOffset < 0 || srcOffset < 0 || n < 0 {
		panic("arrowpack: CopyBitsAt with a negative offset or length")
	}
	if n == 0 {
		return
	}
	if r := uint(dstOffset & 7); r != 0 {
		// Fill the first byte of dst up to a byte boundary (or to the end).
		h := min(8-int(r), n)
		b := &dst[dstOffset>>3]
		*b = *b&(byte(1)<<r-1) | readBits(src, srcOffset, h)<<r
		dstOffset, srcOffset, n = dstOffset+h, srcOffset+h, n-h
		if n == 0 {
			return
		}
	}
	copyBits(im, dst[dstOffset>>3:], src, srcOffset, n)
}

// readBits returns bits [off, off+h) of src in the low h bits of a byte,
// 1 <= h <= 8, reading only the bytes that hold them.
func readBits(src []byte, off, h int) byte {
	i, k := off>>3, uint(off&7)
	v := src[i] >> k
	if int(k)+h > 8 {
		v |= src[i+1] << (8 - k)
	}
	return v & byte(1<<uint(h)-1)
}

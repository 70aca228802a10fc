package arrowpack

import (
	"bytes"
	"fmt"
	"math/bits"
)

// Cases of the bitmap kernels (CopyBits with its shiftBits, CountOnes with
// its popcount) for the harness in kernels_harness_test.go. n counts bits,
// k is the bit offset of the source.

var bitmapLarge = []int{1023, 4097, 65537, 4095 * 8, 4095*8 + 5, 4096*8 + 13, 1<<20 + 5}

// copyBitsDef returns bits [off, off+n) of src in (n+7)/8 bytes, the high
// bits of the last one clear.
func copyBitsDef(src []byte, off, n int) []byte {
	dst := make([]byte, (n+7)/8)
	for i := range n {
		if bitAt(src, off+i) {
			dst[i>>3] |= 1 << (i & 7)
		}
	}
	return dst
}

// shiftBitsDef is shiftBits' contract: dst[j] = src[j]>>k | src[j+1]<<(8-k),
// src[len(dst)] taken as 0 when len(src) == len(dst).
func shiftBitsDef(src []byte, k uint, nb int) []byte {
	dst := make([]byte, nb)
	for j := range dst {
		next := byte(0)
		if j+1 < len(src) {
			next = src[j+1]
		}
		dst[j] = src[j]>>k | next<<(8-k)
	}
	return dst
}

// copyBitsCase checks CopyBits against the definition (dst between guard
// bytes, high bits of the last byte cleared), and the shift kernel itself
// with len(src) == len(dst) and len(dst)+1.
func copyBitsCase() *kcase {
	return &kcase{name: "copyBits", elem: 1, ks: 64, bits: true, aligns: 1, slots: 2, large: bitmapLarge, run: func(im *impl, in *kin) error {
		n, off := in.n, in.k
		nb := (n + 7) / 8
		src := take[byte](in, 0, (off+n+7)/8)
		fill(in.g, src)
		want := copyBitsDef(src, off, n)
		dst := take[byte](in, 1, nb)
		fill(in.g, dst)
		copyBits(im, dst, src, off, n)
		if !bytes.Equal(dst, want) {
			return fmt.Errorf("CopyBits differs from the definition")
		}
		if k := uint(off & 7); k != 0 && nb > 0 {
			for _, extra := range []int{0, 1} {
				s := take[byte](in, 0, nb+extra)
				fill(in.g, s)
				w := shiftBitsDef(s, k, nb)
				d := take[byte](in, 1, nb)
				im.shiftBits(d, s, k)
				if !bytes.Equal(d, w) {
					return fmt.Errorf("shiftBits by %d with len(src) = len(dst)+%d differs from the definition", k, extra)
				}
			}
		}
		return nil
	}}
}

func popcountDef(b []byte) int {
	c := 0
	for _, v := range b {
		c += bits.OnesCount8(v)
	}
	return c
}

// countOnesCase checks CountOnes on random bits and on all ones, and the
// popcount kernel on whole bytes.
func countOnesCase() *kcase {
	return &kcase{name: "countOnes", elem: 1, ks: 64, bits: true, aligns: 1, slots: 1, large: bitmapLarge, run: func(im *impl, in *kin) error {
		n, off := in.n, in.k
		b := take[byte](in, 0, (off+n+7)/8)
		fill(in.g, b)
		want := 0
		for i := range n {
			if bitAt(b, off+i) {
				want++
			}
		}
		if got := countOnes(im, b, off, n); got != want {
			return fmt.Errorf("CountOnes = %d, want %d", got, want)
		}
		if got, want := im.popcount(b), popcountDef(b); got != want {
			return fmt.Errorf("popcount of %d bytes = %d, want %d", len(b), got, want)
		}
		for i := range b {
			b[i] = 0xff
		}
		if got := countOnes(im, b, off, n); got != n {
			return fmt.Errorf("CountOnes of all ones = %d", got)
		}
		if off == 0 {
			// popcount on n whole bytes.
			p := take[byte](in, 0, n)
			fill(in.g, p)
			if got, want := im.popcount(p), popcountDef(p); got != want {
				return fmt.Errorf("popcount of %d bytes = %d, want %d", n, got, want)
			}
		}
		return nil
	}}
}

package arrowpack

import "encoding/binary"

// The pure-Go transform kernels, part of genericImpl (codec_generic.go).
//
// The byte transpositions work on 64-bit words: eight values' worth of
// bytes are loaded as eight rows of eight bytes, transposed as an 8x8 byte
// matrix in registers, and stored as eight 8-byte pieces of the planes.
// Values left over after the last whole block go one byte at a time.

var le = binary.LittleEndian

// dswap exchanges the bits of b selected by m with the bits of a selected
// by m<<s (a delta swap).
func dswap(a, b uint64, s uint, m uint64) (uint64, uint64) {
	t := (a>>s ^ b) & m
	return a ^ t<<s, b ^ t
}

// transpose8x8 transposes the 8x8 byte matrix whose row r is x_r (byte c
// of the row at bits 8c): on return x_c holds column c.
func transpose8x8(x0, x1, x2, x3, x4, x5, x6, x7 uint64) (y0, y1, y2, y3, y4, y5, y6, y7 uint64) {
	const m32, m16, m8 = 0x00000000ffffffff, 0x0000ffff0000ffff, 0x00ff00ff00ff00ff
	// Swap the top-right and bottom-left 4x4 blocks, then the 2x2 blocks
	// within each 4x4 block, then the single bytes within each 2x2 block.
	x0, x4 = dswap(x0, x4, 32, m32)
	x1, x5 = dswap(x1, x5, 32, m32)
	x2, x6 = dswap(x2, x6, 32, m32)
	x3, x7 = dswap(x3, x7, 32, m32)
	x0, x2 = dswap(x0, x2, 16, m16)
	x1, x3 = dswap(x1, x3, 16, m16)
	x4, x6 = dswap(x4, x6, 16, m16)
	x5, x7 = dswap(x5, x7, 16, m16)
	x0, x1 = dswap(x0, x1, 8, m8)
	x2, x3 = dswap(x2, x3, 8, m8)
	x4, x5 = dswap(x4, x5, 8, m8)
	x6, x7 = dswap(x6, x7, 8, m8)
	return x0, x1, x2, x3, x4, x5, x6, x7
}

// Transposing 16-byte values writes 16 streams of stores n bytes apart.
// When n is a multiple of 4096, or within 16 of one (and blocks of 64Ki
// values are common), their addresses all fall into the same few sets of
// the L1 cache, more than it has ways: each line is evicted before it is
// complete and the transpose runs three to five times slower. Then the
// values go a chunk at a time through a scratch buffer on the stack, which
// stays in the L1 cache: the chunk's planes are transposed into it and
// copied to their places one after another, a stream at a time. That costs
// a third of the speed where the planes do not collide, so it is kept to
// where they do. Fewer streams (8-byte values) and loads (the
// untransposition) were measured to do better without it at every n.
const transposeScratch = 8 << 10

// transposeChunked reports whether a transpose of n values of width bytes
// goes through the scratch buffer: for 16-byte values whose planes start
// within 16*16 bytes of each other modulo 4 KiB.
func transposeChunked(n, width int) bool {
	if width != 16 || n <= transposeScratch/width {
		return false
	}
	r := n & 4095
	return min(r, 4096-r) < 16
}

// scatterPlanes copies the width planes of k = len(s)/width values in s to
// the planes of n values in dst, at value i.
func scatterPlanes(dst, s []byte, n, i, width int) {
	k := len(s) / width
	for j := range width {
		copy(dst[j*n+i:j*n+i+k], s[j*k:j*k+k])
	}
}

func transposeGeneric(dst, src []byte, width int) {
	n := len(src) / width
	if !transposeChunked(n, width) {
		transposeFrom(dst, src, width, 0)
		return
	}
	var buf [transposeScratch]byte
	c := len(buf) / width
	for i := 0; i < n; i += c {
		k := min(c, n-i)
		s := buf[:k*width]
		transposeFrom(s, src[i*width:(i+k)*width], width, 0)
		scatterPlanes(dst, s, n, i, width)
	}
}

func untransposeGeneric(dst, src []byte, width int) { untransposeFrom(dst, src, width, 0) }

// transposeFrom does what transposeGeneric does for the values from i on,
// leaving the bytes of values before i in dst as they are.
func transposeFrom(dst, src []byte, width, i int) {
	n := len(src) / width
	dst = dst[:len(src)]
	switch width {
	case 2:
		i = transpose2Words(dst, src, n, i)
	case 4:
		i = transpose4Words(dst, src, n, i)
	case 8:
		i = transpose8Words(dst, src, n, i)
	case 16:
		i = transpose16Words(dst, src, n, i)
	}
	for ; i < n; i++ {
		v := src[i*width : (i+1)*width]
		for j, b := range v {
			dst[j*n+i] = b
		}
	}
}

// untransposeFrom does what untransposeGeneric does for the values from i
// on, leaving dst[:i*width] as it is.
func untransposeFrom(dst, src []byte, width, i int) {
	n := len(src) / width
	dst = dst[:len(src)]
	switch width {
	case 2:
		i = untranspose2Words(dst, src, n, i)
	case 4:
		i = untranspose4Words(dst, src, n, i)
	case 8:
		i = untranspose8Words(dst, src, n, i)
	case 16:
		i = untranspose16Words(dst, src, n, i)
	}
	for ; i < n; i++ {
		v := dst[i*width : (i+1)*width]
		for j := range v {
			v[j] = src[j*n+i]
		}
	}
}

// Each of the functions below does whole blocks of values from i on and
// returns where it stopped. n is the number of values, the length of a
// plane.

// transpose2Words does 8 values a block, in two words of four: the even
// bytes of a word, packed, are four bytes of plane 0 and the odd bytes four
// bytes of plane 1.
func transpose2Words(dst, src []byte, n, i int) int {
	for ; i+8 <= n; i += 8 {
		s := src[2*i : 2*i+16]
		a, b := le.Uint64(s), le.Uint64(s[8:])
		p0, p1 := dst[i:i+8], dst[n+i:n+i+8]
		le.PutUint64(p0, pack8(a)|pack8(b)<<32)
		le.PutUint64(p1, pack8(a>>8)|pack8(b>>8)<<32)
	}
	return i
}

// pack8 packs the even bytes of x into the low four bytes of the result.
func pack8(x uint64) uint64 {
	x &= 0x00ff00ff00ff00ff
	x = (x | x>>8) & 0x0000ffff0000ffff
	return (x | x>>16) & 0x00000000ffffffff
}

// spread8 spreads the four low bytes of x over the even bytes of the
// result, the inverse of pack8.
func spread8(x uint64) uint64 {
	x &= 0x00000000ffffffff
	x = (x | x<<16) & 0x0000ffff0000ffff
	return (x | x<<8) & 0x00ff00ff00ff00ff
}

func untranspose2Words(dst, src []byte, n, i int) int {
	for ; i+8 <= n; i += 8 {
		a, b := le.Uint64(src[i:i+8]), le.Uint64(src[n+i:n+i+8])
		d := dst[2*i : 2*i+16]
		le.PutUint64(d, spread8(a)|spread8(b)<<8)
		le.PutUint64(d[8:], spread8(a>>32)|spread8(b>>32)<<8)
	}
	return i
}

// transpose4Words does 16 values a block: row r holds values r and r+8, so
// column c is plane c&3 of the eight values from 8*(c>>2).
func transpose4Words(dst, src []byte, n, i int) int {
	for ; i+16 <= n; i += 16 {
		s := src[4*i : 4*i+64]
		row := func(r int) uint64 {
			return uint64(le.Uint32(s[4*r:])) | uint64(le.Uint32(s[4*r+32:]))<<32
		}
		y0, y1, y2, y3, y4, y5, y6, y7 := transpose8x8(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
		p := dst[i : i+16]
		le.PutUint64(p[0:], y0)
		le.PutUint64(p[8:], y4)
		p = dst[n+i : n+i+16]
		le.PutUint64(p[0:], y1)
		le.PutUint64(p[8:], y5)
		p = dst[2*n+i : 2*n+i+16]
		le.PutUint64(p[0:], y2)
		le.PutUint64(p[8:], y6)
		p = dst[3*n+i : 3*n+i+16]
		le.PutUint64(p[0:], y3)
		le.PutUint64(p[8:], y7)
	}
	return i
}

func untranspose4Words(dst, src []byte, n, i int) int {
	for ; i+16 <= n; i += 16 {
		p0, p1, p2, p3 := src[i:i+16], src[n+i:n+i+16], src[2*n+i:2*n+i+16], src[3*n+i:3*n+i+16]
		x0, x1, x2, x3, x4, x5, x6, x7 := transpose8x8(
			le.Uint64(p0), le.Uint64(p1), le.Uint64(p2), le.Uint64(p3),
			le.Uint64(p0[8:]), le.Uint64(p1[8:]), le.Uint64(p2[8:]), le.Uint64(p3[8:]))
		d := dst[4*i : 4*i+64]
		for r, x := range [8]uint64{x0, x1, x2, x3, x4, x5, x6, x7} {
			le.PutUint32(d[4*r:], uint32(x))
			le.PutUint32(d[4*r+32:], uint32(x>>32))
		}
	}
	return i
}

// transpose8Words does 8 values a block, one a row.
func transpose8Words(dst, src []byte, n, i int) int {
	for ; i+8 <= n; i += 8 {
		s := src[8*i : 8*i+64]
		y0, y1, y2, y3, y4, y5, y6, y7 := transpose8x8(
			le.Uint64(s[0:]), le.Uint64(s[8:]), le.Uint64(s[16:]), le.Uint64(s[24:]),
			le.Uint64(s[32:]), le.Uint64(s[40:]), le.Uint64(s[48:]), le.Uint64(s[56:]))
		d := dst[i:]
		le.PutUint64(d[0:], y0)
		le.PutUint64(d[n:], y1)
		le.PutUint64(d[2*n:], y2)
		le.PutUint64(d[3*n:], y3)
		le.PutUint64(d[4*n:], y4)
		le.PutUint64(d[5*n:], y5)
		le.PutUint64(d[6*n:], y6)
		le.PutUint64(d[7*n:], y7)
	}
	return i
}

func untranspose8Words(dst, src []byte, n, i int) int {
	for ; i+8 <= n; i += 8 {
		s := src[i:]
		x0, x1, x2, x3, x4, x5, x6, x7 := transpose8x8(
			le.Uint64(s[0:]), le.Uint64(s[n:]), le.Uint64(s[2*n:]), le.Uint64(s[3*n:]),
			le.Uint64(s[4*n:]), le.Uint64(s[5*n:]), le.Uint64(s[6*n:]), le.Uint64(s[7*n:]))
		d := dst[8*i : 8*i+64]
		le.PutUint64(d[0:], x0)
		le.PutUint64(d[8:], x1)
		le.PutUint64(d[16:], x2)
		le.PutUint64(d[24:], x3)
		le.PutUint64(d[32:], x4)
		le.PutUint64(d[40:], x5)
		le.PutUint64(d[48:], x6)
		le.PutUint64(d[56:], x7)
	}
	return i
}

// transpose16Words does 8 values a block: the low and the high halves of
// the values are two 8x8 matrices, for planes 0-7 and 8-15.
func transpose16Words(dst, src []byte, n, i int) int {
	for ; i+8 <= n; i += 8 {
		s := src[16*i : 16*i+128]
		for h := 0; h < 16; h += 8 {
			y0, y1, y2, y3, y4, y5, y6, y7 := transpose8x8(
				le.Uint64(s[h:]), le.Uint64(s[h+16:]), le.Uint64(s[h+32:]), le.Uint64(s[h+48:]),
				le.Uint64(s[h+64:]), le.Uint64(s[h+80:]), le.Uint64(s[h+96:]), le.Uint64(s[h+112:]))
			d := dst[h*n+i:]
			le.PutUint64(d[0:], y0)
			le.PutUint64(d[n:], y1)
			le.PutUint64(d[2*n:], y2)
			le.PutUint64(d[3*n:], y3)
			le.PutUint64(d[4*n:], y4)
			le.PutUint64(d[5*n:], y5)
			le.PutUint64(d[6*n:], y6)
			le.PutUint64(d[7*n:], y7)
		}
	}
	return i
}

func untranspose16Words(dst, src []byte, n, i int) int {
	for ; i+8 <= n; i += 8 {
		d := dst[16*i : 16*i+128]
		for h := 0; h < 16; h += 8 {
			s := src[h*n+i:]
			x0, x1, x2, x3, x4, x5, x6, x7 := transpose8x8(
				le.Uint64(s[0:]), le.Uint64(s[n:]), le.Uint64(s[2*n:]), le.Uint64(s[3*n:]),
				le.Uint64(s[4*n:]), le.Uint64(s[5*n:]), le.Uint64(s[6*n:]), le.Uint64(s[7*n:]))
			le.PutUint64(d[h:], x0)
			le.PutUint64(d[h+16:], x1)
			le.PutUint64(d[h+32:], x2)
			le.PutUint64(d[h+48:], x3)
			le.PutUint64(d[h+64:], x4)
			le.PutUint64(d[h+80:], x5)
			le.PutUint64(d[h+96:], x6)
			le.PutUint64(d[h+112:], x7)
		}
	}
	return i
}

// The offsets kernels go four elements a step, which lets the compiler
// drop the bounds checks and keep the four in registers; each step reads
// its elements before it writes any, so dst may be (or start at) x.

func deltasGeneric[T offset](dst, x []T) {
	if len(dst) == 0 {
		return
	}
	x = x[:len(dst)+1]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		v := x[i : i+5 : i+5]
		d := dst[i : i+4 : i+4]
		d[0], d[1], d[2], d[3] = v[1]-v[0], v[2]-v[1], v[3]-v[2], v[4]-v[3]
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i+1] - x[i]
	}
}

func prefixSumGeneric[T offset](dst, x []T) bool { return prefixSumFrom(dst, x, 0) >= 0 }

// prefixSumFrom sets dst[i] = s + x[0] + ... + x[i] (wrapping) for every
// i < len(x) and returns the OR of every x[i] and dst[i], negative iff any
// of them is. The sign bits are gathered without a branch per element;
// valid input, the common case, is scanned to the end anyway.
func prefixSumFrom[T offset](dst, x []T, s T) T {
	dst = dst[:len(x)]
	var acc T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		d := dst[i : i+4 : i+4]
		a0, a1, a2, a3 := v[0], v[1], v[2], v[3]
		s0 := s + a0
		s1 := s0 + a1
		s2 := s1 + a2
		s = s2 + a3
		acc |= a0 | a1 | a2 | a3 | s0 | s1 | s2 | s
		d[0], d[1], d[2], d[3] = s0, s1, s2, s
	}
	for ; i < len(x); i++ {
		v := x[i]
		s += v
		acc |= v | s
		dst[i] = s
	}
	return acc
}

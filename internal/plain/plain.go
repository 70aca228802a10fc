// Package plain holds plain definitions of what arrowpack's kernels and
// block format compute, written for reading rather than speed, for tests
// to check the fast code against. Nothing outside tests uses it.
package plain

// Transpose returns the values of width bytes in src byte-transposed, as
// FORMAT.md defines it: byte j of value i goes to j*n + i, where n is the
// number of values.
func Transpose(src []byte, width int) []byte {
	n := len(src) / width
	dst := make([]byte, len(src))
	for i := range n {
		for j := range width {
			dst[j*n+i] = src[i*width+j]
		}
	}
	return dst
}

// Untranspose undoes Transpose.
func Untranspose(src []byte, width int) []byte {
	n := len(src) / width
	dst := make([]byte, len(src))
	for i := range n {
		for j := range width {
			dst[i*width+j] = src[j*n+i]
		}
	}
	return dst
}

// packBitPos returns where bit t (0 <= t < width) of value i of n, packed
// in width bits as arrowpack.BitPack32 (bits = 32) or BitPack64 (bits =
// 64) lay them out, goes: byte offset and bit within the byte. Blocks of
// 256 values are 256/bits lanes of interleaved bits-bit words; the tail is
// an LSB-first stream.
func packBitPos(i, n, t, width, bits int) (int, int) {
	block := i / 256
	if block < n/256 {
		lanes := 256 / bits
		r := i % 256
		l, k := r%lanes, r/lanes
		p := k*width + t // bit p of lane l
		j, b := p/bits, p%bits
		off := block*32*width + (j*lanes+l)*bits/8 + b/8
		return off, b % 8
	}
	p := (i-n/256*256)*width + t
	return n/256*32*width + p/8, p % 8
}

// packBitPositions returns packBitPos of every bit of value i, in order,
// in buf's memory. The positions of a value in a whole block are those of
// the value at the same place in the first block, moved by whole blocks:
// block holds them, computed once per n and width.
func packBitPositions(i, n, width, bits int, block [][2]int, buf [][2]int) [][2]int {
	buf = buf[:0]
	if i < n/256*256 {
		move := i / 256 * 32 * width
		for _, q := range block[i%256*width : (i%256+1)*width] {
			buf = append(buf, [2]int{q[0] + move, q[1]})
		}
		return buf
	}
	for t := range width {
		off, b := packBitPos(i, n, t, width, bits)
		buf = append(buf, [2]int{off, b})
	}
	return buf
}

// firstBlock returns packBitPos of every bit of the first 256 values when
// n holds a whole block, else nil.
func firstBlock(n, width, bits int) [][2]int {
	if n < 256 {
		return nil
	}
	block := make([][2]int, 0, 256*width)
	for i := range 256 {
		for t := range width {
			off, b := packBitPos(i, n, t, width, bits)
			block = append(block, [2]int{off, b})
		}
	}
	return block
}

// PackedLen is the number of bytes BitPack writes for n values of width
// bits.
func PackedLen(n, width int) int {
	return n/256*32*width + (n%256*width+7)/8
}

// BitPack packs the values src[i]-base (bits-bit wrapping subtraction, low
// width bits kept) a bit at a time, as arrowpack's BitPack32 and BitPack64
// define it.
func BitPack(src []uint64, base uint64, width, bits int) []byte {
	n := len(src)
	dst := make([]byte, PackedLen(n, width))
	var pos [][2]int
	block := firstBlock(n, width, bits)
	for i, x := range src {
		d := x - base
		pos = packBitPositions(i, n, width, bits, block, pos)
		for t, q := range pos {
			dst[q[0]] |= byte(d>>t&1) << q[1]
		}
	}
	return dst
}

// BitUnpack is the inverse of BitPack: n values, each base plus its width
// bits, wrapping at bits bits.
func BitUnpack(src []byte, n int, base uint64, width, bits int) []uint64 {
	dst := make([]uint64, n)
	var pos [][2]int
	block := firstBlock(n, width, bits)
	for i := range dst {
		var v uint64
		pos = packBitPositions(i, n, width, bits, block, pos)
		for t, q := range pos {
			v |= uint64(src[q[0]]>>q[1]&1) << t
		}
		v += base
		if bits == 32 {
			v = uint64(uint32(v))
		}
		dst[i] = v
	}
	return dst
}

package arrowpack

import "unsafe"

// The pure-Go bit-packing kernels, part of genericImpl (codec_generic.go):
// whole blocks a lane at a time through a word-sized bit buffer, the tail
// as a byte stream.

// word is the element type of the bit-packing kernels.
type word interface{ uint32 | uint64 }

// wordBits returns the size of T in bits.
func wordBits[T word]() int {
	var zero T
	return int(unsafe.Sizeof(zero)) * 8
}

// lowMask returns a T whose low width bits are set (0 <= width <= bits of T).
func lowMask[T word](width int) T {
	if width == 0 {
		return 0
	}
	return ^T(0) >> (wordBits[T]() - width)
}

// loadWord and storeWord read and write word i of a packed block.
func loadWord[T word](b []byte, i int) T {
	if wordBits[T]() == 32 {
		return T(le.Uint32(b[4*i:]))
	}
	return T(le.Uint64(b[8*i:]))
}

func storeWord[T word](b []byte, i int, v T) {
	if wordBits[T]() == 32 {
		le.PutUint32(b[4*i:], uint32(v))
	} else {
		le.PutUint64(b[8*i:], uint64(v))
	}
}

func packGeneric[T word](dst []byte, src []T, base T, width int) {
	packFrom(dst, src, base, width, 0)
}

func unpackGeneric[T word](dst []T, src []byte, base T, width int) {
	unpackFrom(dst, src, base, width, 0)
}

// packFrom does what packGeneric does from block b on (values b*256 on),
// leaving the bytes of the blocks before it as they are.
func packFrom[T word](dst []byte, src []T, base T, width, b int) {
	if width == 0 {
		return
	}
	blocks := len(src) / packBlock
	size := packBlock / 8 * width
	for ; b < blocks; b++ {
		packBlockGeneric(dst[b*size:(b+1)*size], src[b*packBlock:(b+1)*packBlock], base, width)
	}
	packTail(dst[blocks*size:], src[blocks*packBlock:], base, width)
}

// unpackFrom does what unpackGeneric does from block b on.
func unpackFrom[T word](dst []T, src []byte, base T, width, b int) {
	blocks := len(dst) / packBlock
	if width == 0 {
		for i := b * packBlock; i < len(dst); i++ {
			dst[i] = base
		}
		return
	}
	size := packBlock / 8 * width
	for ; b < blocks; b++ {
		unpackBlockGeneric(dst[b*packBlock:(b+1)*packBlock], src[b*size:(b+1)*size], base, width)
	}
	unpackTail(dst[blocks*packBlock:], src[blocks*size:], base, width)
}

// packBlockGeneric packs 256 values into the 32*width bytes of dst, one
// lane at a time: the bits go into cur, nb of them so far, and each full
// word is stored. Go's shifts by the word size or more give 0, which
// handles a value that ends a word exactly.
func packBlockGeneric[T word](dst []byte, src []T, base T, width int) {
	bits := wordBits[T]()
	lanes := packBlock / bits
	mask := lowMask[T](width)
	for l := range lanes {
		var cur T
		nb, j := 0, 0
		for k := range bits {
			v := (src[k*lanes+l] - base) & mask
			cur |= v << nb
			nb += width
			if nb >= bits {
				storeWord(dst, j*lanes+l, cur)
				j++
				nb -= bits
				cur = v >> (width - nb)
			}
		}
	}
}

// unpackBlockGeneric unpacks 256 values from the 32*width bytes of src,
// a lane at a time through a 64-bit buffer holding nb unread bits (for
// 64-bit values, unpackBlock64 does the same with the straddling values
// taken from two words).
func unpackBlockGeneric[T word](dst []T, src []byte, base T, width int) {
	if wordBits[T]() == 64 {
		d := any(dst).([]uint64)
		unpackBlock64((*[packBlock]uint64)(d), src[:32*width], uint64(base), width)
		return
	}
	d := (*[packBlock]uint32)(any(dst).([]uint32))
	s := src[:32*width]
	b32 := uint32(base)
	mask := uint32(lowMask[uint32](width))
	w := uint(width)
	for l := range 8 {
		var buf uint64
		nb := uint(0)
		p := 4 * l
		for k := l; k < packBlock; k += 8 {
			if nb < w {
				buf |= uint64(le.Uint32(s[p:p+4])) << nb
				nb += 32
				p += 32
			}
			d[k] = uint32(buf)&mask + b32
			buf >>= w
			nb -= w
		}
	}
}

func unpackBlock64(d *[packBlock]uint64, s []byte, base uint64, width int) {
	mask := lowMask[uint64](width)
	w := uint(width)
	for l := range 4 {
		p := 8 * l
		cur := le.Uint64(s[p : p+8])
		nb := uint(0) // bits of cur used
		for k := l; k < packBlock; k += 4 {
			v := cur >> nb
			nb += w
			if nb >= 64 {
				nb -= 64
				p += 32
				if p < len(s) {
					cur = le.Uint64(s[p : p+8])
					v |= cur << (w - nb)
				}
			}
			d[k] = v&mask + base
		}
	}
}

// packTail packs the values of src as an LSB-first bit stream into the
// ceil(len(src)*width/8) bytes of dst, through a 64-bit buffer.
func packTail[T word](dst []byte, src []T, base T, width int) {
	mask := lowMask[T](width)
	var cur uint64
	nb, o := 0, 0
	// A full word is stored only when all of its bits are values', so it
	// lies within the packed bytes: checked once, then stored through a
	// pointer, and the shifts are masked (the one by 64 split in two), as
	// the slice's checks and Go's checks of shift counts were half the
	// loop.
	if len(src) == 0 {
		return
	}
	_ = dst[(len(src)*width+7)/8-1]
	p := unsafe.Pointer(unsafe.SliceData(dst))
	for _, x := range src {
		v := uint64((x - base) & mask)
		cur |= v << (uint(nb) & 63)
		nb += width
		if nb >= 64 {
			le.PutUint64((*[8]byte)(unsafe.Add(p, o))[:], cur)
			o += 8
			nb -= 64
			cur = v >> 1 >> (uint(width-nb-1) & 63)
		}
	}
	for ; nb > 0; nb -= 8 {
		dst[o] = byte(cur)
		cur >>= 8
		o++
	}
}

// unpackTail unpacks len(dst) values from the LSB-first bit stream in src.
func unpackTail[T word](dst []T, src []byte, base T, width int) {
	mask := uint64(lowMask[T](width))
	t, o := 0, 0
	// While 9 bytes are left, a value is one load (and a byte for one of
	// more than 56 bits, which may straddle 9), through a pointer: the
	// slice's checks were half the loop. (Delta sections of 8,192 values
	// unpack tails of 255.)
	p, last := unsafe.Pointer(unsafe.SliceData(src)), len(src)-9
	load := func(i int) uint64 { return le.Uint64((*[8]byte)(unsafe.Add(p, i))[:]) }
	if width <= 56 {
		for ; t < len(dst) && o>>3 <= last; t++ {
			dst[t] = T(load(o>>3)>>(uint(o)&7)&mask) + base
			o += width
		}
	} else {
		for ; t < len(dst) && o>>3 <= last; t++ {
			s := uint(o) & 7
			hi := uint64(*(*byte)(unsafe.Add(p, o>>3+8))) << 1 << (63 - s) // byte 8's bits, past the s shifted out
			dst[t] = T((load(o>>3)>>s|hi)&mask) + base
			o += width
		}
	}
	for ; t < len(dst); t++ {
		o := t * width
		i, s := o>>3, o&7
		v := loadPartial(src, i) >> s
		if s+width > 64 {
			v |= uint64(src[i+8]) << (64 - s)
		}
		dst[t] = T(v&mask) + base
	}
}

// loadPartial returns the little-endian uint64 of src[i:i+8], the bytes
// past the end of src taken as zero.
func loadPartial(src []byte, i int) uint64 {
	if i+8 <= len(src) {
		return le.Uint64(src[i:])
	}
	var v uint64
	for j := len(src) - 1; j >= i; j-- {
		v = v<<8 | uint64(src[j])
	}
	return v
}

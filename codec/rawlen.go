package codec

import (
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// What an LZ4, MinLZ or zstd section really decodes to, learned by walking
// its tags or block headers without writing any output, so that a corrupt
// section declaring far more raw bytes than it holds is refused before the
// raw body is allocated (FORMAT.md, "Bounds"). A section declaring at most
// walkRatio times its stored bytes is not walked: what it can make a
// decoder allocate is already proportional to the block.
const walkRatio = 8

// checkRawLen refuses a section whose stored bytes cannot decode to the n
// raw bytes it declares: an LZ4 or MinLZ section must produce exactly n by
// its tags (with every copy inside the output before it), a zstd section's
// blocks must be able to produce n; a Huffman section's inner section is
// checked once its codes are decoded. eachSection has already checked n
// against the codec's bound (checkSection).
func checkRawLen(s sectionIn) error {
	n := uint64(s.raw)
	if n <= walkRatio*uint64(len(s.src)) {
		return nil
	}
	switch s.codec {
	case LZ4:
		if got, ok := lz4RawLen(s.src, s.raw); !ok || got != s.raw {
			return corruptf("lz4 section declares %d raw bytes; its tags do not produce them", n)
		}
	case MinLZ:
		if !minlzRawLenOK(s.src, s.raw) {
			return corruptf("minlz section declares %d raw bytes; its tags do not produce them", n)
		}
	case Zstd:
		lo, hi, ok := zstdRawLen(s.src)
		if !ok || n < lo || n > hi {
			return corruptf("zstd section declares %d raw bytes; its blocks produce %d to %d (readable: %t)", n, lo, hi, ok)
		}
	case codecHuff:
		return checkHuffRawLen(s)
	}
	return nil
}

// lz4RawLen returns the bytes the LZ4 block src decodes to, and false if
// the walk finds it corrupt or producing more than limit. It refuses only
// what pierrec/lz4's decoder refuses: a truncated sequence, a zero offset
// or one reaching before the output, or a last sequence with a match.
func lz4RawLen(src []byte, limit int) (int, bool) {
	d, i := 0, 0
	for i < len(src) {
		tok := src[i]
		i++
		lit, ok := lz4ExtraLength(src, &i, int(tok>>4))
		if !ok || lit > len(src)-i {
			return 0, false
		}
		i += lit
		d += lit
		if i == len(src) && tok&15 == 0 {
			break // the last sequence: literals only
		}
		if len(src)-i < 2 {
			return 0, false
		}
		off := int(binary.LittleEndian.Uint16(src[i:]))
		i += 2
		if off == 0 || off > d {
			return 0, false
		}
		ml, ok := lz4ExtraLength(src, &i, int(tok&15))
		if !ok {
			return 0, false
		}
		if d += ml + 4; d > limit {
			return 0, false
		}
	}
	return d, d <= limit
}

// lz4ExtraLength returns a token's length nibble v with the extra length bytes
// that follow it at src[*i] when it is 15 (each 255 adds 255 and another
// byte, the last one below 255), moving *i past them; false when src ends
// first.
func lz4ExtraLength(src []byte, i *int, v int) (int, bool) {
	if v != 15 {
		return v, true
	}
	for {
		if *i >= len(src) {
			return 0, false
		}
		x := src[*i]
		*i++
		v += int(x)
		if x != 255 {
			return v, true
		}
	}
}

// minlzRawLenOK reports whether the MinLZ block src (its 0 byte and the
// decoded length n it declares, checkSection has read) produces exactly n
// bytes by its tags, each copy inside the output before it. It follows the
// format (minlz's SPEC.md) as its reference decoder reads it, and refuses
// nothing that decoder accepts.
func minlzRawLenOK(src []byte, n int) bool {
	if len(src) < 1 || src[0] != 0 {
		return false
	}
	v, h := binary.Uvarint(src[1:])
	if h <= 0 || v != uint64(n) {
		return false
	}
	src = src[1+h:]
	d, offset := 0, 1
	// need reports whether k more bytes of src follow s.
	s := 0
	need := func(k int) bool { return len(src)-s >= k }
	// copyLength reads a Copy2 or Copy3 length of 6 bits v: 4 + v up to
	// 60, else 64 + the 1 to 3 bytes that follow.
	copyLength := func(v int) (int, bool) {
		if v <= 60 {
			return v + 4, true
		}
		k := v - 60
		if !need(k) {
			return 0, false
		}
		s += k
		return int(le24(src[s-k:], k)) + 64, true
	}
	for s < len(src) {
		var length, lits int
		tag := src[s]
		switch tag & 3 {
		case 0: // literals, or a repeat of the last offset
			x := int(tag >> 3)
			switch {
			case x < 29:
				length = x + 1
				s++
			default:
				k := x - 28 // 1, 2 or 3 length bytes
				if !need(1 + k) {
					return false
				}
				length = 30 + int(le24(src[s+1:], k))
				s += 1 + k
			}
			if tag&4 == 0 {
				if length > len(src)-s || length > n-d {
					return false
				}
				s += length
				d += length
				continue
			}
		case 1: // copy, 10-bit offset
			if !need(2) {
				return false
			}
			length = int(tag>>2) & 15
			offset = int(binary.LittleEndian.Uint16(src[s:])>>6) + 1
			s += 2
			if length == 15 {
				if !need(1) {
					return false
				}
				length = int(src[s]) + 18
				s++
			} else {
				length += 4
			}
		case 2: // copy, 16-bit offset
			if !need(3) {
				return false
			}
			offset = int(binary.LittleEndian.Uint16(src[s+1:])) + 64
			s += 3
			var ok bool
			if length, ok = copyLength(int(tag >> 2)); !ok {
				return false
			}
		case 3: // copy with a 16- or 21-bit offset, after fused literals
			if !need(4) {
				return false
			}
			val := binary.LittleEndian.Uint32(src[s:])
			lits = int(val>>3) & 3
			if val&4 == 0 {
				length = 4 + int(val>>5)&7
				offset = int(val>>8)&65535 + 64
				s += 3
				lits++
			} else {
				offset = int(val>>11) + 65536
				s += 4
				var ok bool
				if length, ok = copyLength(int(val>>5) & 63); !ok {
					return false
				}
			}
			if lits > len(src)-s || lits > n-d {
				return false
			}
			s += lits
			d += lits
		}
		if d < offset || length > n-d {
			return false
		}
		d += length
	}
	return d == n
}

// le24 returns the k (1..3) bytes at the start of b as a little-endian
// number.
func le24(b []byte, k int) uint32 {
	v := uint32(0)
	for i := k - 1; i >= 0; i-- {
		v = v<<8 | uint32(b[i])
	}
	return v
}

// zstdMaxBlock is the most a zstd block produces (Block_Maximum_Size).
const zstdMaxBlock = 128 << 10

// zstdRawLen returns the fewest and the most bytes the zstd frames of src
// can decode to, from their frame and block headers (RFC 8878): a raw or
// RLE block produces its size; a compressed one its literals when it has
// no sequences, else its literals and at least 3 bytes a sequence, at most
// Block_Maximum_Size. ok is false when the headers are truncated or use a
// reserved block type, which the zstd decoder refuses too. Bytes after the
// first frame count as the most frames of their size can produce.
func zstdRawLen(src []byte) (lo, hi uint64, ok bool) {
	var fh zstd.Header
	if err := fh.Decode(src); err != nil || fh.Skippable {
		return 0, 0, false
	}
	i := fh.HeaderSize
	for {
		if len(src)-i < 3 {
			return lo, hi, false
		}
		bh := uint32(src[i]) | uint32(src[i+1])<<8 | uint32(src[i+2])<<16
		i += 3
		last, typ, size := bh&1 != 0, (bh>>1)&3, int(bh>>3)
		switch typ {
		case 0: // raw
			if len(src)-i < size {
				return lo, hi, false
			}
			lo, hi = lo+uint64(size), hi+uint64(size)
			i += size
		case 1: // RLE
			if len(src)-i < 1 || size > zstdMaxBlock {
				return lo, hi, false
			}
			lo, hi = lo+uint64(size), hi+uint64(size)
			i++
		case 2: // compressed
			if len(src)-i < size || size > zstdMaxBlock {
				return lo, hi, false
			}
			blo, bhi := zstdBlockRawLen(src[i : i+size])
			lo, hi = lo+blo, hi+bhi
			i += size
		default:
			return lo, hi, false
		}
		if last {
			break
		}
	}
	if fh.HasCheckSum {
		if len(src)-i < 4 {
			return lo, hi, false
		}
		i += 4
	}
	if i < len(src) {
		hi += sectionMaxRaw(Zstd, len(src)-i)
	}
	return lo, hi, true
}

// zstdBlockRawLen returns the fewest and the most bytes the content b of a
// compressed zstd block can produce, from its literals and sequences
// section headers; a header it cannot read leaves the whole range
// 0..Block_Maximum_Size, for the decoder to refuse.
func zstdBlockRawLen(b []byte) (lo, hi uint64) {
	if len(b) < 1 {
		return 0, zstdMaxBlock
	}
	typ, sf := b[0]&3, (b[0]>>2)&3
	var regen, hdr, content int
	switch {
	case typ <= 1: // raw or RLE literals
		switch sf {
		case 0, 2:
			regen, hdr = int(b[0]>>3), 1
		case 1:
			if len(b) < 2 {
				return 0, zstdMaxBlock
			}
			regen, hdr = int(b[0]>>4)|int(b[1])<<4, 2
		default:
			if len(b) < 3 {
				return 0, zstdMaxBlock
			}
			regen, hdr = int(b[0]>>4)|int(b[1])<<4|int(b[2])<<12, 3
		}
		content = regen
		if typ == 1 {
			content = 1
		}
	default: // Huffman-coded literals
		bits := [4]int{10, 10, 14, 18}[sf]
		hdr = [4]int{3, 3, 4, 5}[sf]
		if len(b) < hdr {
			return 0, zstdMaxBlock
		}
		v := uint64(0)
		for k := hdr - 1; k >= 0; k-- {
			v = v<<8 | uint64(b[k])
		}
		v >>= 4
		regen, content = int(v&(1<<bits-1)), int(v>>bits&(1<<bits-1))
	}
	i := hdr + content
	if i >= len(b) {
		return 0, zstdMaxBlock
	}
	seqs := int(b[i])
	switch {
	case seqs == 0:
		return uint64(regen), uint64(regen)
	case seqs < 128:
	case seqs < 255:
		if i+1 >= len(b) {
			return 0, zstdMaxBlock
		}
		seqs = (seqs-128)<<8 | int(b[i+1])
	default:
		if i+2 >= len(b) {
			return 0, zstdMaxBlock
		}
		seqs = int(b[i+1]) | int(b[i+2])<<8 + 0x7f00
	}
	return min(uint64(regen)+3*uint64(seqs), zstdMaxBlock), zstdMaxBlock
}

// checkHuffRawLen checks a Huffman section's inner LZ4 or MinLZ section as
// checkRawLen checks a section of the table, decoding its codes (at most 8
// bytes a stored byte) into pooled room to walk them.
func checkHuffRawLen(s sectionIn) error {
	h, err := parseHuff(uint64(s.raw), s.src)
	if err != nil || h.inner != LZ4 && h.inner != MinLZ {
		return err
	}
	room := huffInner.Get().(*[]byte)
	defer huffInner.Put(room)
	if cap(*room) < h.m {
		*room = make([]byte, h.m)
	}
	inner, err := h.decode((*room)[:0:h.m])
	if err == nil {
		err = checkSection(h.inner, uint64(s.raw), inner)
	}
	if err == nil {
		err = checkRawLen(sectionIn{raw: s.raw, codec: h.inner, src: inner})
	}
	if err != nil {
		return fmt.Errorf("inside a huffman section: %w", err)
	}
	return nil
}

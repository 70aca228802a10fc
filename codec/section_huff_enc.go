package codec

import (
	"encoding/binary"

	"github.com/klauspost/compress/huff0"
)

// The Huffman section codec: another section's stored bytes (its inner
// section: raw bytes, LZ4, MinLZ or a lightweight codec's) entropy-coded
// with huff0 (github.com/klauspost/compress/huff0: a table then one
// stream, or four with a jump table, as zstd codes literals). MinLZ,
// LZ4 and bit-packing store bytes as they are, whole: literals, packed
// values of skewed distributions (a dictionary's indices, string lengths),
// validity bitmaps; an order-0 entropy coder shrinks those by a fifth to a
// half, which zstd gets and they do not. The section's bytes:
//
//	0   uint8   the inner section's codec: 0, 1, 3, 4, 5, 6 or 7 (not zstd, not Huffman)
//	1   uint8   streams: 1 or 4
//	2   2 bytes 0
//	4   uint32  m: the inner section's stored length, 1..huff0.BlockSizeMax (r for raw bytes)
//	8   the huff0 table and stream(s) that decode to the m bytes
const huffHeader = 8

// huff4Min is the fewest bytes coded in four streams: below it one stream
// decodes as fast and saves the jump table.
const huff4Min = 1024

// huffMinBits and huffMaxBits are the bit widths of a bit-packed section
// that a Huffman section packs in a byte a value instead (widenBits), so
// that each value is one symbol: at 5 to 7 bits its packed bytes mix
// neighbouring values, which an order-0 coder cannot untangle (dict-8192's
// 7-bit indices: 7.2 KB packed, 5.4 KB coded as they are, 4.8 KB coded a
// byte a value); at 4 bits and below a byte holds whole values and coding
// it as it is does as well (nested-8192: 3.3 KB against 3.4 KB widened).
const (
	huffMinBits = 5
	huffMaxBits = 7
)

// widenBits returns the bits a bit-packed section inside a Huffman section
// packs its values in: a byte for huffMinBits to huffMaxBits, else bits.
func widenBits(bits int) int {
	if bits >= huffMinBits && bits <= huffMaxBits {
		return 8
	}
	return bits
}

// huffBound is the most bytes the Huffman section s takes: its header and
// its inner section (bit-packed in widenBits bits), or the inner section
// alone when coding does not pay.
func (c *compressor) huffBound(s section) int {
	in := s
	in.codec = s.inner
	if in.codec == None {
		return huffHeader + s.n
	}
	in.bp.bits = widenBits(in.bp.bits)
	return huffHeader + c.bound(in)
}

// encodeHuff writes into dst (of huffBound(*s) bytes) the Huffman section
// of src: its inner section, then huff0's coding of it when that takes at
// most 1 - half the minimum savings of it (decoding codes costs about a
// nanosecond a byte, less than most codecs' decode and the bytes saved:
// lineitem-64's MinLZ section, 2756 bytes, codes in 2540, 0.92 of it). When it does not, s becomes the inner
// section (its codec s.inner) and encodeHuff returns the inner section's
// bytes, or nil for raw bytes (stored raw).
func (c *compressor) encodeHuff(st *lz4State, ls *lightScratch, dst, src []byte, s *section) []byte {
	in := *s
	in.codec = s.inner
	in.bp.bits = widenBits(s.bp.bits)
	z := src
	if in.codec != None {
		if z = c.compress(st, ls, dst[huffHeader:], src, &in); z == nil {
			s.codec = None
			return nil
		}
	}
	if len(z) <= huff0.BlockSizeMax {
		if ls.huff == nil {
			ls.huff = &huff0.Scratch{Reuse: huff0.ReusePolicyNone}
		}
		var out []byte
		var err error
		streams := 1
		if len(z) >= huff4Min {
			streams = 4
			out, _, err = huff0.Compress4X(z, ls.huff)
		} else {
			out, _, err = huff0.Compress1X(z, ls.huff)
		}
		if err == nil && float64(huffHeader+len(out)) <= (1-c.minSavings/2)*float64(len(z)) {
			dst[0], dst[1], dst[2], dst[3] = byte(in.codec), byte(streams), 0, 0
			binary.LittleEndian.PutUint32(dst[4:], uint32(len(z)))
			return dst[:huffHeader+copy(dst[huffHeader:], out)]
		}
	}
	s.codec = s.inner
	switch {
	case s.codec == None:
		return nil
	case in.bp.bits != s.bp.bits:
		// Widened for coding: pack in the fewest bits after all.
		return c.compress(st, ls, dst, src, s)
	}
	return dst[:copy(dst, z)]
}

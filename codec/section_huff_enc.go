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

// huffMinRaw is the fewest raw bytes of a section an encoder with Light
// Huffman-codes, and huffMinCoded the fewest bytes of its inner section it
// codes: a table costs huff0 about as much time to build and write as
// coding 3 KB, and to read as decoding 3 KB (a few microseconds each), so
// smaller sections lose more time than the bytes they save are worth
// (dict-8192's 0.5 KB validity bitmap and 1.2 KB of FSST codes would save
// 0.1 and 0.2 KB at the cost of two tables).
const (
	huffMinRaw   = 2 << 10
	huffMinCoded = 1 << 10
)

// huff4Min is the fewest bytes coded in four streams: below it one stream
// saves the jump table. Four decode faster from 0.5 KB on (2.7 KB: 12 us
// against 19 on a loaded machine).
const huff4Min = 512

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
	if len(z) >= huffMinCoded && len(z) <= huff0.BlockSizeMax {
		streams := 1
		if len(z) >= huff4Min {
			streams = 4
		}
		table, out := ls.huff.code(z, streams, huffKey{inner: in.codec, col: s.hint.col})
		if out != nil && float64(huffHeader+len(table)+len(out)) <= (1-c.minSavings/2)*float64(len(z)) {
			dst[0], dst[1], dst[2], dst[3] = byte(in.codec), byte(streams), 0, 0
			binary.LittleEndian.PutUint32(dst[4:], uint32(len(z)))
			n := huffHeader + copy(dst[huffHeader:], table)
			return dst[:n+copy(dst[n:], out)]
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

// huffKey names what a Huffman coder's last table was built for: the
// inner codec of the section and the node its first buffer belongs to
// (nil for a small block's one section).
type huffKey struct {
	inner Compression
	col   *plan
}

// huffCoder codes the Huffman sections of one goroutine. It keeps the last
// table it built and its bytes, and codes the next section of the same key
// with it when every byte value has a code in it and the coded size stays
// within huffReuseSlack of the size the table first coded at: building and
// writing a table takes huff0 about half its time on a 3 KB section, and
// the blocks of one stream are alike. A decoder that meets the same table
// bytes again skips reading them (section_huff_dec.go).
type huffCoder struct {
	s     huff0.Scratch
	key   huffKey
	table []byte  // the bytes of the kept table, nil for none
	ratio float64 // coded bytes (table included) per byte when built
}

// huffReuseSlack is how much worse than when it was built (coded bytes
// per byte) a kept table may code before a new one is built.
const huffReuseSlack = 1.02

// code codes z in streams (1 or 4) huff0 streams and returns the table's
// bytes and the streams', or a nil stream when huff0 cannot code z in
// fewer bytes.
func (h *huffCoder) code(z []byte, streams int, key huffKey) (table, out []byte) {
	compress := huff0.Compress1X
	if streams == 4 {
		compress = huff0.Compress4X
	}
	if h.table != nil && h.key == key {
		h.s.Reuse = huff0.ReusePolicyMust
		out, reused, err := compress(z, &h.s)
		if err == nil && reused && float64(len(h.table)+len(out)) <= huffReuseSlack*h.ratio*float64(len(z)) {
			return h.table, out
		}
	}
	h.s.Reuse = huff0.ReusePolicyNone
	out, _, err := compress(z, &h.s)
	if err != nil {
		h.table = nil
		return nil, nil
	}
	t := len(out) - len(h.s.OutData)
	h.key, h.table, h.ratio = key, append(h.table[:0], out[:t]...), float64(len(out))/float64(len(z))
	return nil, out
}

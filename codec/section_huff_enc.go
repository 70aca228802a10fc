package codec

import (
	"encoding/binary"

	"github.com/arrowpack/arrowpack"
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
// codes: building a table costs huff0 about as much time as coding 3 KB,
// and reading one as decoding a few KB, so a small section codes only when
// the table is kept between blocks (huffCoder) and decoders skip reading it
// (section_huff_dec.go). A validity bitmap of 8192 rows, 1 KiB, is the
// smallest worth it (dict-8192's, 2% null: 1048 raw bytes, 509 with LZ4,
// 256 coded).
const (
	huffMinRaw   = 1 << 10
	huffMinCoded = 1 << 10
)

// huff4Min is the fewest bytes coded in four streams: below it one stream
// saves the jump table. Four decode faster from 0.5 KB on (2.7 KB: 12 us
// against 19 on a loaded machine).
const huff4Min = 512

// huffBound is the most bytes the Huffman section s takes: its header and
// its inner section, or the inner section alone when coding does not pay.
func (c *compressor) huffBound(s section) int {
	in := s
	in.codec = s.inner
	if in.codec == None {
		return huffHeader + s.n
	}
	return huffHeader + c.bound(in)
}

// encodeHuff writes into dst (of huffBound(*s) bytes) the Huffman section
// of src and returns its bytes, or, when coding does not pay, makes s its
// inner section (its codec s.inner) and returns that section's bytes (nil
// for raw bytes: stored raw). Coding pays when it takes at most 1 - half
// the minimum savings of the inner section (decoding codes costs about a
// nanosecond a byte, less than most codecs' decode and the bytes saved:
// lineitem-64's MinLZ section, 2756 bytes, codes in 2540, 0.92 of it).
// An inner LZ4 section is a piece planLight chose LZ4 for: its raw bytes
// are coded instead (inner codec None) and kept when they take fewer bytes
// than the LZ4 section; skewed bytes without long matches, such as a
// validity bitmap with a few nulls, code to half of LZ4's bytes or less.
func (c *compressor) encodeHuff(st *lz4State, ls *lightScratch, dst, src []byte, s *section) []byte {
	if s.inner == LZ4 {
		z := c.compress(st, ls, dst[huffHeader:], src, &section{n: s.n, codec: LZ4})
		if z == nil {
			z = src // LZ4 failed: store raw unless coding pays
		}
		if len(src) <= huff0.BlockSizeMax {
			if table, out, _ := ls.huff.code(src, huffStreams(len(src)), keyOf(s, None)); out != nil &&
				huffHeader+len(table)+len(out) < len(z) &&
				float64(huffHeader+len(table)+len(out)) <= (1-c.minSavings/2)*float64(len(src)) {
				return putHuff(dst, None, src, table, out)
			}
		}
		if &z[0] == &src[0] {
			s.codec = None
			return nil
		}
		s.codec = LZ4
		return dst[:copy(dst, z)]
	}
	in := *s
	in.codec = s.inner
	z := src
	if in.codec != None {
		if z = c.compress(st, ls, dst[huffHeader:], src, &in); z == nil {
			s.codec = None
			return nil
		}
	}
	if len(z) >= huffMinCoded && len(z) <= huff0.BlockSizeMax {
		table, out, _ := ls.huff.code(z, huffStreams(len(z)), keyOf(s, in.codec))
		if out != nil && float64(huffHeader+len(table)+len(out)) <= (1-c.minSavings/2)*float64(len(z)) {
			return putHuff(dst, in.codec, z, table, out)
		}
	}
	s.codec = s.inner
	if s.codec == None {
		return nil
	}
	return dst[:copy(dst, z)]
}

// huffStreams returns the number of huff0 streams m bytes are coded in.
func huffStreams(m int) int {
	if m >= huff4Min {
		return 4
	}
	return 1
}

// putHuff writes into dst the Huffman section of the inner section z of
// codec inner, coded as the table (nil: out has its own) and out, and
// returns its bytes. z may lie in dst after the header: it is read before
// the codes overwrite it.
func putHuff(dst []byte, inner Compression, z, table, out []byte) []byte {
	streams := huffStreams(len(z))
	dst[0], dst[1], dst[2], dst[3] = byte(inner), byte(streams), 0, 0
	binary.LittleEndian.PutUint32(dst[4:], uint32(len(z)))
	n := huffHeader + copy(dst[huffHeader:], table)
	return dst[:n+copy(dst[n:], out)]
}

// huffKey names what a Huffman coder's table was built for: the inner
// codec of the section and the node its first buffer belongs to, or for a
// section of no node (a raw or LZ4 piece, a small block's one section) its
// first byte in the raw body.
type huffKey struct {
	inner Compression
	col   *plan
	at    int
}

// keyOf returns the key of the Huffman section s of an inner section of
// codec inner.
func keyOf(s *section, inner Compression) huffKey {
	if s.hint.col != nil {
		return huffKey{inner: inner, col: s.hint.col}
	}
	return huffKey{inner: inner, at: s.at}
}

// huffCoder codes the Huffman sections of one goroutine. It keeps the
// tables it built last, one for each of up to huffKept keys, and codes the
// next section of a kept key with its table when every byte value has a
// code in it and the coded size stays within huffReuseSlack of the size
// the table first coded at: building and writing a table takes huff0
// about half its time on a 3 KB section, and the blocks of one stream are
// alike. A decoder that meets the same table bytes again skips reading
// them (section_huff_dec.go).
type huffCoder struct {
	kept [huffKept]huffKeptTable
	next int // the entry the next new key replaces
}

// huffKept is how many tables a huffCoder keeps: a small block has a few
// sections that may be coded (its validity bitmaps and other raw or LZ4
// pieces), each of its own table.
const huffKept = 4

// huffKeptTable is one table a huffCoder keeps and the huff0 state that
// built it.
type huffKeptTable struct {
	s     huff0.Scratch
	key   huffKey
	table []byte  // the bytes of the kept table, nil for none
	ratio float64 // coded bytes (table included) per byte when built
	// sum is the byte counts the table was built from: the section's own
	// plus half (rounded up) of the counts the key's table before was
	// built from, so that the table has codes for every byte of the
	// sections before it too.
	sum [256]uint32
}

// huffReuseSlack is how much worse than when it was built (coded bytes
// per byte) a kept table may code before a new one is built.
const huffReuseSlack = 1.02

// code codes z in streams (1 or 4) huff0 streams and returns the table's
// bytes and the streams', or a nil stream when huff0 cannot code z in
// fewer bytes, and whether the table was a kept one. A section the kept
// table has no code for one of its bytes for, or codes more than
// huffReuseSlack worse than the one it was built for, gets a new table,
// built from its own counts and those of the sections before (sum): small
// blocks of text each hold a few bytes the one before did not, and a
// table built from one block alone could code none of the next (41 rows
// of npm-airports, 99 blocks). Tables with codes for more bytes take a
// few more bytes each (docs/light.md, "Huffman tables kept for small
// blocks").
func (h *huffCoder) code(z []byte, streams int, key huffKey) (table, out []byte, reused bool) {
	compress := huff0.Compress1X
	if streams == 4 {
		compress = huff0.Compress4X
	}
	var hist [256]uint32
	arrowpack.ByteHistogram(&hist, z)
	k := &h.kept[h.next]
	for i := range h.kept {
		if e := &h.kept[i]; e.table != nil && e.key == key {
			k = e
			break
		}
	}
	same := k.table != nil && k.key == key
	canUse := same && k.s.CanUseTable(&hist)
	if canUse && float64(len(k.table)+k.s.EstimateSize(&hist)) <= huffReuseSlack*k.ratio*float64(len(z)) {
		k.s.Reuse = huff0.ReusePolicyMust
		if out, reused, err := compress(z, &k.s); err == nil && reused {
			return k.table, out, true
		}
	}
	if same {
		for i, c := range hist {
			k.sum[i] = (k.sum[i]+1)/2 + c
		}
	} else {
		h.next = (h.next + 1) % huffKept
		k.sum = hist
	}
	buf := k.table[:0]
	k.table = nil
	if err := k.s.BuildCTable(&k.sum); err != nil {
		return nil, nil, false
	}
	t, err := k.s.AppendTable(buf)
	if err != nil {
		return nil, nil, false
	}
	k.s.Reuse = huff0.ReusePolicyMust
	out, reused, err = compress(z, &k.s)
	if err != nil || !reused || len(t)+len(out) >= len(z) {
		return nil, nil, false
	}
	k.key, k.table, k.ratio = key, t, float64(len(t)+len(out))/float64(len(z))
	return t, out, false
}

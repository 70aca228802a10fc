package codec

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/pierrec/lz4/v4"
)

// The front-coded string section codec (12): a string column's lengths
// buffer (a 0, then n lengths of w bytes, as flagLengths writes them), g
// bytes between it and the data, and the data, each string stored as how
// many bytes it shares with the string before it (its prefix) and the
// bytes that follow (its suffix). Sorted words and keys share most of
// their bytes with their neighbours; FSST codes each string whole, and
// LZ4 takes a shared prefix only when it has 4 bytes or more. The
// section's bytes, after which come the tail's:
//
//	0   uint8   w: bytes per length, 4 or 8
//	1   uint8   g: the bytes between the lengths and the data, stored raw
//	2   uint8   the suffixes' codec: 0 raw, 1 LZ4, 6 FSST
//	3   uint8   0
//	4   uint32  n: strings, 1..2^20
//	8   uint32  P: bytes of the prefix part
//	12  uint32  L: bytes of the suffix part
//	16  uint32  M: bytes of the suffixes, the sum of their lengths
//	20  uint32  D: bytes of the data part
//	24  g       the gap's raw bytes
//	24+g P      the n prefix lengths (uint32; the first 0, each at most the
//	            length of the string before) as a part (encodePart)
//	    L       the n suffix lengths (uint32) as a part
//	    D       the suffixes: M raw bytes, an LZ4 block of them, or an FSST
//	            section of them with no tail
//	            the tail: the raw bytes after the strings' data
//
// A front-coded section's raw bytes are at most strDictMaxRaw, as a
// string dictionary's: prefixes can repeat a long string many times.
const frontHeader = 24

// frontCode is a string column split into prefixes and suffixes.
type frontCode struct {
	pre, suf []uint32 // each string's prefix and suffix lengths
	data     []byte   // the suffixes, one after another
}

// frontOf splits p's strings into f (its room reused) and reports false
// if p's lengths pass its data. frontFast takes the strings that have 16
// bytes of data after them; the last few, and a length past the data, are
// taken here with checked slices.
func frontOf(f *frontCode, p strPiece) bool {
	pre := slices.Grow(f.pre[:0], p.n)[:p.n]
	suf := slices.Grow(f.suf[:0], p.n)[:p.n]
	out := slices.Grow(f.data[:0], len(p.data))[:len(p.data)]
	f.pre, f.suf, f.data = pre[:0], suf[:0], out[:0]
	data := p.data
	// where the string before starts, this one, its suffix
	var i, last, at, o int
	if p.w == 8 {
		i, last, at, o = frontFast[uint64](pre, suf, out, p.lens, data)
	} else {
		i, last, at, o = frontFast[uint32](pre, suf, out, p.lens, data)
	}
	for ; i < p.n; i++ {
		l := p.strLen(i)
		if uint(l) > uint(len(data)-at) {
			return false
		}
		// at - last: the length of the string before
		k := sharedPrefix(data[last:last+min(l, at-last)], data[at:at+l])
		pre[i], suf[i] = uint32(k), uint32(l-k)
		o += copy(out[o:], data[at+k:at+l])
		last, at = at, at+l
	}
	f.pre, f.suf, f.data = pre, suf, out[:o]
	return true
}

// frontFast is frontOf's loop over the strings of pre and suf's column
// (lengths of T's size in lens, its data in data) while each one has 16
// bytes of data after it. Most strings of a column share under 8 bytes
// with the one before and have a suffix under 16: those take one 8-byte
// compare and one 16-byte copy, read and written past their ends, as
// branches on each string's lengths mispredict. The reads and writes stay
// inside data and out (of data's size), and are made through pointers, as
// the checks of slices took most of its instructions. It returns where it
// stopped: the string, where the one before it and it start in data, and
// where its suffix goes in out.
func frontFast[T uint32 | uint64](pre, suf []uint32, out, lens, data []byte) (i, last, at, o int) {
	var z T
	w := int(unsafe.Sizeof(z))
	lp := unsafe.Pointer(unsafe.SliceData(lens))
	dp := unsafe.Pointer(unsafe.SliceData(data))
	op := unsafe.Pointer(unsafe.SliceData(out))
	load := func(at int) uint64 { return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(dp, at))[:]) }
	if len(lens)/w < len(pre)+1 {
		return 0, 0, 0, 0
	}
	suf = suf[:len(pre)]
	for ; i < len(pre); i++ {
		var l uint64
		if w == 8 {
			l = binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(lp, 8*(i+1)))[:])
		} else {
			l = uint64(binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(lp, 4*(i+1)))[:]))
		}
		if rem := len(data) - 16 - at; rem < 0 || l > uint64(rem) {
			break
		}
		n := min(int(l), at-last) // at - last: the length of the string before
		k := min(bits.TrailingZeros64(load(last)^load(at))/8, n)
		if k == 8 {
			k += sharedPrefix(data[last+8:last+n], data[at+8:at+n])
		}
		m := int(l) - k
		pre[i], suf[i] = uint32(k), uint32(m)
		if m <= 16 {
			binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(op, o))[:], load(at+k))
			binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(op, o+8))[:], load(at+k+8))
		} else {
			copy(out[o:], data[at+k:at+int(l)])
		}
		o += m
		last, at = at, at+int(l)
	}
	return i, last, at, o
}

// sharedPrefix returns how many bytes a and b share at their start.
func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// frontSample is the most strings, in dictChunks runs spread over a
// column, frontMayPay compares with the string before them, and
// frontMinShare the least share of their bytes they must share for the
// encoder to split the whole column.
const (
	frontSample   = 512
	frontMinShare = 0.25
)

// frontMayPay reports whether p's strings share at least frontMinShare of
// their bytes with the string before, on a sample, and the share.
func frontMayPay(p strPiece) (float64, bool) {
	if p.n < minRepValues {
		return 0, false
	}
	total, shared := 0, 0
	ok := sampleStrs(p, min(frontSample, p.n)/dictChunks, func(s, prev []byte, first bool) {
		if !first {
			total += len(s)
			shared += sharedPrefix(prev, s)
		}
	})
	share := float64(shared) / float64(max(total, 1))
	return share, ok && total > 0 && share >= frontMinShare
}

// frontSize is the bytes the front-coded section of f takes with a gap of
// gap bytes and no tail, its suffixes weighed by ratio (the column's FSST
// ratio), with room in scratch.
func frontSize(f *frontCode, gap int, ratio float64, scratch []uint64) (float64, []uint64) {
	pp, scratch := partSize(asBytes(f.pre), 4, scratch)
	sp, scratch := partSize(asBytes(f.suf), 4, scratch)
	return float64(frontHeader+gap+pp+sp) + ratio*float64(len(f.data)), scratch
}

// frontBound is the most bytes a front-coded section of n strings, a gap
// of gap bytes and m bytes of suffixes takes with a tail of tail bytes.
func frontBound(n, gap, m, tail int) int {
	return frontHeader + gap + 2*partBound(n, 4) + max(fsstBound(m, 0), lz4.CompressBlockBound(m)) + tail
}

// encodeFront writes into dst (of frontBound bytes) the front-coded
// section of p, whose raw bytes end with tail, split as f, its suffixes
// stored as the smallest of raw, LZ4 and FSST with t (if not nil), and
// returns it and scratch.
func encodeFront(dst []byte, p strPiece, tail []byte, f *frontCode, d strData, scratch []uint64) ([]byte, []uint64) {
	o := frontHeader
	o += copy(dst[o:], p.gap)
	pp, scratch := encodePart(dst[o:], asBytes(f.pre), 4, scratch)
	o += pp
	sp, scratch := encodePart(dst[o:], asBytes(f.suf), 4, scratch)
	o += sp
	codec, dz := d.encode(dst[o:], f.data)
	o += dz
	dst[0], dst[1], dst[2], dst[3] = byte(p.w), byte(len(p.gap)), byte(codec), 0
	binary.LittleEndian.PutUint32(dst[4:], uint32(p.n))
	binary.LittleEndian.PutUint32(dst[8:], uint32(pp))
	binary.LittleEndian.PutUint32(dst[12:], uint32(sp))
	binary.LittleEndian.PutUint32(dst[16:], uint32(len(f.data)))
	binary.LittleEndian.PutUint32(dst[20:], uint32(dz))
	o += copy(dst[o:], tail)
	return dst[:o], scratch
}

// frontKeep is the most of the plain sections' estimate a front-coded
// section's estimate may be for the encoder to choose it: both weigh
// text by the column's FSST ratio, which suffixes need not share.
const frontKeep = 0.9

// chooseFront decides whether the string column whose lengths buffer
// (hint h) starts at body[at:], followed after gap bytes by its text of
// text bytes, takes fewer bytes front-coded than as bit-packed lengths
// and FSST-coded text (the text and the suffixes both weighed by the
// column's FSST ratio): it returns the section, whose end the planner
// sets, if so, having split the column in ss.nextRep(). notOverLZ4 holds
// it to LZ4's bytes, as every lightweight section; where chooseStrDict
// compressed the column (lens.lz), a section whose suffixes alone (the
// sample's unshared share of the text) or whole estimate take more is not
// tried, and notOverLZ4 need not compress it again.
func (c *compressor) chooseFront(ss *sectionScratch, lens *strLens, body []byte, at int, h bufHint, gap, text int) (section, bool) {
	p, ok := strPieceAt(body, at, h, gap, text)
	if !ok {
		return section{}, false
	}
	share, ok := frontMayPay(p)
	ratio := c.column(h.col).fsst.ratioNow()
	if !ok || lens.lz > 0 && ratio*(1-share)*float64(text) >= float64(lens.lz) {
		return section{}, false
	}
	rs := ss.nextRep()
	if !frontOf(&rs.front, p) {
		return section{}, false
	}
	var front float64
	front, rs.words = frontSize(&rs.front, gap, ratio, rs.words)
	var bp bitpackChoice
	bp, rs.words = lens.of(p, rs.words)
	if front >= frontKeep*(float64(bp.size(gap)+fsstHeader)+ratio*float64(text)) || lens.lz > 0 && front >= float64(lens.lz) {
		return section{}, false
	}
	return section{at: at, codec: codecFront, hint: h, rep: repChoice{m: len(rs.front.data), gap: gap, text: text, lz: lens.lz, lzHeld: lens.lzHeld}}, true
}

// encodeFrontSection encodes the front-coded section s of src into dst
// (of lightBound(s) bytes) with the split chooseFront made.
func (c *compressor) encodeFrontSection(st *lz4State, ls *lightScratch, dst, src []byte, s section) []byte {
	p := strPieceOf(src, s)
	f := &s.rs.front
	z, words := encodeFront(dst, p, src[len(p.lens)+len(p.gap)+len(p.data):], f, c.strDataFor(st, ls, s, f.data), ls.words)
	ls.words = words
	return z
}

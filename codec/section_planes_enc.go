package codec

import (
	"encoding/binary"
	"math/bits"

	"github.com/arrowpack/arrowpack"
	"github.com/pierrec/lz4/v4"
)

// The byte-plane section codec, for floats that are not decimals (ALP
// leaves too many exceptions): n values of w bytes are byte-transposed
// (arrowpack.TransposeBytes: byte j of value i at j*n + i) and each of the
// w planes is stored raw, as one LZ4 block or packed. The planes of the
// sign and exponent bytes of floats that share a sign and a few exponents
// shrink with LZ4; those of floats of both signs and a few exponents
// (normally distributed ones) hold a few distinct bytes in random order,
// which LZ4 does not shrink and packing does: the distinct bytes, then
// each byte's index among them in as few bits as they need; those of
// random mantissas are stored raw. The section's bytes, after which come
// the tail's:
//
//	0     uint8   w: bytes per value, 4 or 8
//	1     3 bytes 0
//	4     uint32  n: values, at most 2^20
//	8     w bytes: each plane's codec, 0 raw, 1 LZ4 or 2 packed
//	8+w   w uint32: each plane's stored length (n for a raw plane)
//	8+5w  the planes' stored bytes, one after another
//	      the tail: the r - n*w raw bytes after the values
//
// A packed plane of d distinct bytes (2 to 256) is d-1 in a byte, the d
// bytes in ascending order, then the n indices bit-packed (bitpack.go's
// layout) in b = bits.Len(d-1) bits each: 1 + d + PackedLen(n, b) bytes.
const planesHeader = 8

// The codecs of a plane.
const (
	planeRaw    = 0
	planeLZ4    = 1
	planePacked = 2
)

// planesMaxPacked is the most distinct bytes an encoder packs a plane of:
// 6 bits an index, which saves a quarter of the plane.
const planesMaxPacked = 64

// planesChoice is which planes of a piece of floats are compressed: bit j
// of lz4 set for plane j compressed with LZ4, of packed for plane j packed.
type planesChoice struct {
	w, n   int
	lz4    uint8
	packed uint8
}

// planeDistinct returns how many distinct bytes plane holds, or
// planesMaxPacked+1 as soon as it holds more than planesMaxPacked.
func planeDistinct(plane []byte) int {
	var seen [256]bool
	d := 0
	for _, b := range plane {
		if !seen[b] {
			seen[b] = true
			if d++; d > planesMaxPacked {
				break
			}
		}
	}
	return d
}

// packedPlaneSize is the bytes a plane of n bytes, d of them distinct,
// takes packed.
func packedPlaneSize(n, d int) int {
	return 1 + d + arrowpack.PackedLen(n, bits.Len(uint(d-1)))
}

// choosePlanes estimates the byte planes of the n floats of w bytes in b,
// transposed into scratch (grown as needed and returned): a plane that
// looks constant or that LZ4's estimate says shrinks is compressed. It
// returns the choice and the section's estimated size without the tail.
func (c *compressor) choosePlanes(ss *sectionScratch, b []byte, w int) (planesChoice, int, []byte) {
	n := len(b) / w
	p := planesChoice{w: w, n: n}
	t := ss.planes
	if cap(t) < len(b) {
		t = make([]byte, len(b))
	}
	t = t[:len(b)]
	arrowpack.TransposeBytes(t, b, w)
	size := planesHeader + 5*w
	for j := range w {
		plane := t[j*n : (j+1)*n]
		if looksConstant(plane) {
			p.lz4 |= 1 << j
			size += n / 255
			continue
		}
		best := n
		if ok, m := c.worthSaving(&ss.hist, plane, -1); ok {
			if m < 0 {
				m = matchSavings(plane)
			}
			p.lz4 |= 1 << j
			best = int((1 - m + lzSlack) * float64(n))
		}
		if d := planeDistinct(plane); d >= 2 && d <= planesMaxPacked && packedPlaneSize(n, d) < best {
			p.lz4 &^= 1 << j
			p.packed |= 1 << j
			best = packedPlaneSize(n, d)
		}
		size += best
	}
	return p, size, t
}

// planesBound is the most bytes a byte-plane section of n values of w
// bytes and a tail of tail bytes takes.
func planesBound(n, w, tail int) int {
	return planesHeader + 5*w + w*max(lz4.CompressBlockBound(n), 1+256+n) + tail
}

// encodePlanes writes into dst the byte-plane section of raw, whose first
// p.n values of p.w bytes are transposed into ls's room and stored as p
// says, planes LZ4 or packing do not shrink raw after all, with st
// compressing; the rest of raw is the tail. It returns nil if the section
// does not fit in dst, which planesBound bytes always hold: notOverLZ4
// gives it only the bytes that would beat the section it has, so that a
// trial that loses stops once it has written them.
func encodePlanes(st *lz4State, ls *lightScratch, dst, raw []byte, p planesChoice) []byte {
	vals := p.n * p.w
	o := planesHeader + 5*p.w
	if len(dst) < o+len(raw)-vals {
		return nil
	}
	if cap(ls.bytes) < vals {
		ls.bytes = make([]byte, vals)
	}
	t := ls.bytes[:vals]
	arrowpack.TransposeBytes(t, raw[:vals], p.w)
	dst[0], dst[1], dst[2], dst[3] = byte(p.w), 0, 0, 0
	binary.LittleEndian.PutUint32(dst[4:], uint32(p.n))
	for j := range p.w {
		plane := t[j*p.n : (j+1)*p.n]
		room := len(dst) - o - (len(raw) - vals)
		codec, size := byte(planeRaw), p.n
		switch {
		case p.packed>>j&1 != 0: // packed, if both are set
			if z := packPlane(ls, dst[o:o+room], plane); z > 0 && z < p.n {
				codec, size = planePacked, z
			}
		case p.lz4>>j&1 != 0 && p.n > 0:
			if z := lz4Block(st, dst[o:o+min(room, p.n-1)], plane); z > 0 {
				codec, size = planeLZ4, z
			}
		}
		if codec == planeRaw {
			if room < p.n {
				return nil
			}
			copy(dst[o:], plane)
		}
		dst[planesHeader+j] = codec
		binary.LittleEndian.PutUint32(dst[planesHeader+p.w+4*j:], uint32(size))
		o += size
	}
	o += copy(dst[o:], raw[vals:])
	return dst[:o]
}

// packPlane writes plane packed into dst, with ls's room for the indices,
// and returns the bytes it took, or 0 if plane holds fewer than 2 distinct
// bytes or its packed bytes do not fit in dst.
func packPlane(ls *lightScratch, dst, plane []byte) int {
	var seen [256]bool
	for _, b := range plane {
		seen[b] = true
	}
	var index [256]uint32
	var table [256]byte
	d := 0
	for b, ok := range seen {
		if ok {
			index[b], table[d] = uint32(d), byte(b)
			d++
		}
	}
	if d < 2 || len(dst) < packedPlaneSize(len(plane), d) {
		return 0
	}
	dst[0] = byte(d - 1)
	copy(dst[1:], table[:d])
	if cap(ls.idx) < len(plane) {
		ls.idx = make([]uint32, len(plane))
	}
	idx := ls.idx[:len(plane)]
	for i, b := range plane {
		idx[i] = index[b]
	}
	return 1 + d + arrowpack.BitPack32(dst[1+d:], idx, 0, bits.Len(uint(d-1)))
}

// lz4Block compresses src into dst with st and returns the compressed
// size, or 0 if it failed or took more than dst holds (pierrec's
// compressor then stops). Into a dst shorter than CompressBlockBound it
// writes the same block as into a longer one, or 0 for a block not
// smaller than src.
func lz4Block(st *lz4State, dst, src []byte) int {
	n, err := st.fast.CompressBlock(src, dst)
	if err != nil {
		return 0
	}
	return n
}

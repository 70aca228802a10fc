package codec

import (
	"encoding/binary"

	"github.com/arrowpack/arrowpack"
	"github.com/pierrec/lz4/v4"
)

// The byte-plane section codec, for floats that are not decimals (ALP
// leaves too many exceptions): n values of w bytes are byte-transposed
// (arrowpack.TransposeBytes: byte j of value i at j*n + i) and each of the
// w planes is stored raw or as one LZ4 block. The planes of the sign and
// exponent bytes of floats that share a sign and a few exponents shrink,
// those of random mantissas are stored raw. The section's bytes, after
// which come the tail's:
//
//	0     uint8   w: bytes per value, 4 or 8
//	1     3 bytes 0
//	4     uint32  n: values, at most 2^20
//	8     w bytes: each plane's codec, 0 raw or 1 LZ4
//	8+w   w uint32: each plane's stored length (n for a raw plane)
//	8+5w  the planes' stored bytes, one after another
//	      the tail: the r - n*w raw bytes after the values
const planesHeader = 8

// planesChoice is which planes of a piece of floats are compressed: bit j
// of lz4 set for plane j.
type planesChoice struct {
	w, n int
	lz4  uint8
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
		switch {
		case looksConstant(plane):
			p.lz4 |= 1 << j
			size += n / 255
		case c.worth(&ss.hist, plane):
			p.lz4 |= 1 << j
			size += int((1 - matchSavings(plane) + lzSlack) * float64(n))
		default:
			size += n
		}
	}
	return p, size, t
}

// planesBound is the most bytes a byte-plane section of n values of w
// bytes and a tail of tail bytes takes.
func planesBound(n, w, tail int) int {
	return planesHeader + 5*w + w*lz4.CompressBlockBound(n) + tail
}

// encodePlanes writes into dst (of planesBound bytes) the byte-plane
// section of raw, whose first p.n values of p.w bytes are transposed into
// scratch (grown as needed and returned) and stored as p says, planes LZ4
// does not shrink raw after all, with st compressing; the rest of raw is
// the tail.
func encodePlanes(st *lz4State, dst, raw []byte, p planesChoice, scratch []byte) ([]byte, []byte) {
	vals := p.n * p.w
	if cap(scratch) < vals {
		scratch = make([]byte, vals)
	}
	t := scratch[:vals]
	arrowpack.TransposeBytes(t, raw[:vals], p.w)
	dst[0], dst[1], dst[2], dst[3] = byte(p.w), 0, 0, 0
	binary.LittleEndian.PutUint32(dst[4:], uint32(p.n))
	o := planesHeader + 5*p.w
	for j := range p.w {
		plane := t[j*p.n : (j+1)*p.n]
		codec, size := byte(0), p.n
		if p.lz4>>j&1 != 0 && p.n > 0 {
			if z := lz4Block(st, dst[o:], plane); z > 0 && z < p.n {
				codec, size = 1, z
			}
		}
		if codec == 0 {
			copy(dst[o:], plane)
		}
		dst[planesHeader+j] = codec
		binary.LittleEndian.PutUint32(dst[planesHeader+p.w+4*j:], uint32(size))
		o += size
	}
	o += copy(dst[o:], raw[vals:])
	return dst[:o], scratch
}

// lz4Block compresses src into dst (of at least CompressBlockBound bytes)
// with st and returns the compressed size, 0 if it failed.
func lz4Block(st *lz4State, dst, src []byte) int {
	n, err := st.fast.CompressBlock(src, dst)
	if err != nil {
		return 0
	}
	return n
}

package codec

import (
	"encoding/binary"

	"github.com/arrowpack/arrowpack"
	"github.com/pierrec/lz4/v4"
)

// The transposed LZ4 section codec holds integers of 4 or 8 bytes as the
// LZ4 encoder stores them: byte-transposed (arrowpack.TransposeBytes:
// byte j of value i at j*n + i), then one LZ4 block. It is what Light
// falls back to when that takes fewer bytes than the lightweight section
// it encoded (notOverLZ4): one LZ4 block finds the matches across planes
// that a byte-plane section's LZ4 planes, each its own block, miss. The
// section's bytes, after which come the tail's:
//
//	0     uint8   w: bytes per value, 4 or 8
//	1     3 bytes 0
//	4     uint32  n: values, 1 to 2^20
//	8     the LZ4 block of the n*w transposed bytes
//	      the tail: the r - n*w raw bytes after the values
const transposedHeader = 8

// transposedBound is the most bytes a transposed LZ4 section of n values
// of w bytes and a tail of tail bytes takes.
func transposedBound(n, w, tail int) int {
	return transposedHeader + lz4.CompressBlockBound(n*w) + tail
}

// encodeTransposed writes into dst the transposed LZ4 section of raw,
// whose first n values of w bytes are transposed into ls's room and
// compressed with st; the rest of raw is the tail. It returns nil if n is
// 0 or if the section does not fit in dst (in less than transposedBound
// bytes, also if LZ4 does not shrink the values, as lz4Block says):
// notOverLZ4 gives it only the bytes that would beat the section it has,
// so that a trial that loses stops once it has written them.
func encodeTransposed(st *lz4State, ls *lightScratch, dst, raw []byte, n, w int) []byte {
	vals := n * w
	tail := len(raw) - vals
	if n == 0 || len(dst) < transposedHeader+1+tail {
		return nil
	}
	if cap(ls.bytes) < vals {
		ls.bytes = make([]byte, vals)
	}
	t := ls.bytes[:vals]
	arrowpack.TransposeBytes(t, raw[:vals], w)
	k := lz4Block(st, dst[transposedHeader:len(dst)-tail], t)
	if k == 0 {
		return nil
	}
	dst[0], dst[1], dst[2], dst[3] = byte(w), 0, 0, 0
	binary.LittleEndian.PutUint32(dst[4:], uint32(n))
	o := transposedHeader + k
	o += copy(dst[o:], raw[vals:])
	return dst[:o]
}

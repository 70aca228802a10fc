package codec

import (
	"encoding/binary"
	"unsafe"
)

// The run-length section codec: n integers of 4 or 8 bytes stored as k
// runs, each a value and where it ends, the values and the run ends each
// a bit-packed section of their own (a cascade of two levels). One run,
// a constant, takes the header and the value. The section's bytes, after
// which come the tail's:
//
//	0   uint8   w: bytes per value, 4 or 8
//	1   3 bytes 0
//	4   uint32  n: values, 1..2^20
//	8   uint32  k: runs, 1..n
//	12  uint32  V: bytes of the values part
//	16  V       the values part (partBytes): the k run values of w bytes
//	16+V E      the ends part: k = 1, nothing; else a bit-packed section of the
//	            k-1 first runs' ends (uint32, strictly increasing, 1..n-1; the
//	            last run ends at n)
//	            the tail: the r - n*w raw bytes after the values
//
// The dictionary section (section_dict_enc.go) has the same header and
// parts, a dictionary in place of the run values and codes in place of
// the ends.
const partsHeader = 16

// partBound is the most bytes a part of k values of w bytes takes
// (encodePart): a bit-packed section's header and at most w bytes a value.
func partBound(k, w int) int { return bitpackHeader + k*w }

// encodePart writes into dst (of partBound bytes) the k = len(vals)/w
// values of w bytes in vals: with k = 1 the value's w bytes, else a
// bit-packed section of them with no tail, chosen as chooseBitpack does
// (delta for ascending run ends, frame of reference for codes), with room
// in scratch (grown as needed and returned). It returns the bytes
// written.
func encodePart(dst, vals []byte, w int, scratch []uint64) (int, []uint64) {
	if len(vals) == w {
		return copy(dst, vals), scratch
	}
	c, scratch := chooseBitpack(vals, w, scratch)
	z, scratch := encodeBitpack(dst, vals, c, scratch)
	return len(z), scratch
}

// partSize is the bytes encodePart takes for vals, with room in scratch.
func partSize(vals []byte, w int, scratch []uint64) (int, []uint64) {
	if len(vals) == w {
		return w, scratch
	}
	c, scratch := chooseBitpack(vals, w, scratch)
	return c.size(0), scratch
}

// putPartsHeader writes the header of a run-length or dictionary section.
func putPartsHeader(dst []byte, w, n, k, v int) {
	dst[0], dst[1], dst[2], dst[3] = byte(w), 0, 0, 0
	binary.LittleEndian.PutUint32(dst[4:], uint32(n))
	binary.LittleEndian.PutUint32(dst[8:], uint32(k))
	binary.LittleEndian.PutUint32(dst[12:], uint32(v))
}

// rleRuns is a run-length encoding worked out by the encoder: the runs'
// values (k values of w bytes) and the first k-1 runs' ends.
type rleRuns struct {
	vals []byte
	ends []uint32
}

// runsOf splits the values of w bytes (4 or 8) in b into runs, in room
// reused from r.
func runsOf(r rleRuns, b []byte, w int) rleRuns {
	r.vals, r.ends = r.vals[:0], r.ends[:0]
	if w == 8 {
		return runsOfT(r, view[uint64](b)[:len(b)/8])
	}
	return runsOfT(r, view[uint32](b)[:len(b)/4])
}

func runsOfT[T uint32 | uint64](r rleRuns, v []T) rleRuns {
	if len(v) == 0 {
		return r
	}
	w := int(unsafe.Sizeof(T(0)))
	prev := v[0]
	r.vals = appendValue(r.vals, prev, w)
	for i, x := range v[1:] {
		if x != prev {
			r.ends = append(r.ends, uint32(i+1))
			r.vals = appendValue(r.vals, x, w)
			prev = x
		}
	}
	return r
}

// appendValue appends x's low w bytes, little-endian.
func appendValue[T uint32 | uint64](b []byte, x T, w int) []byte {
	var t [8]byte
	binary.LittleEndian.PutUint64(t[:], uint64(x))
	return append(b, t[:w]...)
}

// runsAtMost reports whether the values of w bytes in b have at most
// limit runs, stopping as soon as they have more.
func runsAtMost(b []byte, w, limit int) bool {
	if w == 8 {
		return runsAtMostT(view[uint64](b)[:len(b)/8], limit)
	}
	return runsAtMostT(view[uint32](b)[:len(b)/4], limit)
}

func runsAtMostT[T uint32 | uint64](v []T, limit int) bool {
	runs := 1
	for i := 1; i < len(v); i++ {
		if v[i] != v[i-1] {
			if runs++; runs > limit {
				return false
			}
		}
	}
	return true
}

// rleSize is the bytes the run-length section of runs r of values of w
// bytes takes with a tail of tail bytes, with room in scratch.
func rleSize(r rleRuns, w, tail int, scratch []uint64) (int, []uint64) {
	v, scratch := partSize(r.vals, w, scratch)
	e := 0
	if len(r.ends) > 0 {
		e, scratch = partSize(asBytes(r.ends), 4, scratch)
	}
	return partsHeader + v + e + tail, scratch
}

// rleBound is the most bytes a run-length section of k runs of n values
// of w bytes takes with a tail of tail bytes.
func rleBound(k, w, tail int) int {
	return partsHeader + partBound(k, w) + partBound(k, 4) + tail
}

// encodeRLE writes into dst (of rleBound bytes) the run-length section of
// raw, whose first n values of w bytes are the runs r and the rest the
// tail, with room in scratch (grown as needed and returned), and returns
// the section.
func encodeRLE(dst, raw []byte, n, w int, r rleRuns, scratch []uint64) ([]byte, []uint64) {
	o := partsHeader
	v, scratch := encodePart(dst[o:], r.vals, w, scratch)
	o += v
	if len(r.ends) > 0 {
		var e int
		e, scratch = encodePart(dst[o:], asBytes(r.ends), 4, scratch)
		o += e
	}
	putPartsHeader(dst, w, n, len(r.vals)/w, v)
	o += copy(dst[o:], raw[n*w:])
	return dst[:o], scratch
}

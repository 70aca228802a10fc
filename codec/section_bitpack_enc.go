package codec

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/arrowpack/arrowpack"
)

// The bit-packing section codec: n integers of 4 or 8 bytes stored as
// their differences from a reference (frame of reference), each in the
// fewest bits that hold the largest, with the kernels' layout
// (arrowpack.BitPack32/64). Sorted values are stored as the differences
// between neighbours instead (delta), which are small where the values
// are not. The section's bytes, after which come the tail's:
//
//	0   uint8   w: bytes per value, 4, 8 or 16 (a 128-bit integer, as decimal128
//	            holds, whose high 8 bytes repeat the sign of its low 8: the low 8 are packed)
//	1   uint8   mode: 0 frame of reference, 1 delta, 2 frame of reference but the first value
//	2   uint8   b: bits per packed value, 0..8w
//	3   uint8   0
//	4   uint32  n: values
//	8   uint64  base: the reference added to every packed value (low 4 bytes for w = 4)
//	16  uint64  first: modes 1 and 2, the first value; 0 otherwise
//	24  the packed values: arrowpack.PackedLen(n, b) bytes, or PackedLen(n-1, b) in modes 1 and 2
//	    the tail: the r - n*w raw bytes after the values
const bitpackHeader = 24

const (
	modeFOR   = 0
	modeDelta = 1
	// modeFirst is the frame of reference of all values but the first,
	// which is stored as it is: the lengths buffers of strings and lists
	// start with a 0 that would widen every other length.
	modeFirst = 2
)

// bitpackChoice is how a piece of integers is bit-packed, decided before
// encoding from the values' minimum and maximum and, for values that look
// sorted, their differences'.
type bitpackChoice struct {
	w, mode, bits int
	n             int    // values
	base, first   uint64 // as in the header
}

// size is the bytes the section takes with a tail of tail bytes.
func (b bitpackChoice) size(tail int) int {
	if b.bits > 64 {
		return math.MaxInt32
	}
	k := b.n
	if b.mode != modeFOR {
		k--
	}
	return bitpackHeader + arrowpack.PackedLen(k, b.bits) + tail
}

// widthOf is the bits that hold every difference up to d.
func widthOf(d uint64) int { return bits.Len64(d) }

// chooseBitpack works out the bit-packing of the values of w bytes in b
// (len(b) a multiple of w), with deltas in scratch (grown as needed and
// returned) when they look sorted.
func chooseBitpack(b []byte, w int, scratch []uint64) (bitpackChoice, []uint64) {
	n := len(b) / w
	c := bitpackChoice{w: w, n: n}
	if w == 16 {
		var ok bool
		if scratch, ok = lowWords(b, n, scratch); !ok {
			c.bits = 128 // never smaller than the raw bytes
			return c, scratch
		}
		lo, hi := arrowpack.MinMaxInt64(view[int64](unsafeBytes(scratch[:n])))
		c.base, c.bits = uint64(lo), widthOf(uint64(hi)-uint64(lo))
		return c, scratch
	}
	if w == 8 {
		v := view[int64](b)[:n]
		if n < 2 {
			lo, hi := arrowpack.MinMaxInt64(v)
			c.base, c.bits = uint64(lo), widthOf(uint64(hi)-uint64(lo))
			return c, scratch
		}
		rlo, rhi := arrowpack.MinMaxInt64(v[1:])
		lo, hi := min(rlo, v[0]), max(rhi, v[0])
		c.base, c.bits = uint64(lo), widthOf(uint64(hi)-uint64(lo))
		if rb := widthOf(uint64(rhi) - uint64(rlo)); rb < c.bits {
			c.mode, c.bits, c.base, c.first = modeFirst, rb, uint64(rlo), uint64(v[0])
		}
		if c.bits > 0 && looksSorted(v) {
			if cap(scratch) < n {
				scratch = make([]uint64, n)
			}
			d := view[int64](unsafeBytes(scratch[:n]))
			arrowpack.OffsetsToLengths64(d, v)
			dlo, dhi := arrowpack.MinMaxInt64(d[:n-1])
			if dlo >= 0 && uint64(hi)-uint64(lo) <= math.MaxInt64 {
				if db := widthOf(uint64(dhi - dlo)); db < c.bits {
					c.mode, c.bits, c.base, c.first = modeDelta, db, uint64(dlo), uint64(v[0])
				}
			}
		}
		return c, scratch
	}
	v := view[int32](b)[:n]
	if n < 2 {
		lo, hi := arrowpack.MinMaxInt32(v)
		c.base, c.bits = uint64(uint32(lo)), widthOf(uint64(uint32(hi)-uint32(lo)))
		return c, scratch
	}
	rlo, rhi := arrowpack.MinMaxInt32(v[1:])
	lo, hi := min(rlo, v[0]), max(rhi, v[0])
	c.base, c.bits = uint64(uint32(lo)), widthOf(uint64(uint32(hi)-uint32(lo)))
	if rb := widthOf(uint64(uint32(rhi) - uint32(rlo))); rb < c.bits {
		c.mode, c.bits, c.base, c.first = modeFirst, rb, uint64(uint32(rlo)), uint64(uint32(v[0]))
	}
	if c.bits > 0 && looksSorted(v) {
		if cap(scratch) < (n+1)/2 {
			scratch = make([]uint64, (n+1)/2)
		}
		d := view[int32](unsafeBytes(scratch[:(n+1)/2]))
		arrowpack.OffsetsToLengths32(d, v)
		dlo, dhi := arrowpack.MinMaxInt32(d[:n-1])
		if dlo >= 0 && uint32(hi)-uint32(lo) <= math.MaxInt32 {
			if db := widthOf(uint64(uint32(dhi - dlo))); db < c.bits {
				c.mode, c.bits, c.base, c.first = modeDelta, db, uint64(uint32(dlo)), uint64(uint32(v[0]))
			}
		}
	}
	return c, scratch
}

// lowWords copies into scratch (grown as needed and returned) the low 8
// bytes of the n 16-byte integers in b, and reports whether the high 8
// bytes of each are its sign extended.
func lowWords(b []byte, n int, scratch []uint64) ([]uint64, bool) {
	if cap(scratch) < n {
		scratch = make([]uint64, n)
	}
	v := view[uint64](b)
	d := scratch[:n]
	for i := range d {
		lo := v[2*i]
		if v[2*i+1] != uint64(int64(lo)>>63) {
			return scratch, false
		}
		d[i] = lo
	}
	return scratch, true
}

// looksSorted reports whether v, of at least 2 values, is ascending at 9
// evenly spread spots: worth computing its differences for.
func looksSorted[T int32 | int64](v []T) bool {
	n := len(v)
	if n < 2 {
		return false
	}
	prev := v[0]
	for i := 1; i <= 8; i++ {
		x := v[(n-1)*i/8]
		if x < prev {
			return false
		}
		prev = x
	}
	return true
}

// encodeBitpack writes into dst (of at least c.size(len(raw)-c.n*c.w)
// bytes) the section of raw, whose first c.n values of c.w bytes are
// packed as c says and the rest is the tail, with deltas computed into
// scratch (grown as needed), and returns the section and scratch.
func encodeBitpack(dst, raw []byte, c bitpackChoice, scratch []uint64) ([]byte, []uint64) {
	vals := c.n * c.w
	dst[0], dst[1], dst[2], dst[3] = byte(c.w), byte(c.mode), byte(c.bits), 0
	binary.LittleEndian.PutUint32(dst[4:], uint32(c.n))
	binary.LittleEndian.PutUint64(dst[8:], c.base)
	binary.LittleEndian.PutUint64(dst[16:], c.first)
	o := bitpackHeader
	switch {
	case c.w == 16:
		scratch, _ = lowWords(raw[:vals], c.n, scratch)
		o += arrowpack.BitPack64(dst[o:], scratch[:c.n], c.base, c.bits)
	case c.w == 8 && c.mode == modeFOR:
		o += arrowpack.BitPack64(dst[o:], view[uint64](raw[:vals])[:c.n], c.base, c.bits)
	case c.w == 8 && c.mode == modeFirst:
		o += arrowpack.BitPack64(dst[o:], view[uint64](raw[:vals])[1:c.n], c.base, c.bits)
	case c.w == 8:
		if cap(scratch) < c.n {
			scratch = make([]uint64, c.n)
		}
		d := view[int64](unsafeBytes(scratch[:c.n]))
		arrowpack.OffsetsToLengths64(d, view[int64](raw[:vals])[:c.n])
		o += arrowpack.BitPack64(dst[o:], scratch[:c.n-1], c.base, c.bits)
	case c.mode == modeFOR:
		o += arrowpack.BitPack32(dst[o:], view[uint32](raw[:vals])[:c.n], uint32(c.base), c.bits)
	case c.mode == modeFirst:
		o += arrowpack.BitPack32(dst[o:], view[uint32](raw[:vals])[1:c.n], uint32(c.base), c.bits)
	default:
		if cap(scratch) < (c.n+1)/2 {
			scratch = make([]uint64, (c.n+1)/2)
		}
		d := view[int32](unsafeBytes(scratch[:(c.n+1)/2]))
		arrowpack.OffsetsToLengths32(d, view[int32](raw[:vals])[:c.n])
		o += arrowpack.BitPack32(dst[o:], view[uint32](asBytes(d))[:c.n-1], uint32(c.base), c.bits)
	}
	o += copy(dst[o:], raw[vals:])
	return dst[:o], scratch
}

package codec

import (
	"math"
	"unsafe"

	"github.com/arrowpack/arrowpack"
)

// Encoding the nodes with offsets: binary, string and list arrays, 32- and
// 64-bit, with offsets rebased and continued across segs.

// offsetsOf returns the n+1 offsets of s's rows (buffer 1), after checking
// the buffer holds them and that they delimit a range of at least 0
// elements starting at 0 or above, which int holds.
func offsetsOf[T int32 | int64](s *seg) []T {
	b := s.b1
	if s.n == 0 && len(b) == 0 {
		return view[T](unsafeBytes(zeroWord[:]))[:1]
	}
	o := view[T](b)
	if uint64(s.off)+uint64(s.n) >= uint64(len(o)) {
		invalidf("%s: offsets buffer of %d values is too short for rows up to %d", s.d.DataType(), len(o), s.off+s.n)
	}
	o = o[s.off : s.off+s.n+1]
	if o[0] < 0 || o[s.n] < o[0] || int64(o[s.n]) > math.MaxInt {
		// (Past MaxInt: 64-bit offsets no buffer can reach on a 32-bit
		// platform.)
		invalidf("%s: offsets of rows %d to %d run from %d to %d", s.d.DataType(), s.off, s.off+s.n, o[0], o[s.n])
	}
	return o
}

// offsetKernels are the kernels that write offsets of one width.
type offsetKernels[T int32 | int64] struct {
	rebase  func(dst, src []T, base T)
	lengths func(dst, offsets []T)
}

var (
	offsets32 = offsetKernels[int32]{arrowpack.RebaseOffsets32, arrowpack.OffsetsToLengths32}
	offsets64 = offsetKernels[int64]{arrowpack.RebaseOffsets64, arrowpack.OffsetsToLengths64}
)

// offsetsNode writes the offsets of segs continued one after the other,
// starting at 0 (with flagLengths: a 0, then the lengths), sets each seg's
// lo and hi to the range of data bytes or child elements its offsets
// delimit, and returns the sum of their lengths. With one seg it takes that
// seg's offsets, o; with several, o is nil.
func offsetsNode[T int32 | int64](c *encoding, k offsetKernels[T], segs []seg, n int, o []T) int {
	if o != nil {
		writeOffsets(&c.w, o, k.rebase, k.lengths)
		s := &segs[0]
		s.lo, s.hi = int(o[0]), int(o[s.n])
		return s.hi - s.lo
	}
	size := int(unsafe.Sizeof(T(0)))
	dst := view[T](c.w.reserve(size * (n + 1)))
	if dst != nil {
		dst[0] = 0
	}
	var total T
	at := 0
	for si := range segs {
		s := &segs[si]
		o := offsetsOf[T](s)
		if dst != nil {
			if c.w.xf&flagLengths != 0 {
				k.lengths(dst[at+1:], o)
			} else {
				k.rebase(dst[at:], o, o[0]-total)
			}
		}
		s.lo, s.hi = int(o[0]), int(o[s.n])
		span := o[s.n] - o[0]
		if size == 4 && int64(total)+int64(span) > math.MaxInt32 {
			unsupportedf("the batches hold more than %d values of 32-bit offsets (%s)", math.MaxInt32, s.d.DataType())
		}
		total += span
		at += s.n
	}
	return int(total)
}

// oneOffsets returns the offsets of the only seg of segs, or nil when
// there are several: what offsetsNode takes.
func oneOffsets[T int32 | int64](segs []seg) []T {
	if len(segs) != 1 {
		return nil
	}
	return offsetsOf[T](&segs[0])
}

// binaryNode writes the offsets and the data bytes of segs of a binary or
// string array.
func binaryNode[T int32 | int64](c *encoding, k offsetKernels[T], p *plan, segs []seg, n int) {
	c.w.next = intHint(p, int(unsafe.Sizeof(T(0))))
	total := offsetsNode(c, k, segs, n, oneOffsets[T](segs))
	c.w.next = p.hint
	dst := c.w.reserve(total)
	at := 0
	for si := range segs {
		s := &segs[si]
		if s.hi > len(s.b2) {
			invalidf("%s: offsets reach byte %d of a data buffer of %d", s.d.DataType(), s.hi, len(s.b2))
		}
		if dst != nil {
			at += copy(dst[at:], s.b2[s.lo:s.hi])
		}
	}
}

// listNode writes the offsets of segs of a list or map array and then its
// child, cut to the ranges the offsets reference.
func listNode[T int32 | int64](c *encoding, k offsetKernels[T], p *plan, segs []seg, n int) {
	offsetsNode(c, k, segs, n, oneOffsets[T](segs))
	mark := len(c.segs)
	for si := range segs {
		s := &segs[si]
		ch := s.d.Children()[0]
		if s.hi > ch.Len() {
			invalidf("%s: offsets reach element %d of a child of %d", s.d.DataType(), s.hi, ch.Len())
		}
		c.push(ch, ch.Offset()+s.lo, s.hi-s.lo)
	}
	c.child(p.children[0], mark)
}

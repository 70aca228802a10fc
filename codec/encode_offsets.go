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
	if s.n == 0 {
		// No rows: nothing is read from the buffer (see checkOffsets).
		return view[T](unsafeBytes(zeroWord[:]))[:1]
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
	rebase  func(dst, src []T, base T) bool // and report they never decrease
	lengths func(dst, offsets []T)
}

var (
	offsets32 = offsetKernels[int32]{arrowpack.RebaseNondecreasing32, arrowpack.OffsetsToLengths32}
	offsets64 = offsetKernels[int64]{arrowpack.RebaseNondecreasing64, arrowpack.OffsetsToLengths64}
)

// checkChunk is how many offsets' bytes the writer checks at a time before
// it turns them into lengths (flagLengths), so that the second pass reads
// them from the L1 cache. Elsewhere it copies and checks in one pass with
// the fused kernels (CopyASCII, RebaseNondecreasing, CopyMax).
const checkChunk = 8 << 10

// lateFault is what the writer panics with when it finds a batch breaks
// an invariant checker leaves to it (offsets that decrease between the
// first and the last, strings that are not UTF-8, dictionary indices out
// of range). AppendBatches recovers it and names the fault with a deep
// check (Encoder.explain). Nothing is sized from what it checks.
type lateFault struct{}

func late() { panic(lateFault{}) }

// offsetsNode writes the offsets of segs continued one after the other,
// starting at 0 (with flagLengths: a 0, then the lengths), checking as it
// writes them that they never decrease (see putOffsets); it sets
// each seg's lo and hi to the range of data bytes or child elements its
// offsets delimit, and returns the sum of their lengths.
func offsetsNode[T int32 | int64](c *encoding, k offsetKernels[T], segs []seg, n int) int {
	size := int(unsafe.Sizeof(T(0)))
	dst := view[T](c.w.reserve(size * (n + 1)))
	if dst != nil {
		dst[0] = 0
	}
	lengths := c.w.xf&flagLengths != 0
	if len(segs) == 1 && dst != nil && !lengths {
		// One seg, rebased to 0 (the commonest case, made short).
		s := &segs[0]
		o := offsetsOf[T](s)
		s.lo, s.hi = int(o[0]), int(o[s.n])
		if !k.rebase(dst, o, o[0]) {
			late()
		}
		return s.hi - s.lo
	}
	var total T
	at := 0
	for si := range segs {
		s := &segs[si]
		o := offsetsOf[T](s)
		s.lo, s.hi = int(o[0]), int(o[s.n])
		span := o[s.n] - o[0]
		if size == 4 && int64(total)+int64(span) > math.MaxInt32 {
			unsupportedf("the batches hold more than %d values of 32-bit offsets (%s)", math.MaxInt32, s.d.DataType())
		}
		if dst == nil {
			if !offsetsValid(o, int64(o[s.n])) {
				late()
			}
		} else {
			putOffsets(k, dst[at:at+s.n+1], o, o[0]-total, lengths)
		}
		total += span
		at += s.n
	}
	return int(total)
}

// putOffsets writes offsets o into dst rebased by base (lengths set: the
// lengths of the values into dst[1:]), checking that the offsets never
// decrease: in the same pass when rebasing, or a chunk at a time before
// writing it when computing lengths.
func putOffsets[T int32 | int64](k offsetKernels[T], dst, o []T, base T, lengths bool) {
	if !lengths {
		if !k.rebase(dst, o, base) {
			late()
		}
		return
	}
	step := checkChunk / int(unsafe.Sizeof(T(0)))
	last := len(o) - 1
	limit := int64(o[last])
	for i := 0; i < last; i += step {
		j := min(i+step, last)
		ch := o[i : j+1]
		if !offsetsValid(ch, limit) {
			late()
		}
		k.lengths(dst[i+1:], ch)
	}
}

// binaryNode writes the offsets and the data bytes of segs of a binary or
// string array; of strings (p.utf8 set) it checks the bytes are UTF-8:
// ASCII as it copies them (CopyASCII), and UTF-8 only when they are not.
func binaryNode[T int32 | int64](c *encoding, k offsetKernels[T], p *plan, segs []seg, n int) {
	utf := p.utf8
	c.w.next = intHint(p, int(unsafe.Sizeof(T(0))))
	total := offsetsNode(c, k, segs, n)
	c.w.next = p.hint
	dst := c.w.reserve(total)
	at := 0
	for si := range segs {
		s := &segs[si]
		if s.hi > len(s.b2) {
			invalidf("%s: offsets reach byte %d of a data buffer of %d", s.d.DataType(), s.hi, len(s.b2))
		}
		src := s.b2[s.lo:s.hi]
		ascii := true
		switch {
		case dst == nil:
			ascii = !utf || arrowpack.IsASCII(src)
		case !utf:
			copy(dst[at:], src)
		default:
			ascii = arrowpack.CopyASCII(dst[at:], src)
		}
		at += len(src)
		if !ascii && firstBadUTF8(s.b2, offsetsOf[T](s)) >= 0 {
			late()
		}
	}
}

// listNode writes the offsets of segs of a list or map array and then its
// child, cut to the ranges the offsets reference.
func listNode[T int32 | int64](c *encoding, k offsetKernels[T], p *plan, segs []seg, n int) {
	offsetsNode(c, k, segs, n)
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

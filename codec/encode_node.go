package codec

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
)

// seg is rows [off, off+n) of the array d, off in d's own buffer
// coordinates (d.Offset() included). A node of a block is written from a
// list of segs, one per batch being coalesced, laid end to end: the block
// holds their concatenation, just as encoding array.Concatenate's result
// would.
type seg struct {
	// What the encoder reads of d, read once when the seg is made: its
	// buffers, the bytes of the first three, its children, offset, length
	// and null count.
	arrayHead
	d      arrow.ArrayData
	off, n int
	// Of the seg's rows: the validity bitmap (nil when d has no nulls),
	// d's null count, and whether the seg is all of d.
	bm    []byte
	nulls int
	whole bool
	// countNulls: the check left the count of nulls to the writer, which
	// counts them as it copies the bitmap (a column's seg, always whole).
	countNulls bool
	// Of arrays with offsets: the range of data bytes or child elements
	// the seg's offsets delimit, set by offsetsNode.
	lo, hi int
}

// encoding is the state of one AppendBatches call: the writer, the segs of
// every column and, above them, a stack of the child segs of the node being
// written. It is pooled by the Encoder, so coalescing allocates nothing in
// the steady state.
type encoding struct {
	w     writer
	segs  []seg         // column i's segs are segs[i*k:(i+1)*k]; child segs above them
	cols  []int         // when set, column i's segs are segs[cols[i]:cols[i+1]] instead
	hw    int           // the most segs ever held: reset clears no further
	spans [][2]int      // dense unions: a stack of the per-batch, per-child ranges
	dicts []arrow.Array // dictionaries unified for the block, released by reset
	est   int           // a low guess of the block's size: see seg.estimate
	gbuf  []byte        // transposing the values of several segs: their concatenation
	// The dictionaries checked whole for the block (gather's checker).
	checked dictsChecked
}

// reset forgets everything c refers to, so that a pooled encoding keeps no
// arrays alive.
func (c *encoding) reset() {
	clear(c.segs[:c.hw])
	c.segs, c.hw = c.segs[:0], 0
	c.cols = nil
	c.spans, c.est = c.spans[:0], 0
	for _, d := range c.dicts {
		d.Release()
	}
	clear(c.dicts)
	c.dicts = c.dicts[:0]
	c.checked.reset()
	c.w = writer{}
}

// encodeError carries an error out of the encoding functions to
// AppendBatches, which recovers it. The checks that raise it are on
// lengths the encoder must look at anyway, so the error path costs the
// well-formed batches nothing.
type encodeError struct{ err error }

// invalidf reports a batch that breaks Arrow's invariants.
func invalidf(format string, args ...any) {
	panic(encodeError{fmt.Errorf("%w: "+format, append([]any{ErrInvalidBatch}, args...)...)})
}

// unsupportedf reports batches that are valid but that one block cannot
// hold together (more data than 32-bit offsets reach, say).
func unsupportedf(format string, args ...any) {
	panic(encodeError{fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)})
}

// push adds a seg of rows [off, off+n) of d to the stack.
func (c *encoding) push(d arrow.ArrayData, off, n int) {
	c.pushed().set(d, off, n)
}

// pushed adds a seg to the stack and returns it, for the caller to set
// (seg.set, or pushDict): it may hold what a seg popped before held.
func (c *encoding) pushed() *seg {
	n := len(c.segs)
	if n < cap(c.segs) {
		c.segs = c.segs[:n+1]
	} else {
		c.segs = append(c.segs, seg{})
	}
	c.hw = max(c.hw, n+1)
	return &c.segs[n]
}

// set makes s the seg of rows [off, off+n) of d, or (n < 0) of all of d.
func (s *seg) set(d arrow.ArrayData, off, n int) {
	s.d = d
	s.read(d, nil)
	s.setRows(off, n)
}

// setRows makes s the seg of rows [off, off+n), or (n < 0) all, of the
// array whose head s has read.
func (s *seg) setRows(off, n int) {
	if n < 0 {
		off, n = s.base, s.length
	}
	s.off, s.n = off, n
	s.bm, s.nulls = nil, 0
	if s.vb != nil {
		s.nulls = s.nullN
		if s.nulls != 0 {
			s.bm = s.vb
		}
	}
	s.whole = off == s.base && n == s.length
	s.countNulls = false
	s.lo, s.hi = 0, 0
}

// estimate guesses, low, the bytes of the node of s's rows, following p, to
// make room for them: its values of fixed width, offsets, views, validity
// and the data bytes of binary and string rows. Children are not counted,
// nor anything a slice's buffers say about their size (they may be those
// of a far larger parent); a writer grows past a guess too small.
func (s *seg) estimate(p *plan) int {
	b, data := 0, 0
	switch p.kind {
	case kFixed, kDict:
		b = p.width
	case kBinary:
		b, data = 4, dataSpan[int32](s)
	case kLargeBinary:
		b, data = 8, dataSpan[int64](s)
	case kList, kDenseUnion:
		b = 4
	case kLargeList:
		b = 8
	case kView:
		b = 16
	}
	if s.bm != nil {
		data += s.n / 8
	}
	return s.n*b + data
}

// dataSpan returns the bytes of data s's offsets say its rows take, or 0
// if they cannot be read as offsets of its data (the writer checks them).
func dataSpan[T int32 | int64](s *seg) int {
	o := view[T](s.b1)
	if s.n <= 0 || s.off+s.n >= len(o) {
		return 0
	}
	lo, hi := o[s.off], o[s.off+s.n]
	if lo < 0 || hi < lo || int64(hi) > int64(len(s.b2)) {
		return 0
	}
	return int(hi - lo)
}

// child writes the node of plan p from the child segs pushed since mark,
// and pops them.
func (c *encoding) child(p *plan, mark int) {
	c.node(p, c.segs[mark:])
	c.segs = c.segs[:mark]
}

// node writes the concatenation of segs following p. Only the rows of the
// segs are written, at every level: bitmaps start at bit 0, offsets at 0,
// and child arrays are cut to the range the rows reference. Every length
// and offset the rows need is checked against the buffers first.
func (c *encoding) node(p *plan, segs []seg) {
	n := 0
	for si := range segs {
		s := &segs[si]
		n += s.n
	}
	c.w.word(uint64(n))
	switch p.kind {
	case kNull:
	case kBool:
		c.validity(segs, n)
		c.bits(segs, n)
	case kFixed:
		c.validity(segs, n)
		c.w.next = p.hint
		c.fixed(segs, n, p.width, p.transpose)
	case kBinary:
		c.validity(segs, n)
		binaryNode(c, offsets32, p, segs, n)
	case kLargeBinary:
		c.validity(segs, n)
		binaryNode(c, offsets64, p, segs, n)
	case kView:
		c.validity(segs, n)
		c.views(segs, n)
	case kList:
		c.validity(segs, n)
		c.w.next = intHint(p, 4)
		listNode(c, offsets32, p, segs, n)
	case kLargeList:
		c.validity(segs, n)
		c.w.next = intHint(p, 8)
		listNode(c, offsets64, p, segs, n)
	case kFixedList:
		c.validity(segs, n)
		mark := len(c.segs)
		for si := range segs {
			s := &segs[si]
			ch := s.d.Children()[0]
			if uint64(s.off+s.n)*uint64(p.width) > uint64(ch.Len()) {
				invalidf("fixed-size list of %d with rows up to %d has a child of %d values", p.width, s.off+s.n, ch.Len())
			}
			c.push(ch, ch.Offset()+s.off*p.width, s.n*p.width)
		}
		c.child(p.children[0], mark)
	case kListView:
		c.validity(segs, n)
		listViewNode[int32](c, p, segs, n)
	case kLargeListView:
		c.validity(segs, n)
		listViewNode[int64](c, p, segs, n)
	case kStruct:
		c.validity(segs, n)
		c.sameRowChildren(p, segs)
	case kSparseUnion:
		c.fixed(segs, n, 1, false)
		c.sameRowChildren(p, segs)
	case kDenseUnion:
		c.denseUnion(p, segs, n)
	case kDict:
		c.validity(segs, n)
		c.dict(p, segs, n)
	case kRunEnd:
		c.runEnds(p, segs, n)
	default:
		panic("arrowpack: encodeNode: unknown kind " + p.kind.String())
	}
}

// sameRowChildren writes the children of a struct or sparse union: the same
// rows of each child as of the parent.
func (c *encoding) sameRowChildren(p *plan, segs []seg) {
	for i, cp := range p.children {
		mark := len(c.segs)
		for si := range segs {
			s := &segs[si]
			ch := s.d.Children()[i]
			if s.off+s.n > ch.Len() {
				invalidf("%s with rows up to %d has a child %d of %d rows", p.dt, s.off+s.n, i, ch.Len())
			}
			c.push(ch, ch.Offset()+s.off, s.n)
		}
		c.child(cp, mark)
	}
}

func bytesOf(b *memory.Buffer) []byte {
	if b == nil {
		return nil
	}
	return b.Bytes()
}

// buffer returns the bytes of buffer i of s's array that hold its rows as
// values of width bytes (width 0: bits), after checking the buffer holds
// them.
func buffer(s *seg, i, width int) []byte {
	b := s.b1
	if i == 2 {
		b = s.b2
	}
	end := uint64(s.off) + uint64(s.n)
	if width == 0 {
		if s.n > 0 && uint64(len(b))*8 < end {
			invalidf("%s: buffer %d of %d bytes is too short for bits up to %d", s.d.DataType(), i, len(b), end)
		}
		return b
	}
	if uint64(len(b)) < end*uint64(width) {
		invalidf("%s: buffer %d of %d bytes is too short for %d values of %d bytes", s.d.DataType(), i, len(b), end, width)
	}
	return b[s.off*width : int(end)*width]
}

// hasNulls reports whether any row of s is null, after checking its bitmap
// covers the rows.
func hasNulls(s *seg) bool {
	bm := s.bm
	if s.n == 0 || bm == nil {
		return false
	}
	if uint64(len(bm))*8 < uint64(s.off)+uint64(s.n) {
		invalidf("%s: validity bitmap of %d bytes is too short for rows up to %d", s.d.DataType(), len(bm), s.off+s.n)
	}
	// NullN is the array's null count, or negative when not yet known. A
	// whole array with a known count of nulls needs its bitmap; otherwise
	// count: a part of an array (a list's child range, say) may have no
	// nulls and then needs no bitmap either.
	if s.nulls > 0 && s.whole {
		return true
	}
	return arrowpack.CountOnes(bm, s.off, s.n) != s.n
}

// validity writes the validity bitmap of the rows of segs, or an empty
// buffer when every one of them is valid.
func (c *encoding) validity(segs []seg, n int) {
	nulls := false
	for si := range segs {
		s := &segs[si]
		if hasNulls(s) {
			nulls = true
			break
		}
	}
	if !nulls {
		c.w.word(0)
		return
	}
	dst := c.w.reserve((n + 7) / 8)
	at := 0
	for si := range segs {
		s := &segs[si]
		if bm := s.bm; bm != nil && s.n > 0 {
			if uint64(len(bm))*8 < uint64(s.off)+uint64(s.n) {
				invalidf("%s: validity bitmap of %d bytes is too short for rows up to %d", s.d.DataType(), len(bm), s.off+s.n)
			}
			ones := copyValidity(dst, at, s)
			if s.countNulls && s.n-ones != s.nulls {
				late()
			}
		} else if dst != nil {
			arrowpack.SetBitsAt(dst, at, s.n)
		}
		at += s.n
	}
}

// copyValidity copies the validity bits of s's rows to bit at of dst (dst
// nil: copies nothing) and, when s.countNulls is set, returns how many are
// set: in the same pass when both sides start on a byte.
func copyValidity(dst []byte, at int, s *seg) int {
	bm := s.bm
	switch {
	case dst == nil:
		if s.countNulls {
			return arrowpack.CountOnes(bm, s.off, s.n)
		}
	case s.countNulls && at&7 == 0 && s.off&7 == 0:
		whole := s.n >> 3
		ones := arrowpack.CopyCountOnes(dst[at>>3:], bm[s.off>>3:s.off>>3+whole])
		if r := s.n & 7; r != 0 {
			arrowpack.CopyBitsAt(dst, at+whole*8, bm, s.off+whole*8, r)
			ones += bits.OnesCount8(bm[s.off>>3+whole] & (1<<r - 1))
		}
		return ones
	default:
		arrowpack.CopyBitsAt(dst, at, bm, s.off, s.n)
		if s.countNulls {
			return arrowpack.CountOnes(bm, s.off, s.n)
		}
	}
	return 0
}

// isValid reports whether row i (in buffer coordinates) of d is valid.
func isValid(bm []byte, i int) bool {
	return bm == nil || bm[i>>3]>>(i&7)&1 == 1
}

// bits writes the bit-packed values of segs (booleans) as one bitmap.
func (c *encoding) bits(segs []seg, n int) {
	dst := c.w.reserve((n + 7) / 8)
	at := 0
	for si := range segs {
		s := &segs[si]
		b := buffer(s, 1, 0)
		if dst != nil {
			arrowpack.CopyBitsAt(dst, at, b, s.off, s.n)
		}
		at += s.n
	}
}

// fixed writes buffer 1 of segs, values of width bytes, one after the
// other, byte-transposed when transpose is set and the writer applies
// flagTranspose.
func (c *encoding) fixed(segs []seg, n, width int, transpose bool) {
	if len(segs) == 1 {
		c.w.values(buffer(&segs[0], 1, width), width, transpose)
		return
	}
	dst := c.w.reserve(n * width)
	if transpose && c.w.xf&flagTranspose != 0 && dst != nil {
		// The planes run across all segs: transpose their concatenation.
		if cap(c.gbuf) < len(dst) {
			c.gbuf = make([]byte, len(dst))
		}
		all := c.gbuf[:len(dst)]
		at := 0
		for si := range segs {
			s := &segs[si]
			at += copy(all[at:], buffer(s, 1, width))
		}
		arrowpack.TransposeBytes(dst, all, width)
		c.w.markPlanes(len(dst), width)
		return
	}
	at := 0
	for si := range segs {
		s := &segs[si]
		b := buffer(s, 1, width)
		if dst != nil {
			copy(dst[at:], b)
		}
		at += len(b)
	}
}

// zeroWord stands in for the offsets buffer of an empty array that has
// none: one offset 0.
var zeroWord [1]uint64

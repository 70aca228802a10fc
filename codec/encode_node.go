package codec

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

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
	d      arrow.ArrayData
	off, n int
	// What the encoder reads of d, looked up once when the seg is made:
	// its validity bitmap (nil when it has no nulls), buffers 1 and 2, its
	// null count and whether the seg is all of d.
	bm, b1, b2 []byte
	nulls      int
	whole      bool
}

// encoding is the state of one AppendBatches call: the writer, the segs of
// every column and, above them, a stack of the child segs of the node being
// written. It is pooled by the Encoder, so coalescing allocates nothing in
// the steady state.
type encoding struct {
	w    writer
	segs []seg // column i's segs are segs[i*k:(i+1)*k]; child segs above them
	hw   int   // the most segs ever held: reset clears no further
	// The sizing pass logs the child segs of every node in the order it
	// visits them (log, and logn their counts per node); the writing pass
	// replays them from lp, li instead of looking at the children again,
	// so that it touches little but the bytes it copies.
	log    []seg
	logn   []int
	lp, li int
	spans  [][2]int  // dense unions: a stack of the per-batch, per-child ranges
	dicts  []dictCat // dictionaries resolved in the sizing pass, in node order
	di     int       // the next of dicts the writing pass takes
	gbuf   []byte    // transposing the values of several segs: their concatenation
}

// reset forgets everything c refers to, so that a pooled encoding keeps no
// arrays alive.
func (c *encoding) reset() {
	clear(c.segs[:c.hw])
	c.segs, c.hw = c.segs[:0], 0
	clear(c.log)
	c.log, c.logn, c.lp, c.li = c.log[:0], c.logn[:0], 0, 0
	c.spans = c.spans[:0]
	for _, d := range c.dicts {
		if d.dict != nil {
			d.dict.Release()
		}
	}
	clear(c.dicts)
	c.dicts, c.di = c.dicts[:0], 0
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
	s := seg{d: d, off: off, n: n}
	bufs := d.Buffers()
	if len(bufs) > 0 && bufs[0] != nil {
		if s.nulls = d.NullN(); s.nulls != 0 {
			s.bm = bufs[0].Bytes()
		}
	}
	if len(bufs) > 1 {
		s.b1 = bytesOf(bufs[1])
	}
	if len(bufs) > 2 {
		s.b2 = bytesOf(bufs[2])
	}
	s.whole = off == d.Offset() && n == d.Len()
	c.segs = append(c.segs, s)
	c.hw = max(c.hw, len(c.segs))
}

// child writes the node of plan p from its child segs: in the sizing pass
// the segs pushed since mark, which it logs and pops; in the writing pass
// the next ones of the log (the caller pushes none then).
func (c *encoding) child(p *plan, mark int) {
	if c.w.counting() {
		c.logn = append(c.logn, len(c.segs)-mark)
		c.log = append(c.log, c.segs[mark:]...)
		c.node(p, c.segs[mark:])
		c.segs = c.segs[:mark]
		return
	}
	n := c.logn[c.li]
	segs := c.log[c.lp : c.lp+n]
	c.li, c.lp = c.li+1, c.lp+n
	c.node(p, segs)
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
		c.fixed(segs, n, p.width, p.transpose)
	case kBinary:
		c.validity(segs, n)
		binaryNode(c, offsets32, segs, n)
	case kLargeBinary:
		c.validity(segs, n)
		binaryNode(c, offsets64, segs, n)
	case kView:
		c.validity(segs, n)
		c.views(segs, n)
	case kList:
		c.validity(segs, n)
		listNode(c, offsets32, p, segs, n)
	case kLargeList:
		c.validity(segs, n)
		listNode(c, offsets64, p, segs, n)
	case kFixedList:
		c.validity(segs, n)
		mark := len(c.segs)
		for si := range segs {
			s := &segs[si]
			if !c.w.counting() {
				break
			}
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
			if !c.w.counting() {
				break
			}
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
	if dst == nil {
		return
	}
	at := 0
	for si := range segs {
		s := &segs[si]
		if bm := s.bm; bm != nil && s.n > 0 {
			if uint64(len(bm))*8 < uint64(s.off)+uint64(s.n) {
				invalidf("%s: validity bitmap of %d bytes is too short for rows up to %d", s.d.DataType(), len(bm), s.off+s.n)
			}
			arrowpack.CopyBitsAt(dst, at, bm, s.off, s.n)
		} else {
			arrowpack.SetBitsAt(dst, at, s.n)
		}
		at += s.n
	}
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

// offsetsOf returns the n+1 offsets of s's rows (buffer 1), after checking
// the buffer holds them and that they delimit a range of at least 0
// elements starting at 0 or above.
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
	if o[0] < 0 || o[s.n] < o[0] {
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
// starting at 0 (with flagLengths: a 0, then the lengths). With one seg it
// takes that seg's offsets, o; with several, o is nil.
func offsetsNode[T int32 | int64](c *encoding, k offsetKernels[T], segs []seg, n int, o []T) {
	if o != nil {
		writeOffsets(&c.w, o, k.rebase, k.lengths)
		return
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
		span := o[s.n] - o[0]
		if size == 4 && int64(total)+int64(span) > math.MaxInt32 {
			unsupportedf("the batches hold more than %d values of 32-bit offsets (%s)", math.MaxInt32, s.d.DataType())
		}
		total += span
		at += s.n
	}
}

// binaryNode writes the offsets and the data bytes of segs of a binary or
// string array.
func binaryNode[T int32 | int64](c *encoding, k offsetKernels[T], segs []seg, n int) {
	if len(segs) == 1 {
		s := &segs[0]
		o := offsetsOf[T](s)
		data := s.b2
		if int64(o[s.n]) > int64(len(data)) {
			invalidf("%s: offsets reach byte %d of a data buffer of %d", s.d.DataType(), o[s.n], len(data))
		}
		offsetsNode(c, k, segs, n, o)
		c.w.bytes(data[o[0]:o[s.n]])
		return
	}
	offsetsNode(c, k, segs, n, nil)
	total := 0
	for si := range segs {
		s := &segs[si]
		o := offsetsOf[T](s)
		if data := s.b2; int64(o[s.n]) > int64(len(data)) {
			invalidf("%s: offsets reach byte %d of a data buffer of %d", s.d.DataType(), o[s.n], len(data))
		}
		total += int(o[s.n] - o[0])
	}
	dst := c.w.reserve(total)
	if dst == nil {
		return
	}
	at := 0
	for si := range segs {
		s := &segs[si]
		o := offsetsOf[T](s)
		at += copy(dst[at:], s.b2[o[0]:o[s.n]])
	}
}

// listNode writes the offsets of segs of a list or map array and then its
// child, cut to the ranges the offsets reference.
func listNode[T int32 | int64](c *encoding, k offsetKernels[T], p *plan, segs []seg, n int) {
	var one []T
	if len(segs) == 1 {
		one = offsetsOf[T](&segs[0])
	}
	offsetsNode(c, k, segs, n, one)
	mark := len(c.segs)
	for si := range segs {
		s := &segs[si]
		if !c.w.counting() {
			break
		}
		o := one
		if o == nil {
			o = offsetsOf[T](s)
		}
		ch := s.d.Children()[0]
		if int64(o[s.n]) > int64(ch.Len()) {
			invalidf("%s: offsets reach element %d of a child of %d", s.d.DataType(), o[s.n], ch.Len())
		}
		c.push(ch, ch.Offset()+int(o[0]), int(o[s.n]-o[0]))
	}
	c.child(p.children[0], mark)
}

// views writes the views of the rows of segs and one data buffer holding
// just the out-of-line bytes they reference, in row order. Views of null
// rows are written as empty inline views.
func (c *encoding) views(segs []seg, n int) {
	total := 0
	for si := range segs {
		s := &segs[si]
		views := buffer(s, 1, arrow.ViewHeaderSizeBytes)
		bm := s.bm
		for i := range s.n {
			if l := viewLen(views, i); l > arrow.ViewPrefixLen+8 && isValid(bm, s.off+i) {
				total += l
			} else if l < 0 {
				invalidf("%s: view %d has length %d", s.d.DataType(), s.off+i, l)
			}
		}
		if total > math.MaxInt32 {
			unsupportedf("the batches' views reference more than %d bytes", math.MaxInt32)
		}
	}
	dstViews := c.w.reserve(n * arrow.ViewHeaderSizeBytes)
	nbuf := 0
	if total > 0 {
		nbuf = 1
	}
	c.w.word(uint64(nbuf))
	var dstData []byte
	if nbuf == 1 {
		dstData = c.w.reserve(total)
	}
	if c.w.counting() {
		return
	}
	pos, at := 0, 0
	for si := range segs {
		s := &segs[si]
		views := buffer(s, 1, arrow.ViewHeaderSizeBytes)
		data := s.d.Buffers()[2:]
		bm := s.bm
		dv := dstViews[at*16 : (at+s.n)*16]
		copy(dv, views)
		for i := range s.n {
			v := dv[i*16 : i*16+16]
			if !isValid(bm, s.off+i) {
				clear(v)
				continue
			}
			l := viewLen(views, i)
			if l <= arrow.ViewPrefixLen+8 {
				continue
			}
			idx := binary.LittleEndian.Uint32(v[8:])
			o := binary.LittleEndian.Uint32(v[12:])
			if uint64(idx) >= uint64(len(data)) || uint64(o)+uint64(l) > uint64(data[idx].Len()) {
				invalidf("%s: view %d references bytes %d to %d of data buffer %d of %d", s.d.DataType(), s.off+i, o, uint64(o)+uint64(l), idx, len(data))
			}
			copy(dstData[pos:pos+l], data[idx].Bytes()[o:int(o)+l])
			binary.LittleEndian.PutUint32(v[8:], 0)
			binary.LittleEndian.PutUint32(v[12:], uint32(pos))
			pos += l
		}
		at += s.n
	}
}

func viewLen(views []byte, i int) int {
	return int(int32(binary.LittleEndian.Uint32(views[i*16:])))
}

// listViewNode writes the offsets and sizes of segs of a list view array and
// the child ranges they reference: each seg's child is cut to the range
// [lo, hi) its list views reference, offsets are rebased to it and
// continued from the previous seg's, and empty list views get offset 0.
// A single seg is written as it is (null list views keep their sizes and
// count in the range, as Append always wrote them). Several segs are
// written as array.Concatenate's result would be: only valid, non-empty
// list views reference the child, and null ones are written with offset 0
// and size 0.
func listViewNode[T int32 | int64](c *encoding, p *plan, segs []seg, n int) {
	size := int(unsafe.Sizeof(T(0)))
	dst := view[T](c.w.reserve(n * size))
	mark := len(c.segs)
	var acc T
	at := 0
	concat := len(segs) > 1
	for si := range segs {
		s := &segs[si]
		offs := view[T](buffer(s, 1, size))
		sizes := view[T](buffer(s, 2, size))
		bm := s.bm
		if !concat {
			bm = nil // null rows count as the others
		}
		var lo, hi T
		first := true
		for i, sz := range sizes {
			if sz > 0 && isValid(bm, s.off+i) {
				if first {
					lo, hi, first = offs[i], offs[i]+sz, false
				}
				lo, hi = min(lo, offs[i]), max(hi, offs[i]+sz)
			}
		}
		if c.w.counting() {
			ch := s.d.Children()[0]
			if !first && (lo < 0 || int64(hi) > int64(ch.Len())) {
				invalidf("%s: list views reference child elements %d to %d of %d", s.d.DataType(), lo, hi, ch.Len())
			}
			c.push(ch, ch.Offset()+int(lo), int(hi-lo))
		}
		if dst != nil {
			do := dst[at : at+s.n]
			for i, sz := range sizes {
				if sz > 0 && isValid(bm, s.off+i) {
					do[i] = offs[i] - lo + acc
				} else {
					do[i] = 0
				}
			}
		}
		if size == 4 && int64(acc)+int64(hi-lo) > math.MaxInt32 {
			unsupportedf("the batches' list views reference more than %d child elements", math.MaxInt32)
		}
		acc += hi - lo
		at += s.n
	}
	sdst := view[T](c.w.reserve(n * size))
	if sdst != nil {
		at = 0
		for si := range segs {
			s := &segs[si]
			sizes := view[T](buffer(s, 2, size))
			bm := s.bm
			do := sdst[at : at+s.n]
			if bm == nil || !concat {
				copy(do, sizes)
			} else {
				for i, sz := range sizes {
					if isValid(bm, s.off+i) {
						do[i] = sz
					} else {
						do[i] = 0
					}
				}
			}
			at += s.n
		}
	}
	c.child(p.children[0], mark)
}

// denseUnion writes the type ids and offsets of segs of a dense union, and
// for each child the ranges of it those rows reference, one per seg;
// offsets are rebased to the start of their seg's range and continued from
// the previous seg's.
func (c *encoding) denseUnion(p *plan, segs []seg, n int) {
	c.fixed(segs, n, 1, false)
	dst := view[int32](c.w.reserve(4 * n))
	nc := len(p.children)
	base := len(c.spans)
	for range len(segs) * nc {
		c.spans = append(c.spans, [2]int{math.MaxInt32, 0})
	}
	var acc [128]int
	at := 0
	for k := range segs {
		s := &segs[k]
		ids := buffer(s, 1, 1)
		offs := view[int32](buffer(s, 2, 4))
		span := c.spans[base+k*nc : base+(k+1)*nc]
		for i, id := range ids {
			ci := int8(-1)
			if id < 128 {
				ci = p.unionChild[id]
			}
			if ci < 0 || offs[i] < 0 {
				invalidf("%s: row %d has type id %d and offset %d", s.d.DataType(), s.off+i, int8(id), offs[i])
			}
			r := &span[ci]
			r[0], r[1] = min(r[0], int(offs[i])), max(r[1], int(offs[i])+1)
		}
		for ci := range span {
			if !c.w.counting() {
				break
			}
			if ch := s.d.Children()[ci]; span[ci][1] > ch.Len() {
				invalidf("%s: rows reference element %d of child %d of %d", s.d.DataType(), span[ci][1]-1, ci, ch.Len())
			}
		}
		if dst != nil {
			do := dst[at : at+s.n]
			for i, id := range ids {
				ci := p.unionChild[id]
				do[i] = int32(int(offs[i]) - span[ci][0] + acc[ci])
			}
		}
		for ci, r := range span {
			if r[1] > 0 {
				acc[ci] += r[1] - r[0]
			}
		}
		at += s.n
	}
	for ci, cp := range p.children {
		mark := len(c.segs)
		for k := range segs {
			s := &segs[k]
			if !c.w.counting() {
				break
			}
			ch := s.d.Children()[ci]
			if r := c.spans[base+k*nc+ci]; r[1] > 0 {
				c.push(ch, ch.Offset()+r[0], r[1]-r[0])
			} else {
				c.push(ch, ch.Offset(), 0)
			}
		}
		c.child(cp, mark)
	}
	c.spans = c.spans[:base]
}

// runEnds writes the runs that cover the rows of segs: the run ends as a
// child node of their integer type, each seg's shifted to start where the
// previous seg's rows end and its last cut to its rows, then the values of
// those runs. Adjacent equal runs of two segs stay separate, as in
// array.Concatenate's result.
func (c *encoding) runEnds(p *plan, segs []seg, n int) {
	if maxEnd := int64(1)<<(8*p.width-1) - 1; int64(n) > maxEnd {
		unsupportedf("%d rows of %s do not fit its run ends", n, p.dt)
	}
	runs := 0
	for si := range segs {
		s := &segs[si]
		first, last := runRange(p, s)
		runs += last - first + 1
	}
	c.w.word(uint64(runs))
	c.w.word(0) // run ends have no nulls
	dst := c.w.reserve(runs * p.width)
	mark := len(c.segs)
	acc, at := 0, 0
	for si := range segs {
		s := &segs[si]
		re, vals := s.d.Children()[0], s.d.Children()[1]
		first, last := runRange(p, s)
		k := last - first + 1
		if dst != nil {
			ends := runEndReader{b: bytesOf(re.Buffers()[1]), off: re.Offset(), width: p.width}
			for i := range k {
				putUint(dst, at+i, p.width, uint64(min(ends.at(first+i)-s.off, s.n)+acc))
			}
		}
		if c.w.counting() {
			if first+k > vals.Len() {
				invalidf("%s: %d runs and %d values", s.d.DataType(), re.Len(), vals.Len())
			}
			c.push(vals, vals.Offset()+first, k)
		}
		acc += s.n
		at += k
	}
	c.child(p.children[1], mark)
}

// runRange returns the runs [first, last] of a run-end encoded seg that
// cover its rows, after checking its run ends buffer and that the runs
// reach its last row.
func runRange(p *plan, s *seg) (first, last int) {
	if s.n == 0 {
		return 0, -1
	}
	re := s.d.Children()[0]
	b := bytesOf(re.Buffers()[1])
	if uint64(len(b)) < (uint64(re.Offset())+uint64(re.Len()))*uint64(p.width) {
		invalidf("%s: run ends buffer of %d bytes for %d runs", s.d.DataType(), len(b), re.Len())
	}
	ends := runEndReader{b: b, off: re.Offset(), width: p.width}
	first = ends.search(re.Len(), s.off+1)
	last = ends.search(re.Len(), s.off+s.n)
	if last >= re.Len() {
		invalidf("%s: runs end before row %d", s.d.DataType(), s.off+s.n)
	}
	return first, last
}

// runEndReader reads the run ends of a run-end encoded array.
type runEndReader struct {
	b     []byte
	off   int
	width int
}

func (r runEndReader) at(i int) int {
	return int(runEndAt(r.b, r.width, i+r.off))
}

// search returns the first of the n runs whose end is at least v.
func (r runEndReader) search(n, v int) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.at(m) < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

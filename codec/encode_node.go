package codec

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
)

// encodeNode writes rows [off, off+n) of d, where off counts in d's own
// buffer coordinates (d.Offset() included), following p. Only the slice is
// written, at every level: bitmaps start at bit 0, offsets at 0, and child
// arrays are cut to the range the slice references.
func encodeNode(w *writer, p *plan, d arrow.ArrayData, off, n int) {
	w.word(uint64(n))
	bufs := d.Buffers()
	switch p.kind {
	case kNull:
	case kBool:
		encodeValidity(w, d, off, n)
		w.bits(bytesOf(bufs[1]), off, n)
	case kFixed:
		encodeValidity(w, d, off, n)
		w.values(bytesOf(bufs[1])[off*p.width:(off+n)*p.width], p.width, p.transpose)
	case kBinary:
		encodeValidity(w, d, off, n)
		offs := offsets32(bufs[1], off, n)
		w.offsets32(offs)
		w.bytes(bytesOf(bufs[2])[offs[0]:offs[n]])
	case kLargeBinary:
		encodeValidity(w, d, off, n)
		offs := offsets64(bufs[1], off, n)
		w.offsets64(offs)
		w.bytes(bytesOf(bufs[2])[offs[0]:offs[n]])
	case kView:
		encodeValidity(w, d, off, n)
		encodeViews(w, d, off, n)
	case kList:
		encodeValidity(w, d, off, n)
		offs := offsets32(bufs[1], off, n)
		w.offsets32(offs)
		c := d.Children()[0]
		encodeNode(w, p.children[0], c, c.Offset()+int(offs[0]), int(offs[n]-offs[0]))
	case kLargeList:
		encodeValidity(w, d, off, n)
		offs := offsets64(bufs[1], off, n)
		w.offsets64(offs)
		c := d.Children()[0]
		encodeNode(w, p.children[0], c, c.Offset()+int(offs[0]), int(offs[n]-offs[0]))
	case kFixedList:
		encodeValidity(w, d, off, n)
		c := d.Children()[0]
		encodeNode(w, p.children[0], c, c.Offset()+off*p.width, n*p.width)
	case kListView:
		encodeValidity(w, d, off, n)
		encodeListView[int32](w, p, d, off, n)
	case kLargeListView:
		encodeValidity(w, d, off, n)
		encodeListView[int64](w, p, d, off, n)
	case kStruct:
		encodeValidity(w, d, off, n)
		for i, c := range d.Children() {
			encodeNode(w, p.children[i], c, c.Offset()+off, n)
		}
	case kSparseUnion:
		w.bytes(bytesOf(bufs[1])[off : off+n])
		for i, c := range d.Children() {
			encodeNode(w, p.children[i], c, c.Offset()+off, n)
		}
	case kDenseUnion:
		encodeDenseUnion(w, p, d, off, n)
	case kDict:
		encodeValidity(w, d, off, n)
		w.values(bytesOf(bufs[1])[off*p.width:(off+n)*p.width], p.width, p.transpose)
		dict := d.Dictionary()
		encodeNode(w, p.children[0], dict, dict.Offset(), dict.Len())
	case kRunEnd:
		encodeRunEnds(w, p, d, off, n)
	default:
		panic("arrowpack: encodeNode: unknown kind " + p.kind.String())
	}
}

func bytesOf(b *memory.Buffer) []byte {
	if b == nil {
		return nil
	}
	return b.Bytes()
}

// zeroOffset stands in for the offsets buffer of an empty array that has
// none.
var (
	zeroOffset32 = []int32{0}
	zeroOffset64 = []int64{0}
)

func offsets32(b *memory.Buffer, off, n int) []int32 {
	if n == 0 && (b == nil || b.Len() == 0) {
		return zeroOffset32
	}
	return arrow.Int32Traits.CastFromBytes(b.Bytes())[off : off+n+1]
}

func offsets64(b *memory.Buffer, off, n int) []int64 {
	if n == 0 && (b == nil || b.Len() == 0) {
		return zeroOffset64
	}
	return arrow.Int64Traits.CastFromBytes(b.Bytes())[off : off+n+1]
}

// encodeValidity writes the validity bitmap of rows [off, off+n), or an
// empty buffer when every row in them is valid.
func encodeValidity(w *writer, d arrow.ArrayData, off, n int) {
	bufs := d.Buffers()
	if n == 0 || len(bufs) == 0 || bufs[0] == nil || d.NullN() == 0 {
		w.word(0)
		return
	}
	bm := bufs[0].Bytes()
	// NullN is the array's null count, or negative when not yet known. A
	// whole array with a known count of nulls needs its bitmap; otherwise
	// count: a part of an array (a list's child range, say) may have no
	// nulls and then needs no bitmap either.
	known := d.NullN() > 0 && off == d.Offset() && n == d.Len()
	if !known && arrowpack.CountOnes(bm, off, n) == n {
		w.word(0)
		return
	}
	w.bits(bm, off, n)
}

// isValid reports whether row i (in buffer coordinates) of d is valid.
func isValid(bm []byte, i int) bool {
	return bm == nil || bm[i>>3]>>(i&7)&1 == 1
}

func validityBytes(d arrow.ArrayData) []byte {
	if bufs := d.Buffers(); len(bufs) > 0 && bufs[0] != nil && d.NullN() != 0 {
		return bufs[0].Bytes()
	}
	return nil
}

// encodeViews writes the views of rows [off, off+n) and one data buffer
// holding just the out-of-line bytes they reference, in row order. Views of
// null rows are written as empty inline views.
func encodeViews(w *writer, d arrow.ArrayData, off, n int) {
	bufs := d.Buffers()
	views := bytesOf(bufs[1])[off*arrow.ViewHeaderSizeBytes : (off+n)*arrow.ViewHeaderSizeBytes]
	data := bufs[2:]
	bm := validityBytes(d)
	total := 0
	for i := range n {
		if l := viewLen(views, i); l > arrow.ViewPrefixLen+8 && isValid(bm, off+i) {
			total += l
		}
	}
	dstViews := w.reserve(len(views))
	nbuf := 0
	if total > 0 {
		nbuf = 1
	}
	w.word(uint64(nbuf))
	var dstData []byte
	if nbuf == 1 {
		dstData = w.reserve(total)
	}
	if w.counting() {
		return
	}
	copy(dstViews, views)
	pos := 0
	for i := range n {
		v := dstViews[i*16 : i*16+16]
		if !isValid(bm, off+i) {
			clear(v)
			continue
		}
		l := viewLen(views, i)
		if l <= arrow.ViewPrefixLen+8 {
			continue
		}
		idx := binary.LittleEndian.Uint32(v[8:])
		o := binary.LittleEndian.Uint32(v[12:])
		copy(dstData[pos:pos+l], data[idx].Bytes()[o:int(o)+l])
		binary.LittleEndian.PutUint32(v[8:], 0)
		binary.LittleEndian.PutUint32(v[12:], uint32(pos))
		pos += l
	}
}

func viewLen(views []byte, i int) int {
	return int(int32(binary.LittleEndian.Uint32(views[i*16:])))
}

// encodeListView writes offsets and sizes of rows [off, off+n) and the
// child range [lo, hi) they reference; offsets are rebased to lo, and those
// of empty lists are written as 0.
func encodeListView[T int32 | int64](w *writer, p *plan, d arrow.ArrayData, off, n int) {
	bufs := d.Buffers()
	offs := view[T](bytesOf(bufs[1]))[off : off+n]
	sizes := view[T](bytesOf(bufs[2]))[off : off+n]
	var lo, hi T
	first := true
	for i, s := range sizes {
		if s > 0 {
			if first {
				lo, hi, first = offs[i], offs[i]+s, false
			}
			lo, hi = min(lo, offs[i]), max(hi, offs[i]+s)
		}
	}
	if dst := w.reserve(len(sizes) * int(unsafe.Sizeof(lo))); dst != nil {
		do := view[T](dst)
		for i, s := range sizes {
			if s > 0 {
				do[i] = offs[i] - lo
			} else {
				do[i] = 0
			}
		}
	}
	w.bytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(sizes))), len(sizes)*int(unsafe.Sizeof(lo))))
	c := d.Children()[0]
	encodeNode(w, p.children[0], c, c.Offset()+int(lo), int(hi-lo))
}

// encodeDenseUnion writes the type ids and offsets of rows [off, off+n), and
// for each child only the range of it those rows reference; offsets are
// rebased to the start of that range.
func encodeDenseUnion(w *writer, p *plan, d arrow.ArrayData, off, n int) {
	bufs := d.Buffers()
	ids := bytesOf(bufs[1])[off : off+n]
	offs := arrow.Int32Traits.CastFromBytes(bytesOf(bufs[2]))[off : off+n]
	var lo, hi [128]int32 // per child: the range [lo, hi) referenced
	for i := range lo {
		lo[i] = math.MaxInt32
	}
	for i, id := range ids {
		c := p.unionChild[id&127]
		lo[c], hi[c] = min(lo[c], offs[i]), max(hi[c], offs[i]+1)
	}
	w.bytes(ids)
	if dst := w.reserve(4 * n); dst != nil {
		do := view[int32](dst)
		for i, id := range ids {
			do[i] = offs[i] - lo[p.unionChild[id&127]]
		}
	}
	for i, c := range d.Children() {
		if hi[i] == 0 {
			encodeNode(w, p.children[i], c, c.Offset(), 0)
			continue
		}
		encodeNode(w, p.children[i], c, c.Offset()+int(lo[i]), int(hi[i]-lo[i]))
	}
}

// encodeRunEnds writes the runs that cover logical rows [off, off+n): the
// run ends as a child node of their integer type, shifted to start at 0
// and with the last cut to n, then the values of those runs.
func encodeRunEnds(w *writer, p *plan, d arrow.ArrayData, off, n int) {
	re, vals := d.Children()[0], d.Children()[1]
	ends := runEndReader{b: bytesOf(re.Buffers()[1]), off: re.Offset(), width: p.width}
	first, last := 0, -1 // the runs [first, last] cover the rows
	if n > 0 {
		first = ends.search(re.Len(), off+1)
		last = ends.search(re.Len(), off+n)
	}
	runs := last - first + 1
	w.word(uint64(runs))
	w.word(0) // run ends have no nulls
	if dst := w.reserve(runs * p.width); dst != nil {
		for i := range runs {
			e := min(ends.at(first+i)-off, n)
			putRunEnd(dst, i, p.width, e)
		}
	}
	encodeNode(w, p.children[1], vals, vals.Offset()+first, runs)
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

func putRunEnd(b []byte, i, width, v int) {
	switch width {
	case 2:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
}

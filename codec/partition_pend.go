package codec

import (
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
)

// pend holds the rows of one node of one column that a partition has
// pending, in Arrow's layout: the buffers grow as Partitioner.Write
// scatters rows into them, and become an array (build) when the block is
// written. Only the kinds of fastKind are pended this way.
type pend struct {
	// The fields a scatter reads for every partition come first, so that
	// they share a cache line or two.
	p     *plan
	n     int // rows
	nulls int // of the n rows
	// bitmap: some row was null, so valid holds the rows' bits; until
	// then every row is valid and the block has no bitmap.
	bitmap bool
	valid  []byte // validity bitmap, when bitmap is set
	vals   []byte // kFixed, kDict: values of p.width bytes; kBool: bits
	data   []byte // kBinary, kLargeBinary: the values' bytes
	off32  []int32
	off64  []int64

	kids []*pend         // children, in plan order
	dict arrow.ArrayData // kDict: the dictionary of the rows, retained

	// What build refills: the array of the rows, its buffers' objects
	// and the lists it hands them in.
	out     *array.Data
	bufs    [3]*memory.Buffer
	bufList []*memory.Buffer
	kidData []arrow.ArrayData
}

// fastKind reports whether columns of plan p (its whole tree) are pended
// row by row; the others (views, list views, unions, run-end encoded
// arrays, and dictionaries below the top) go the general way, as segs of
// the batches' own arrays.
func fastKind(p *plan, top bool) bool {
	switch p.kind {
	case kNull, kBool, kFixed, kBinary, kLargeBinary:
		return true
	case kDict:
		return top
	case kList, kLargeList, kFixedList, kStruct:
		for _, c := range p.children {
			if !fastKind(c, false) {
				return false
			}
		}
		return true
	}
	return false
}

func newPend(p *plan) *pend {
	pd := new(pend)
	pd.init(p)
	return pd
}

// init makes the zero pd a pend of p.
func (pd *pend) init(p *plan) {
	pd.p = p
	switch p.kind {
	case kBinary, kList:
		pd.off32 = make([]int32, 1, 64)
	case kLargeBinary, kLargeList:
		pd.off64 = make([]int64, 1, 64)
	}
	if p.kind != kDict {
		for _, c := range p.children {
			pd.kids = append(pd.kids, newPend(c))
		}
	}
}

// reset empties pd, keeping its buffers for the next rows.
func (pd *pend) reset() {
	pd.n, pd.nulls = 0, 0
	pd.valid, pd.bitmap = pd.valid[:0], false
	pd.vals = pd.vals[:0]
	pd.data = pd.data[:0]
	if pd.off32 != nil {
		pd.off32 = pd.off32[:1]
	}
	if pd.off64 != nil {
		pd.off64 = pd.off64[:1]
	}
	for _, k := range pd.kids {
		k.reset()
	}
	if pd.dict != nil {
		pd.dict.Release()
		pd.dict = nil
	}
	if pd.out != nil && pd.p.kind == kDict {
		pd.out.SetDictionary(nil) // the block's dictionary is not kept
	}
}

// held returns the bytes pd's buffers take, their capacity.
func (pd *pend) held() int {
	n := cap(pd.valid) + cap(pd.vals) + cap(pd.data) + 4*cap(pd.off32) + 8*cap(pd.off64)
	for _, k := range pd.kids {
		n += k.held()
	}
	return n
}

// src is what a Write reads of one node of a column of its batch, read
// once per batch: positions are in the buffers' coordinates (the array's
// offset included).
type src struct {
	d      arrow.ArrayData
	vb     []byte // validity bitmap; nil when no row is null
	b1, b2 []byte
	kids   []*src
}

func newSrc(p *plan) *src {
	s := &src{}
	if p.kind != kDict {
		for _, c := range p.children {
			s.kids = append(s.kids, newSrc(c))
		}
	}
	return s
}

// read points s and its children at d.
func (s *src) read(d arrow.ArrayData) {
	s.d = d
	bufs := d.Buffers()
	s.vb, s.b1, s.b2 = nil, nil, nil
	if len(bufs) > 0 && d.NullN() != 0 {
		s.vb = bytesOf(bufs[0])
	}
	if len(bufs) > 1 {
		s.b1 = bytesOf(bufs[1])
	}
	if len(bufs) > 2 {
		s.b2 = bytesOf(bufs[2])
	}
	ch := d.Children()
	for i, k := range s.kids {
		k.read(ch[i])
	}
}

// release forgets the arrays s points at.
func (s *src) release() {
	s.d, s.vb, s.b1, s.b2 = nil, nil, nil, nil
	for _, k := range s.kids {
		k.release()
	}
}

// grow extends b by n bytes, keeping it 8-byte aligned so that it can be
// viewed as wider values. The new bytes are zero only when new memory was
// needed: the caller overwrites them (growBits clears them).
func grow(b []byte, n int) []byte {
	l := len(b)
	if l+n <= cap(b) {
		return b[:l+n]
	}
	// Room for a few more appends like this one: a partition's rows come
	// in similar pieces, batch after batch.
	c := max(l+n, 2*cap(b), 64, 4*n)
	if cap(b) > 1<<20 {
		c = max(l+n, cap(b)+cap(b)/4)
	}
	nb := alignedAt(c, 0)[:l+n]
	copy(nb, b)
	return nb
}

// growBits extends bitmap b to hold n bits, the new bytes clear.
func growBits(b []byte, n int) []byte {
	l := len(b)
	b = grow(b, (n+7)/8-l)
	clear(b[l:])
	return b
}

// scratch holds the child positions of the nodes being appended, one slice
// per depth, reused from Write to Write.
type scratch [][]int32

func (sc *scratch) at(depth, n int) []int32 {
	for len(*sc) <= depth {
		*sc = append(*sc, nil)
	}
	b := (*sc)[depth]
	if cap(b) < n {
		b = make([]int32, n, max(n, 2*cap(b)))
	}
	(*sc)[depth] = b[:n]
	return b[:n]
}

// appendRows appends the rows at positions pos of s to pd, following pd.p,
// and returns the bytes it added. The batch is checked before, so the
// positions and what they reference are in range.
func (pd *pend) appendRows(s *src, pos []int32, sc *scratch, depth int) int {
	m := len(pos)
	if m == 0 {
		return 0
	}
	added := pd.appendValidity(s, pos)
	p := pd.p
	switch p.kind {
	case kBool:
		pd.vals = growBits(pd.vals, pd.n+m)
		gatherBits(pd.vals, pd.n, s.b1, 0, pos)
		added += m / 8
	case kFixed, kDict:
		at := len(pd.vals)
		pd.vals = grow(pd.vals, m*p.width)
		gatherFixed(pd.vals[at:], s.b1, pos, p.width)
		added += m * p.width
	case kBinary:
		var total int
		pd.data, pd.off32, total = binaryRows(pd.data, pd.off32, s.b2, view[int32](s.b1), pos)
		added += total + 4*m
	case kLargeBinary:
		var total int
		pd.data, pd.off64, total = binaryRows(pd.data, pd.off64, s.b2, view[int64](s.b1), pos)
		added += total + 8*m
	case kList:
		var cp []int32
		pd.off32, cp = listRows(pd.off32, view[int32](s.b1), pos, int32(s.kids[0].d.Offset()), sc, depth)
		added += 4*m + pd.kids[0].appendRows(s.kids[0], cp, sc, depth+1)
	case kLargeList:
		var cp []int32
		pd.off64, cp = listRows(pd.off64, view[int64](s.b1), pos, int32(s.kids[0].d.Offset()), sc, depth)
		added += 8*m + pd.kids[0].appendRows(s.kids[0], cp, sc, depth+1)
	case kFixedList:
		w := int32(p.width)
		cp := sc.at(depth, m*p.width)[:0]
		base := int32(s.kids[0].d.Offset())
		for _, r := range pos {
			for j := range w {
				cp = append(cp, base+r*w+j)
			}
		}
		added += pd.kids[0].appendRows(s.kids[0], cp, sc, depth+1)
	case kStruct:
		for i, k := range pd.kids {
			base := int32(s.kids[i].d.Offset())
			cp := sc.at(depth, m)
			for j, r := range pos {
				cp[j] = base + r
			}
			added += k.appendRows(s.kids[i], cp, sc, depth+1)
		}
	}
	pd.n += m
	return added
}

// listRows appends to offs the offsets of the lists at positions pos of
// a list array of offsets o, and returns them with the positions of their
// elements in the child, whose offset is base (in sc at depth).
func listRows[T int32 | int64](offs, o []T, pos []int32, base int32, sc *scratch, depth int) ([]T, []int32) {
	total := 0
	for _, r := range pos {
		total += int(o[r+1] - o[r])
	}
	cp := sc.at(depth, total)[:0]
	last := offs[len(offs)-1]
	for _, r := range pos {
		for j := o[r]; j < o[r+1]; j++ {
			cp = append(cp, base+int32(j))
		}
		last += o[r+1] - o[r]
		offs = append(offs, last)
	}
	return offs, cp
}

// appendValidity appends the validity bits of the rows at pos, making a
// bitmap (all set for the rows before) at the first null row.
func (pd *pend) appendValidity(s *src, pos []int32) int {
	m := len(pos)
	switch {
	case pd.p.kind == kNull:
		pd.nulls += m
		return 0
	case s.vb == nil:
		if pd.bitmap {
			pd.valid = growBits(pd.valid, pd.n+m)
			arrowpack.SetBitsAt(pd.valid, pd.n, m)
		}
		return 0
	}
	if !pd.bitmap {
		pd.valid, pd.bitmap = growBits(pd.valid[:0], pd.n+m), true
		arrowpack.SetBitsAt(pd.valid, 0, pd.n)
	} else {
		pd.valid = growBits(pd.valid, pd.n+m)
	}
	ones := gatherBits(pd.valid, pd.n, s.vb, 0, pos)
	pd.nulls += m - ones
	return m / 8
}

// binaryRows appends to data and offs the values at positions pos of the
// binary array of offsets o and data src, and returns them with the bytes
// added to data.
func binaryRows[T int32 | int64](data []byte, offs []T, src []byte, o []T, pos []int32) ([]byte, []T, int) {
	total := 0
	for _, r := range pos {
		total += int(o[r+1] - o[r])
	}
	at, m := len(data), len(pos)
	data = grow(data, total)
	offs = slices.Grow(offs, m)
	n := len(offs)
	copyValues(data[at:], src, o, pos, offs[n-1], offs[n:n+m])
	return data, offs[:n+m], total
}

// copyValues copies the values at positions pos of the binary array of
// offsets o and data src to dst, one after the other, and sets offs[j] to
// the end of value j, counted from last.
func copyValues[T int32 | int64](dst, src []byte, o []T, pos []int32, last T, offs []T) {
	w := 0
	for j, r := range pos {
		lo, hi := o[r], o[r+1]
		if n := int(hi - lo); n <= 8 && int(lo)+8 <= len(src) && w+8 <= len(dst) {
			// Short values, most of them: one word's copy, not a call.
			binary.LittleEndian.PutUint64(dst[w:], binary.LittleEndian.Uint64(src[lo:]))
			w += n
		} else {
			w += copy(dst[w:], src[lo:hi])
		}
		offs[j] = last + T(w)
	}
}

// gatherBits sets bit at+j of dst for each bit from+pos[j] of src that is
// set, and returns how many it set; the bits of dst from at on must be
// clear.
func gatherBits(dst []byte, at int, src []byte, from int, pos []int32) int {
	ones := 0
	for j, r := range pos {
		r := from + int(r)
		b := src[r>>3] >> (r & 7) & 1
		i := at + j
		dst[i>>3] |= b << (i & 7)
		ones += int(b)
	}
	return ones
}

// gatherFixed copies the values at positions pos of src, of width bytes
// each, to dst, one after the other.
func gatherFixed(dst, src []byte, pos []int32, width int) {
	switch width {
	case 1:
		for j, r := range pos {
			dst[j] = src[r]
		}
	case 2:
		gatherWords(view[uint16](dst), view[uint16](src), pos)
	case 4:
		gatherWords(view[uint32](dst), view[uint32](src), pos)
	case 8:
		gatherWords(view[uint64](dst), view[uint64](src), pos)
	case 16:
		d, s := view[uint64](dst), view[uint64](src)
		_ = d[2*len(pos)-1]
		for j, r := range pos {
			d[2*j], d[2*j+1] = s[2*r], s[2*r+1]
		}
	default:
		for j, r := range pos {
			copy(dst[j*width:(j+1)*width], src[int(r)*width:])
		}
	}
}

func gatherWords[T uint16 | uint32 | uint64](dst, src []T, pos []int32) {
	dst = dst[:len(pos)]
	for j, r := range pos {
		dst[j] = src[r]
	}
}

// build returns the array of pd's rows over pd's buffers (which it
// aliases: it is encoded before they change), of type dt. The array and
// its buffers are pd's own, refilled block after block (Data.Reset and
// Buffer.Reset, which for buffers that own no memory only point them
// elsewhere), so that a block allocates none; the caller does not
// release it.
func (pd *pend) build(dt arrow.DataType) arrow.ArrayData {
	var vb *memory.Buffer
	if pd.bitmap {
		vb = pd.buffer(0, pd.valid[:(pd.n+7)/8])
	}
	bufs := pd.bufList[:0]
	switch pd.p.kind {
	case kNull:
		bufs = append(bufs, nil)
	case kBool, kFixed, kDict:
		bufs = append(bufs, vb, pd.buffer(1, pd.vals))
	case kBinary:
		bufs = append(bufs, vb, pd.buffer(1, int32Bytes(pd.off32)), pd.buffer(2, pd.data))
	case kLargeBinary:
		bufs = append(bufs, vb, pd.buffer(1, int64Bytes(pd.off64)), pd.buffer(2, pd.data))
	case kList:
		bufs = append(bufs, vb, pd.buffer(1, int32Bytes(pd.off32)))
	case kLargeList:
		bufs = append(bufs, vb, pd.buffer(1, int64Bytes(pd.off64)))
	default: // kFixedList, kStruct
		bufs = append(bufs, vb)
	}
	pd.bufList = bufs
	kids := pd.kidData[:0]
	for _, k := range pd.kids {
		kids = append(kids, k.build(k.p.dt))
	}
	pd.kidData = kids
	if pd.out == nil {
		pd.out = array.NewData(dt, pd.n, bufs, kids, pd.nulls, 0)
	} else {
		pd.out.Reset(dt, pd.n, bufs, kids, pd.nulls, 0)
	}
	if pd.p.kind == kDict {
		pd.out.SetDictionary(pd.dict)
	}
	return pd.out
}

// buffer returns pd's k-th buffer object, pointed at b.
func (pd *pend) buffer(k int, b []byte) *memory.Buffer {
	if pd.bufs[k] == nil {
		pd.bufs[k] = memory.NewBufferBytes(b)
	} else {
		pd.bufs[k].Reset(b)
	}
	return pd.bufs[k]
}

func int32Bytes(v []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}

func int64Bytes(v []int64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 8*len(v))
}

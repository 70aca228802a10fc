package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
)

// Checking a batch before it is encoded: everything the decoder checks of a
// block (FORMAT.md's list) is checked of the rows the block will hold, so
// that the encoder never writes a block the decoder refuses, and so that
// nothing is allocated from a length, offset or id the batch's buffers do
// not back. The checks the decoder makes too are shared with it
// (check.go); what differs is that a batch need not be in the canonical
// form a block is (slices, offsets not starting at 0, views anywhere in
// any data buffer), and that a fault names the column and the row.

// batchFault is where a batch breaks an invariant: the fields from the
// faulty array up to the column (innermost first), the row of that array
// (counted from its own offset, as arrow-go's accessors count), and what
// is wrong.
type batchFault struct {
	path        []string
	row         int
	msg         string
	unsupported bool // a valid batch that a block cannot hold
}

func faultf(row int, format string, args ...any) *batchFault {
	return &batchFault{row: row, msg: fmt.Sprintf(format, args...)}
}

// in adds the field name to f's path, on the way up from a child.
func (f *batchFault) in(name string) *batchFault {
	f.path = append(f.path, name)
	return f
}

// err returns the error of f, found in column col of batch k of batches.
func (f *batchFault) err(col string, k, batches int) error {
	path := col
	for i := len(f.path) - 1; i >= 0; i-- {
		path += "." + f.path[i]
	}
	sentinel := ErrInvalidBatch
	if f.unsupported {
		sentinel = ErrUnsupported
	}
	where := ""
	if batches > 1 {
		where = fmt.Sprintf("batch %d, ", k)
	}
	return fmt.Errorf("%w: %scolumn %s, row %d: %s", sentinel, where, path, f.row, f.msg)
}

// dictionaryOf returns d's dictionary, or nil when it has none (arrow-go's
// Data returns a nil *Data as a non-nil interface then).
func dictionaryOf(d arrow.ArrayData) arrow.ArrayData {
	dict := d.Dictionary()
	if ad, ok := dict.(*array.Data); ok && ad == nil {
		return nil
	}
	return dict
}

// childName returns the name of child i of an array of type dt, in the
// order of plan.children.
func childName(dt arrow.DataType, i int) string {
	for dt.ID() == arrow.EXTENSION {
		dt = dt.(arrow.ExtensionType).StorageType()
	}
	switch t := dt.(type) {
	case arrow.ListLikeType:
		return t.ElemField().Name
	case *arrow.StructType:
		return t.Field(i).Name
	case arrow.UnionType:
		return t.Fields()[i].Name
	case *arrow.DictionaryType:
		return "dictionary"
	case *arrow.RunEndEncodedType:
		if i == 0 {
			return "run_ends"
		}
		return "values"
	}
	return fmt.Sprintf("child %d", i)
}

// checker checks arrays before they are encoded. With deep unset it
// leaves to the writer the checks it makes as it copies, fused into that
// pass while the bytes are in the cache (see lateFault): that offsets never
// decrease between the first and the last, that strings are UTF-8 and
// that dictionary indices are in range. It checks all the rest, and
// everything any allocation is sized from, first. With deep set it checks
// everything, to name the column and row of a fault the writer found.
// With dicts, it checks a dictionary that the last array of its column
// shared only once (see dictsChecked).
// With countLater, it leaves the count of nulls of the array it is given
// (not of its children) to the writer, which counts them as it copies the
// bitmap (seg.countNulls): a column is always written whole.
type checker struct {
	deep       bool
	countLater bool
	dicts      *dictsChecked
}

// array checks rows [off, off+n) of d (off in d's buffer coordinates,
// d.Offset() included) following p: that its buffers hold them, its null
// count matches its bitmap, and its offsets, views, ids, indices and run
// ends are what the decoder accepts; then, recursively, the ranges of its
// children those rows reference.
func (k checker) array(p *plan, d arrow.ArrayData, off, n int) *batchFault {
	var h arrayHead
	return k.arrayHead(p, d, &h, off, n)
}

// arrayHead is array, reading d's head into h for the caller.
func (k checker) arrayHead(p *plan, d arrow.ArrayData, h *arrayHead, off, n int) *batchFault {
	if plain := h.read(d, p); plain && !k.deep && off == h.base && n == h.length {
		return nil
	}
	return k.arrayFull(p, d, h, off, n)
}

// arrayFull is array of d, whose head h the caller has read, without the
// short way of a plain array.
func (k checker) arrayFull(p *plan, d arrow.ArrayData, h *arrayHead, off, n int) *batchFault {
	base := h.base // rows are reported from the array's offset
	if uint64(n) > maxLength || base < 0 || h.length < 0 || off < 0 || uint64(base)+uint64(h.length) > math.MaxInt {
		if n > maxLength {
			f := faultf(0, "%d rows; a block holds arrays of at most %d", n, maxLength)
			f.unsupported = true
			return f
		}
		return faultf(0, "offset %d and length %d", base, h.length)
	}
	if len(h.bufs) < p.minBufs || len(h.children) != p.nChildren {
		if len(h.bufs) < p.minBufs {
			return faultf(0, "%d buffers; %s has %d", len(h.bufs), p.dt, p.minBufs)
		}
		return faultf(0, "%d child arrays; %s has %d", len(h.children), p.dt, p.nChildren)
	}
	if f := checkNulls(p, h, k.countLater); f != nil {
		return f
	}
	bufs, b1, b2 := h.bufs, h.b1, h.b2
	switch p.kind {
	case kNull:
	case kBool:
		if end := wholeEnd(h, off, n); end > 0 && uint64(len(b1))*8 < uint64(end) {
			return faultf(len(b1)*8-base, "values bitmap of %d bytes is too short", len(b1))
		}
	case kFixed:
		if f := covers(b1, wholeEnd(h, off, n), p.width, base, "values"); f != nil {
			return f
		}
	case kBinary:
		return checkBinary[int32](k, p, d, h, b1, b2, off, n)
	case kLargeBinary:
		return checkBinary[int64](k, p, d, h, b1, b2, off, n)
	case kView:
		return k.views(p, d, h, bufs, off, n)
	case kList:
		return checkList[int32](k, p, d, h, b1, off, n)
	case kLargeList:
		return checkList[int64](k, p, d, h, b1, off, n)
	case kFixedList:
		ch := h.children[0]
		w := uint64(p.width)
		if (uint64(off)+uint64(n))*w > uint64(ch.Len()) {
			return faultf(int((uint64(ch.Len())/w)-uint64(base)), "fixed-size lists of %d values, a child of %d values", w, ch.Len())
		}
		return k.child(p, 0, ch, ch.Offset()+off*p.width, n*p.width)
	case kListView:
		return checkListView[int32](k, p, d, h, b1, b2, off, n)
	case kLargeListView:
		return checkListView[int64](k, p, d, h, b1, b2, off, n)
	case kStruct:
		return k.sameRows(p, h, off, n)
	case kSparseUnion:
		if f := covers(b1, wholeEnd(h, off, n), 1, base, "type ids"); f != nil {
			return f
		}
		if i := firstBadTypeID(b1[off:off+n], p.unionChild); i >= 0 {
			return faultf(off-base+i, "type id %d names no child", int8(b1[off+i]))
		}
		return k.sameRows(p, h, off, n)
	case kDenseUnion:
		return k.denseUnion(p, d, h, b1, b2, off, n)
	case kDict:
		return k.dict(p, d, h, bufs, b1, off, n)
	case kRunEnd:
		return k.runEnds(p, d, h, off, n)
	}
	return nil
}

func bufBytes(bufs []*memory.Buffer, i int) []byte {
	if i >= len(bufs) || bufs[i] == nil {
		return nil
	}
	return bufs[i].Bytes()
}

// wholeEnd returns the end of what the buffers of d must hold, in rows
// from its buffers' start: rows [off, off+n), and all of d, whose buffers
// arrow-go's constructors check whether or not a block holds all of it.
func wholeEnd(h *arrayHead, off, n int) int {
	return max(off+n, h.base+h.length)
}

// covers checks that b holds values up to row end of width bytes.
func covers(b []byte, end, width, base int, what string) *batchFault {
	if uint64(len(b)) < uint64(end)*uint64(width) {
		return faultf(len(b)/width-base, "%s buffer of %d bytes is too short for %d rows of %d bytes", what, len(b), end-base, width)
	}
	return nil
}

// child checks rows [off, off+n) of ch, child i of p, naming it in a fault.
func (k checker) child(p *plan, i int, ch arrow.ArrayData, off, n int) *batchFault {
	return k.childHead(p, i, ch, nil, off, n)
}

// childHead is child, reading ch's head into h for the caller unless h is
// nil.
func (k checker) childHead(p *plan, i int, ch arrow.ArrayData, h *arrayHead, off, n int) *batchFault {
	k.countLater = false // the writer may copy part of a child's bitmap
	var f *batchFault
	if h == nil {
		f = k.array(p.children[i], ch, off, n)
	} else {
		f = k.arrayHead(p.children[i], ch, h, off, n)
	}
	if f != nil {
		return f.in(childName(p.dt, i))
	}
	return nil
}

// arrayHead is what checker and seg read of every array, read once,
// through the concrete type when it is arrow-go's (whose getters then
// inline): its buffers, and the bytes of the first three (validity, and
// values, offsets, ids or indices), its children, offset, length and
// null count.
type arrayHead struct {
	bufs                []*memory.Buffer
	vb, b1, b2          []byte // validity (even with no nulls), buffers 1 and 2
	children            []arrow.ArrayData
	base, length, nullN int
}

// read sets h to the head of d and reports whether d is plain for p (p
// nil: false): a sound array of fixed-width values, or of strings or
// binary with 32-bit offsets, with no nulls, all of it to be written. These
// are the commonest columns, checked here in a few comparisons while their
// head is in registers; checker.arrayFull makes the checks of the rest and
// names any fault. The head is built in a local and stored once.
func (h *arrayHead) read(d arrow.ArrayData, p *plan) (plain bool) {
	var r arrayHead
	if ad, ok := d.(*array.Data); ok {
		r.bufs, r.children = ad.Buffers(), ad.Children()
		r.base, r.length, r.nullN = ad.Offset(), ad.Len(), ad.NullN()
	} else {
		r.bufs, r.children = d.Buffers(), d.Children()
		r.base, r.length, r.nullN = d.Offset(), d.Len(), d.NullN()
	}
	switch bufs := r.bufs; {
	case len(bufs) > 2:
		r.b2 = bytesOf(bufs[2])
		fallthrough
	case len(bufs) > 1:
		r.b1 = bytesOf(bufs[1])
		fallthrough
	case len(bufs) > 0:
		r.vb = bytesOf(bufs[0])
	}
	*h = r
	base, n := r.base, r.length
	if p == nil || r.nullN != 0 || len(r.children) != 0 || base < 0 || n < 0 || uint64(base)+uint64(n) > maxLength {
		return false
	}
	switch p.kind {
	case kFixed:
		if len(r.bufs) < 2 || uint64(len(r.b1)) < uint64(base+n)*uint64(p.width) {
			return false
		}
	case kBinary:
		// The offsets of the rows (arrow-go's last one among them) in
		// [0, len(data)], the first no more than the last; the writer
		// checks they never decrease.
		if len(r.bufs) < 3 || uint64(len(r.b1)) < uint64(base+n+1)*4 {
			return false
		}
		o := view[int32](r.b1)
		if lo, hi := o[base], o[base+n]; lo < 0 || hi < lo || int(hi) > len(r.b2) {
			return false
		}
	default:
		return false
	}
	return allValid(r.vb, base, n)
}

// allValid reports whether bits [base, base+n) of the validity bitmap vb
// are all set, or vb is empty: whether a null count of 0 is true. Bitmaps
// of up to 64 rows, those of small batches, are checked in one word.
func allValid(vb []byte, base, n int) bool {
	if len(vb) == 0 {
		return true
	}
	// Unsigned: a negative base or n takes the long way, which refuses it.
	i, sh := uint(base)>>3, uint(base)&7
	if uint(n) <= 64-sh && i+8 <= uint(len(vb)) {
		mask := ^uint64(0) >> (64 - uint(n)) // (n = 0: none)
		return binary.LittleEndian.Uint64(vb[i:i+8])>>sh&mask == mask
	}
	return allValidLong(vb, base, n)
}

// allValidLong is allValid of more than one word: the bits of the
// partial bytes at either end tested in place, and the whole bytes between
// them compared with set bytes (bytes.Equal: the runtime's vector compare,
// several times faster than counting the bits).
func allValidLong(vb []byte, base, n int) bool {
	if base < 0 || n < 0 || uint64(len(vb))*8 < uint64(base)+uint64(n) {
		return false
	}
	lo, hi := (base+7)>>3, (base+n)>>3 // the whole bytes [lo, hi)
	if lo > hi {
		return arrowpack.CountOnes(vb, base, n) == n // inside one byte
	}
	if sh := base & 7; sh != 0 && vb[base>>3]>>sh != 0xFF>>sh {
		return false
	}
	if t := (base + n) & 7; t != 0 && vb[hi]&(1<<t-1) != 1<<t-1 {
		return false
	}
	for b := vb[lo:hi]; len(b) > 0; {
		m := min(len(b), len(setBytes))
		if !bytes.Equal(b[:m], setBytes[:m]) {
			return false
		}
		b = b[m:]
	}
	return true
}

// setBytes is a run of bytes with every bit set, for allValidLong.
var setBytes = func() (b [4096]byte) {
	for i := range b {
		b[i] = 0xFF
	}
	return b
}()

// checkNulls checks an array's null count against its validity bitmap,
// over all of the array: the count arrow-go reports must be the nulls the
// block will hold. With countLater it checks all but the count of a
// positive null count, which the writer checks as it copies the bitmap.
func checkNulls(p *plan, h *arrayHead, countLater bool) *batchFault {
	nulls, bm := h.nullN, h.vb
	if nulls == 0 && !p.noValidity && p.kind != kNull && allValid(bm, h.base, h.length) {
		return nil // the common case
	}
	switch p.kind {
	case kNull:
		if nulls >= 0 && nulls != h.length {
			return faultf(0, "null array of %d rows with a null count of %d", h.length, nulls)
		}
		return nil
	case kSparseUnion, kDenseUnion, kRunEnd:
		if nulls != 0 || len(bm) != 0 {
			return faultf(0, "null count %d (a %d-byte validity bitmap); %s has none", nulls, len(bm), p.dt)
		}
		return nil
	}
	if len(bm) == 0 {
		if nulls > 0 || (nulls < 0 && h.length > 0) {
			return faultf(0, "null count %d without a validity bitmap", nulls)
		}
		return nil
	}
	base, n := h.base, h.length
	if uint64(len(bm))*8 < uint64(base)+uint64(n) {
		return faultf(len(bm)*8-base, "validity bitmap of %d bytes is too short for %d rows", len(bm), n)
	}
	if nulls < 0 || countLater && nulls > 0 && n > 0 {
		// arrow-go counts them from the bitmap; or the writer will, as it
		// copies the n rows' bits.
		return nil
	}
	if got := n - arrowpack.CountOnes(bm, base, n); got != nulls {
		row := 0
		if got > nulls {
			for !bitIsNull(bm, base+row) {
				row++
			}
		}
		return faultf(row, "null count %d; the validity bitmap has %d nulls", nulls, got)
	}
	return nil
}

func bitIsNull(bm []byte, i int) bool { return bm[i>>3]>>(i&7)&1 == 0 }

// validBits returns d's validity bitmap when some row may be null, nil
// when none is (checkNulls has checked them against each other).
func (h *arrayHead) validBits() []byte {
	if h.nullN == 0 {
		return nil
	}
	return h.vb
}

// validBits is arrayHead.validBits of d.
func validBits(d arrow.ArrayData) []byte {
	if d.NullN() == 0 {
		return nil
	}
	return bufBytes(d.Buffers(), 0)
}

// checkOffsets returns the n+1 offsets of rows [off, off+n) of buffer b,
// after checking the buffer holds them and that they lie in [0, limit]
// and never decrease (deep unset: that the first and the last do, which
// bound everything sized from them; the writer checks the others).
func checkOffsets[T int32 | int64](k checker, d arrow.ArrayData, h *arrayHead, b []byte, off, n, limit int) ([]T, *batchFault) {
	base := h.base
	if n == 0 && len(b) == 0 && h.length == 0 {
		return view[T](unsafeBytes(zeroWord[:]))[:1], nil
	}
	o := view[T](b)
	if end := wholeEnd(h, off, n); uint64(end) >= uint64(len(o)) {
		return nil, faultf(max(len(o)-1-base, 0), "offsets buffer of %d values is too short for %d rows", len(o), end-base)
	}
	if n == 0 {
		// No rows: the block holds one offset, 0, whatever the buffer
		// holds at off. Reading it would make an empty range valid or not
		// by where it lies, and AppendBatches, which cuts ranges where
		// Append does not, disagree with Append.
		return view[T](unsafeBytes(zeroWord[:]))[:1], nil
	}
	o = o[off : off+n+1]
	if !k.deep {
		if lo, hi := int64(o[0]), int64(o[n]); lo >= 0 && lo <= hi && hi <= int64(limit) {
			return o, nil
		}
	}
	if i := firstBadOffset(o, int64(limit)); i >= 0 {
		return nil, faultf(off-base+max(i-1, 0), "offset %d (of %d and %d) decreases or lies outside [0, %d]", i, o[max(i-1, 0)], o[i], limit)
	}
	return o, nil
}

// checkBinary checks the offsets and data of binary or string rows, and
// that strings are UTF-8.
func checkBinary[T int32 | int64](k checker, p *plan, d arrow.ArrayData, h *arrayHead, b1, b2 []byte, off, n int) *batchFault {
	o, f := checkOffsets[T](k, d, h, b1, off, n, len(b2))
	if f != nil {
		return f
	}
	if end := h.base + h.length; h.length > 0 {
		// arrow-go checks the last offset of all of the array too.
		if last := view[T](b1)[end]; last < 0 || int64(last) > int64(len(b2)) {
			return faultf(h.length-1, "last offset %d lies outside data of %d bytes", last, len(b2))
		}
	}
	if p.utf8 && k.deep {
		if i := firstBadUTF8(b2, o); i >= 0 {
			return faultf(off-h.base+i, "string is not valid UTF-8")
		}
	}
	return nil
}

// checkList checks the offsets of list rows and the child range they
// reference; the entries of a map, and their keys, must have no nulls.
func checkList[T int32 | int64](k checker, p *plan, d arrow.ArrayData, h *arrayHead, b1 []byte, off, n int) *batchFault {
	ch := h.children[0]
	o, f := checkOffsets[T](k, d, h, b1, off, n, ch.Len())
	if f != nil {
		return f
	}
	lo, hi := int(o[0]), int(o[n])
	if f := k.child(p, 0, ch, ch.Offset()+lo, hi-lo); f != nil {
		return f
	}
	if !p.isMap {
		return nil
	}
	// Neither the entries of a map nor their keys may have nulls, whatever
	// rows the block holds: arrow-go refuses a map whose entries or keys
	// have a null count other than 0.
	entries, keys := childName(p.dt, 0), childName(p.children[0].dt, 0)
	if f := noNulls(ch, ch.Offset()+lo, hi-lo, "null entry"); f != nil {
		return f.in(entries)
	}
	if ch.NullN() != 0 {
		return faultf(0, "null count %d; a map's entries have none", ch.NullN()).in(entries)
	}
	kd := ch.Children()[0]
	if f := noNulls(kd, kd.Offset()+ch.Offset()+lo, hi-lo, "null key"); f != nil {
		return f.in(keys).in(entries)
	}
	if kd.NullN() != 0 {
		return faultf(0, "null count %d; a map's keys have none", kd.NullN()).in(keys).in(entries)
	}
	return nil
}

// noNulls checks that rows [off, off+n) of d are all valid.
func noNulls(d arrow.ArrayData, off, n int, what string) *batchFault {
	bm := validBits(d)
	if bm == nil || arrowpack.CountOnes(bm, off, n) == n {
		return nil
	}
	row := off
	for !bitIsNull(bm, row) {
		row++
	}
	return faultf(row-d.Offset(), "%s", what)
}

// checkListView checks that every list view of the rows lies inside the
// child, and the child range they reference.
func checkListView[T int32 | int64](k checker, p *plan, d arrow.ArrayData, h *arrayHead, b1, b2 []byte, off, n int) *batchFault {
	size := int(unsafe.Sizeof(T(0)))
	base := h.base
	if f := covers(b1, wholeEnd(h, off, n), size, base, "offsets"); f != nil {
		return f
	}
	if f := covers(b2, wholeEnd(h, off, n), size, base, "sizes"); f != nil {
		return f
	}
	ch := h.children[0]
	offs, sizes := view[T](b1)[off:off+n], view[T](b2)[off:off+n]
	if i := firstBadListView(offs, sizes, T(ch.Len())); i >= 0 {
		return faultf(off-base+i, "list view (offset %d, size %d) is outside its child of %d values", offs[i], sizes[i], ch.Len())
	}
	var lo, hi T
	first := true
	for i, sz := range sizes {
		if sz > 0 {
			if first {
				lo, hi, first = offs[i], offs[i]+sz, false
			}
			lo, hi = min(lo, offs[i]), max(hi, offs[i]+sz)
		}
	}
	return k.child(p, 0, ch, ch.Offset()+int(lo), int(hi-lo))
}

// sameRows checks the children of a struct or sparse union: the same rows
// of each child as of the parent.
func (k checker) sameRows(p *plan, h *arrayHead, off, n int) *batchFault {
	for i := range p.children {
		ch := h.children[i]
		if uint64(off)+uint64(n) > uint64(ch.Len()) {
			return faultf(ch.Len(), "child of %d rows, %d wanted", ch.Len(), off+n).in(childName(p.dt, i))
		}
		if f := k.child(p, i, ch, ch.Offset()+off, n); f != nil {
			return f
		}
	}
	return nil
}

// denseUnion checks the type ids and offsets of dense union rows and
// the child ranges they reference.
func (k checker) denseUnion(p *plan, d arrow.ArrayData, h *arrayHead, b1, b2 []byte, off, n int) *batchFault {
	base := h.base
	if f := covers(b1, wholeEnd(h, off, n), 1, base, "type ids"); f != nil {
		return f
	}
	if f := covers(b2, wholeEnd(h, off, n), 4, base, "offsets"); f != nil {
		return f
	}
	ids, offs := b1[off:off+n], view[int32](b2)[off:off+n]
	if i := firstBadTypeID(ids, p.unionChild); i >= 0 {
		return faultf(off-base+i, "type id %d names no child", int8(ids[i]))
	}
	var lens [128]int
	for c := range p.children {
		lens[c] = h.children[c].Len()
	}
	if i := firstBadDenseOffset(ids, offs, p.unionChild, &lens); i >= 0 {
		c := p.unionChild[ids[i]]
		return faultf(off-base+i, "offset %d into child %d of %d values is negative, past it or before the row before", offs[i], c, lens[c])
	}
	// Offsets into each child never go back: a child's range runs from its
	// first row's offset to its last's.
	var lo, hi [128]int32
	for i, o := range offs {
		c := p.unionChild[ids[i]]
		if hi[c] == 0 {
			lo[c] = o
		}
		hi[c] = o + 1
	}
	for c := range p.children {
		ch := h.children[c]
		if f := k.child(p, c, ch, ch.Offset()+int(lo[c]), int(hi[c]-lo[c])); f != nil {
			return f
		}
	}
	return nil
}

// dict checks the indices of dictionary rows and the whole
// dictionary, which every block carries.
func (k checker) dict(p *plan, d arrow.ArrayData, h *arrayHead, bufs []*memory.Buffer, b1 []byte, off, n int) *batchFault {
	base := h.base
	if f := covers(b1, wholeEnd(h, off, n), p.width, base, "indices"); f != nil {
		return f
	}
	dict := dictionaryOf(d)
	if dict == nil {
		return faultf(0, "no dictionary")
	}
	if k.deep {
		idx := b1[off*p.width : (off+n)*p.width]
		if i := firstBadIndex(idx, p.width, p.signed, dict.Len(), h.validBits(), off); i >= 0 {
			return faultf(off-base+i, "index %d is outside the dictionary of %d values", dictIndex(idx, i, p.width, p.signed), dict.Len())
		}
	}
	if k.dicts == nil {
		return k.child(p, 0, dict, dict.Offset(), dict.Len())
	}
	e := k.dicts.slot(p)
	if e.d == dict {
		return nil // checked whole for an earlier seg of the block
	}
	e.d = nil // until dict passes
	if f := k.childHead(p, 0, dict, &e.h, dict.Offset(), dict.Len()); f != nil {
		return f
	}
	e.d = dict
	return nil
}

// runEnds checks the run ends (no nulls, positive, strictly
// increasing, reaching the last row) and the values of the runs that
// cover the rows.
func (k checker) runEnds(p *plan, d arrow.ArrayData, h *arrayHead, off, n int) *batchFault {
	if maxEnd := int64(1)<<(8*p.width-1) - 1; int64(n) > maxEnd {
		f := faultf(0, "%d rows do not fit its run ends", n)
		f.unsupported = true
		return f
	}
	re, vals := h.children[0], h.children[1]
	if f := k.child(p, 0, re, re.Offset(), re.Len()); f != nil {
		return f
	}
	if f := noNulls(re, re.Offset(), re.Len(), "null run end"); f != nil {
		return f.in(childName(p.dt, 0))
	}
	b := bufBytes(re.Buffers(), 1)
	runs := re.Len()
	if i := firstBadRunEnd(b, p.width, re.Offset(), runs); i >= 0 {
		return faultf(i, "run end %d is not positive or not above the one before", runEndAt(b, p.width, re.Offset()+i)).in(childName(p.dt, 0))
	}
	if n == 0 {
		// No run is written, but arrow-go builds the values array
		// whole: check what it checks of it.
		return k.child(p, 1, vals, vals.Offset(), 0)
	}
	ends := runEndReader{b: b, off: re.Offset(), width: p.width}
	if runs == 0 || ends.at(runs-1) < int64(off+n) {
		last := int64(0)
		if runs > 0 {
			last = ends.at(runs - 1)
		}
		return faultf(int(max(last, int64(off))-int64(h.base)), "the runs end at %d, before the row", last)
	}
	first, last := ends.search(runs, off+1), ends.search(runs, off+n)
	if last >= vals.Len() {
		return faultf(vals.Len(), "%d values for %d runs", vals.Len(), runs).in(childName(p.dt, 1))
	}
	return k.child(p, 1, vals, vals.Offset()+first, last-first+1)
}

// views checks the views of rows: lengths not negative, inline views
// valid, out-of-line ones inside their data buffer with the prefix of
// their bytes, and strings UTF-8.
func (k checker) views(p *plan, d arrow.ArrayData, h *arrayHead, bufs []*memory.Buffer, off, n int) *batchFault {
	base := h.base
	vb := bufBytes(bufs, 1)
	if f := covers(vb, wholeEnd(h, off, n), arrow.ViewHeaderSizeBytes, base, "views"); f != nil {
		return f
	}
	data := bufs[2:]
	bm := h.validBits()
	for i := off; i < off+n; i++ {
		if !isValid(bm, i) {
			continue
		}
		v := vb[i*16 : i*16+16]
		l := viewLen(vb, i)
		switch {
		case l < 0:
			return faultf(i-base, "view of length %d", l)
		case l <= arrow.ViewPrefixLen+8:
			if p.utf8 && !utf8.Valid(v[4:4+l]) {
				return faultf(i-base, "string is not valid UTF-8")
			}
			for _, c := range v[4+l:] {
				if c != 0 {
					return faultf(i-base, "inline view is not zero-padded")
				}
			}
		default:
			idx := uint32(v[8]) | uint32(v[9])<<8 | uint32(v[10])<<16 | uint32(v[11])<<24
			o := uint32(v[12]) | uint32(v[13])<<8 | uint32(v[14])<<16 | uint32(v[15])<<24
			var buf []byte
			if uint64(idx) < uint64(len(data)) && data[idx] != nil {
				buf = data[idx].Bytes()
			}
			if uint64(o)+uint64(l) > uint64(len(buf)) {
				return faultf(i-base, "view of bytes %d to %d of data buffer %d; the batch has %d, of %d bytes", o, uint64(o)+uint64(l), idx, len(data), len(buf))
			}
			val := buf[o : int(o)+l]
			if string(val[:arrow.ViewPrefixLen]) != string(v[4:8]) {
				return faultf(i-base, "view's prefix differs from its data")
			}
			if p.utf8 && !arrowpack.IsASCII(val) && !utf8.Valid(val) {
				return faultf(i-base, "string is not valid UTF-8")
			}
		}
	}
	return nil
}

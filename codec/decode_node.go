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
	"github.com/arrowpack/arrowpack"
)

// node reads one node of plan p, which must have want rows (any number when
// want < 0), and checks everything Arrow's full validation would.
func (s *decodeState) node(p *plan, want int) (*array.Data, error) {
	at := s.r.pos
	n, err := s.r.length()
	if err != nil {
		return nil, err
	}
	if want >= 0 && n != want {
		return nil, corruptf("%s node at byte %d has %d rows, want %d", p.dt, at, n, want)
	}
	pt := parts{bufs: s.bufList(p.kind.buffers())}
	d, err := s.build(p, n, &pt)
	if err != nil {
		pt.release()
		return nil, fmt.Errorf("%s: %w", p.dt, err)
	}
	return d, nil
}

func (s *decodeState) build(p *plan, n int, pt *parts) (*array.Data, error) {
	nulls := 0
	if hasValidity(p.kind) {
		b, err := s.r.anyBuffer("validity bitmap")
		if err != nil {
			return nil, err
		}
		switch len(b) {
		case 0:
			pt.bufs = append(pt.bufs, nil)
		case (n + 7) / 8:
			nulls = n - arrowpack.CountOnes(b, 0, n)
			pt.bufs = append(pt.bufs, s.buf(b))
		default:
			return nil, corruptf("validity bitmap of %d bytes for %d rows", len(b), n)
		}
	} else {
		// Null, union and run-end arrays have no validity bitmap; Arrow
		// keeps a nil slot for it.
		pt.bufs = append(pt.bufs, nil)
	}

	var err error
	switch p.kind {
	case kNull:
		nulls = n
	case kBool:
		err = s.values(pt, n, 0, false, "boolean values")
	case kFixed:
		err = s.values(pt, n, p.width, p.transpose, "values")
	case kBinary:
		err = varBinary[int32](s, p, pt, n)
	case kLargeBinary:
		err = varBinary[int64](s, p, pt, n)
	case kView:
		err = s.views(p, pt, n)
	case kList:
		err = list[int32](s, p, pt, n)
	case kLargeList:
		err = list[int64](s, p, pt, n)
	case kFixedList:
		if uint64(n)*uint64(p.width) > maxLength {
			return nil, corruptf("%d lists of %d values is above the limit of %d", n, p.width, maxLength)
		}
		err = s.child(p.children[0], pt, n*p.width)
	case kListView:
		err = listView[int32](s, p, pt, n)
	case kLargeListView:
		err = listView[int64](s, p, pt, n)
	case kStruct:
		for _, c := range p.children {
			if err = s.child(c, pt, n); err != nil {
				break
			}
		}
	case kSparseUnion, kDenseUnion:
		err = s.union(p, pt, n)
	case kDict:
		err = s.dictionary(p, pt, n)
	case kRunEnd:
		err = s.runEnds(p, pt, n)
	default:
		err = fmt.Errorf("%w: unknown kind %s", ErrUnsupported, p.kind)
	}
	if err != nil {
		return nil, err
	}
	var d *array.Data
	if pt.dict != nil {
		d = array.NewDataWithDictionary(p.dt, n, pt.bufs, nulls, 0, pt.dict)
	} else {
		d = array.NewData(p.dt, n, pt.bufs, pt.children, nulls, 0)
	}
	pt.release() // d holds its own references now
	return d, nil
}

func hasValidity(k kind) bool {
	switch k {
	case kNull, kSparseUnion, kDenseUnion, kRunEnd:
		return false
	}
	return true
}

// values reads a buffer of n values of width bytes (width 0: bits), stored
// byte-transposed if transpose is set and the block has flagTranspose.
func (s *decodeState) values(pt *parts, n, width int, transpose bool, what string) error {
	var b []byte
	var err error
	if width == 0 {
		b, err = s.r.buffer((n+7)/8, 1, what)
	} else {
		b, err = s.r.buffer(n, width, what)
	}
	if err != nil {
		return err
	}
	s.untranspose(b, width, transpose)
	pt.bufs = append(pt.bufs, s.buf(b))
	return nil
}

func (s *decodeState) child(p *plan, pt *parts, want int) error {
	c, err := s.node(p, want)
	if err != nil {
		return err
	}
	pt.children = append(pt.children, c)
	return nil
}

// offsets reads the n+1 offsets of n rows and checks that they start at 0
// and never decrease; it returns them and their last value.
func offsets[T int32 | int64](s *decodeState, pt *parts, n int) ([]T, int, error) {
	width := int(unsafe.Sizeof(T(0)))
	b, err := s.r.buffer(n+1, width, "offsets")
	if err != nil {
		return nil, 0, err
	}
	offs := view[T](b)
	if s.r.xf&flagLengths != 0 {
		// The lengths follow a 0; summing them in place refuses negative
		// lengths and overflow as it goes, and the data or child checks
		// below hold the total to the data's length.
		var ok bool
		if width == 4 {
			o := view[int32](b)
			ok = arrowpack.LengthsToOffsets32(o, o[1:], math.MaxInt32)
		} else {
			o := view[int64](b)
			ok = arrowpack.LengthsToOffsets64(o, o[1:], maxBlockBody)
		}
		if !ok {
			return nil, 0, corruptf("value lengths are negative or add up past the limit")
		}
	}
	last := offs[n]
	var valid bool
	if width == 4 {
		valid = arrowpack.ValidOffsets32(view[int32](b), int32(last))
	} else {
		valid = arrowpack.ValidOffsets64(view[int64](b), int64(last))
	}
	if offs[0] != 0 || !valid {
		return nil, 0, corruptf("offsets do not start at 0 and never decrease")
	}
	if int64(last) > maxBlockBody {
		// Beyond any block on this platform (an int, on 32-bit ones).
		return nil, 0, corruptf("last offset %d is out of range", last)
	}
	pt.bufs = append(pt.bufs, s.buf(b))
	return offs, int(last), nil
}

// data reads the data buffer of variable-width values, which must end at
// the last offset, and for strings checks that every value is UTF-8.
func data[T int32 | int64](s *decodeState, p *plan, pt *parts, offs []T, last int) error {
	b, err := s.r.anyBuffer("data")
	if err != nil {
		return err
	}
	if len(b) != last {
		return corruptf("data of %d bytes, the last offset is %d", len(b), last)
	}
	if p.utf8 {
		if i := firstBadUTF8(b, offs); i >= 0 {
			return corruptf("string %d is not valid UTF-8 (or starts inside a character)", i)
		}
	}
	pt.bufs = append(pt.bufs, s.buf(b))
	return nil
}

// varBinary reads the offsets and data of n strings or binary values.
func varBinary[T int32 | int64](s *decodeState, p *plan, pt *parts, n int) error {
	offs, last, err := offsets[T](s, pt, n)
	if err != nil {
		return err
	}
	return data(s, p, pt, offs, last)
}

// list reads the offsets and child of n lists. The entries of a map and
// their keys must have no nulls (arrow-go panics on such a map).
func list[T int32 | int64](s *decodeState, p *plan, pt *parts, n int) error {
	_, last, err := offsets[T](s, pt, n)
	if err != nil {
		return err
	}
	if err := s.child(p.children[0], pt, last); err != nil {
		return err
	}
	if p.isMap {
		entries := pt.children[0]
		if k := entries.NullN(); k != 0 {
			return corruptf("map has %d null entries", k)
		}
		if k := entries.Children()[0].NullN(); k != 0 {
			return corruptf("map has %d null keys", k)
		}
	}
	return nil
}

// views reads n views and their data, which must be in the canonical form
// the encoder writes: null rows are all-zero views; inline views are
// zero-padded; out-of-line views point, in row order and back to back, into
// one data buffer that holds exactly their bytes, and carry the first four
// bytes as their prefix; a node whose values are all inline has no data
// buffer. So each byte of data belongs to one value and the checks,
// UTF-8 included, take time linear in the node's bytes.
func (s *decodeState) views(p *plan, pt *parts, n int) error {
	vb, err := s.r.buffer(n, arrow.ViewHeaderSizeBytes, "views")
	if err != nil {
		return err
	}
	pt.bufs = append(pt.bufs, s.buf(vb))
	at := s.r.pos
	count, err := s.r.word()
	if err != nil {
		return err
	}
	var data []byte
	switch count {
	case 0:
	case 1:
		if data, err = s.r.anyBuffer("view data"); err != nil {
			return err
		}
	default:
		return corruptf("%d view data buffers at byte %d; a block has at most one", count, at)
	}
	valid := pt.validity()
	pos := 0 // where the next out-of-line value must start in data
	for i := range n {
		v := vb[i*16 : i*16+16]
		l := int32(binary.LittleEndian.Uint32(v))
		switch {
		case !isValid(valid, i):
			if binary.LittleEndian.Uint64(v) != 0 || binary.LittleEndian.Uint64(v[8:]) != 0 {
				return corruptf("view %d of a null row is not all zero", i)
			}
		case l < 0:
			return corruptf("view %d has negative length %d", i, l)
		case l <= arrow.ViewPrefixLen+8:
			for _, c := range v[4+l:] {
				if c != 0 {
					return corruptf("inline view %d is not zero-padded", i)
				}
			}
			if p.utf8 && !utf8.Valid(v[4:4+l]) {
				return corruptf("string view %d is not valid UTF-8", i)
			}
		default:
			idx := binary.LittleEndian.Uint32(v[8:])
			o := binary.LittleEndian.Uint32(v[12:])
			if idx != 0 || int64(o) != int64(pos) || int64(l) > int64(len(data)-pos) {
				return corruptf("view %d points to bytes %d..%d of data buffer %d; the next value is at %d of buffer 0 (%d bytes)",
					i, o, uint64(o)+uint64(l), idx, pos, len(data))
			}
			val := data[pos : pos+int(l)]
			if !bytes.Equal(val[:arrow.ViewPrefixLen], v[4:8]) {
				return corruptf("view %d has a prefix that differs from its data", i)
			}
			if p.utf8 && !utf8.RuneStart(val[0]) {
				return corruptf("string view %d starts inside a UTF-8 character", i)
			}
			pos += int(l)
		}
	}
	if pos != len(data) || (count == 1 && pos == 0) {
		return corruptf("view data of %d bytes, the views use %d", len(data), pos)
	}
	// Every value starts at a character boundary and the values tile the
	// data, so the data being UTF-8 makes each value UTF-8.
	if p.utf8 && !arrowpack.IsASCII(data) && !utf8.Valid(data) {
		return corruptf("string view data is not valid UTF-8")
	}
	if count == 1 {
		pt.bufs = append(pt.bufs, s.buf(data))
	}
	return nil
}

// listView reads offsets and sizes and a child, and checks that every
// list lies inside the child.
func listView[T int32 | int64](s *decodeState, p *plan, pt *parts, n int) error {
	width := int(unsafe.Sizeof(T(0)))
	ob, err := s.r.buffer(n, width, "list view offsets")
	if err != nil {
		return err
	}
	sb, err := s.r.buffer(n, width, "list view sizes")
	if err != nil {
		return err
	}
	pt.bufs = append(pt.bufs, s.buf(ob), s.buf(sb))
	if err := s.child(p.children[0], pt, -1); err != nil {
		return err
	}
	limit := T(pt.children[0].Len())
	offs, sizes := view[T](ob), view[T](sb)
	if i := firstBadListView(offs[:n], sizes, limit); i >= 0 {
		return corruptf("list view %d (offset %d, size %d) is outside its child of %d values", i, offs[i], sizes[i], limit)
	}
	return nil
}

// union reads type ids (and for dense unions offsets) and the children, and
// checks every id names a child and every offset lies inside it, in order.
func (s *decodeState) union(p *plan, pt *parts, n int) error {
	ids, err := s.r.buffer(n, 1, "union type ids")
	if err != nil {
		return err
	}
	pt.bufs = append(pt.bufs, s.buf(ids))
	if i := firstBadTypeID(ids, p.unionChild); i >= 0 {
		return corruptf("union row %d has type id %d, which names no child", i, int8(ids[i]))
	}
	if p.kind == kSparseUnion {
		for _, c := range p.children {
			if err := s.child(c, pt, n); err != nil {
				return err
			}
		}
		return nil
	}
	ob, err := s.r.buffer(n, 4, "union offsets")
	if err != nil {
		return err
	}
	pt.bufs = append(pt.bufs, s.buf(ob))
	for _, c := range p.children {
		if err := s.child(c, pt, -1); err != nil {
			return err
		}
	}
	var lens [128]int
	for c, ch := range pt.children {
		lens[c] = ch.Len()
	}
	offs := view[int32](ob)[:n]
	if i := firstBadDenseOffset(ids, offs, p.unionChild, &lens); i >= 0 {
		c := p.unionChild[ids[i]]
		return corruptf("union row %d has offset %d into child %d of %d values (rows of a child must not go back)", i, offs[i], c, lens[c])
	}
	return nil
}

// dictionary reads the indices and the dictionary, and checks every index of
// a valid row lies inside the dictionary.
func (s *decodeState) dictionary(p *plan, pt *parts, n int) error {
	b, err := s.r.buffer(n, p.width, "dictionary indices")
	if err != nil {
		return err
	}
	s.untranspose(b, p.width, p.transpose)
	pt.bufs = append(pt.bufs, s.buf(b))
	dict, err := s.node(p.children[0], -1)
	if err != nil {
		return err
	}
	pt.dict = dict
	valid := pt.validity()
	if i := firstBadIndex(b, p.width, p.signed, dict.Len(), valid, 0); i >= 0 {
		return corruptf("dictionary index of row %d is outside the dictionary of %d values", i, dict.Len())
	}
	return nil
}

// runEnds reads the run ends and the values of a run-end encoded array and
// checks that the run ends are positive, strictly increasing and end at n.
func (s *decodeState) runEnds(p *plan, pt *parts, n int) error {
	if err := s.child(p.children[0], pt, -1); err != nil {
		return err
	}
	re := pt.children[0]
	runs := re.Len()
	if re.NullN() != 0 {
		return corruptf("run ends have %d nulls", re.NullN())
	}
	if (runs == 0) != (n == 0) {
		return corruptf("%d runs for %d rows", runs, n)
	}
	ends := re.Buffers()[1].Bytes()
	// Run ends are read as int64 so that 64-bit ones are compared whole on
	// 32-bit platforms too.
	if i := firstBadRunEnd(ends, p.width, 0, runs); i >= 0 {
		return corruptf("run end %d (%d) is not positive or does not exceed the one before", i, runEndAt(ends, p.width, i))
	}
	if runs > 0 {
		if last := runEndAt(ends, p.width, runs-1); last != int64(n) {
			return corruptf("last run ends at %d, the array has %d rows", last, n)
		}
	}
	return s.child(p.children[1], pt, runs)
}

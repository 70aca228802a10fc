package codec

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
)

// dict writes the indices and the dictionary of segs of a dictionary array.
// When every seg has an equal dictionary (the same one, usually: a shuffle
// splits one batch) it is written once and the indices as they are;
// otherwise the dictionaries are unified with arrow-go's unifier and the
// indices rewritten to the unified one. Either way the node is what
// encoding array.Concatenate's result gives.
func (c *encoding) dict(p *plan, segs []seg, n int) {
	dc := resolveDicts(p, segs, n)
	mark := len(c.segs)
	c.w.next = p.hint
	switch {
	case dc.concat:
		c.w.values(dc.indices, p.width, p.transpose)
		for si := range segs {
			s := &segs[si]
			d := s.d.Dictionary()
			c.push(d, d.Offset(), d.Len())
		}
	case dc.dict == nil:
		c.indices(p, segs, n)
		if len(segs) > 0 {
			c.pushDict(p, segs[0].d.Dictionary())
		}
	default:
		c.dicts = append(c.dicts, dc.dict)
		c.w.values(dc.indices, p.width, p.transpose)
		d := dc.dict.Data()
		c.push(d, d.Offset(), d.Len())
	}
	c.child(p.children[0], mark)
}

// resolveDicts decides how the dictionary node of segs is written (see
// dict), checking the indices' buffers on the way.
func resolveDicts(p *plan, segs []seg, n int) dictCat {
	if len(segs) < 2 {
		return dictCat{} // indices checks the seg
	}
	for si := range segs {
		s := &segs[si]
		buffer(s, 1, p.width)
		if dictionaryOf(s.d) == nil {
			invalidf("%s without a dictionary", s.d.DataType())
		}
	}
	if sameDicts(segs) {
		return dictCat{}
	}
	dt := segs[0].d.DataType()
	for dt.ID() == arrow.EXTENSION {
		dt = dt.(arrow.ExtensionType).StorageType()
	}
	t := dt.(*arrow.DictionaryType)
	indices := make([]byte, n*p.width)
	u, err := array.NewDictionaryUnifier(memory.DefaultAllocator, t.ValueType)
	if err != nil {
		// arrow-go unifies dictionaries of primitive, string and binary
		// values only (array.Concatenate fails on the others): lay the
		// dictionaries end to end instead.
		return dictCat{indices: shiftIndices(p, segs, indices), concat: true}
	}
	defer u.Release()
	at := 0
	for si := range segs {
		s := &segs[si]
		d := array.MakeFromData(s.d.Dictionary())
		tb, err := u.UnifyAndTranspose(d)
		d.Release()
		if err != nil {
			panic(encodeError{fmt.Errorf("%w: unifying the batches' dictionaries: %v", ErrUnsupported, err)})
		}
		transposeIndices(p, s, indices[at*p.width:(at+s.n)*p.width], arrow.Int32Traits.CastFromBytes(tb.Bytes()))
		tb.Release()
		at += s.n
	}
	unified, err := u.GetResultWithIndexType(t.IndexType)
	if err != nil {
		panic(encodeError{fmt.Errorf("%w: the batches' dictionaries differ and their union does not fit %s indices: %v", ErrUnsupported, t.IndexType, err)})
	}
	return dictCat{indices: indices, dict: unified}
}

// indices writes the indices of segs, which share one dictionary, checking
// that those of valid rows lie inside it (which checker leaves to the
// writer): as it copies them, or before it transposes them.
func (c *encoding) indices(p *plan, segs []seg, n int) {
	transpose := p.transpose && c.w.xf&flagTranspose != 0
	var dst []byte
	if !transpose {
		dst = c.w.reserve(n * p.width)
	}
	at := 0
	for si := range segs {
		s := &segs[si]
		idx := buffer(s, 1, p.width)
		dict := dictionaryOf(s.d)
		if dict == nil {
			invalidf("%s without a dictionary", s.d.DataType())
		}
		size := dict.Len()
		if dst != nil {
			limit := indexLimit(p.width, p.signed, size)
			if copyMaxIndex(dst[at:], idx, p.width) >= limit && firstBadIndexAbove(idx, p.width, limit, s.bm, s.off) >= 0 {
				late()
			}
		} else if firstBadIndex(idx, p.width, p.signed, size, s.bm, s.off) >= 0 {
			late()
		}
		at += len(idx)
	}
	if transpose {
		c.fixed(segs, n, p.width, p.transpose)
	}
}

// pushDict pushes the seg of all of d, the dictionary of rows of p: with
// the head the checker read of d when it checked it whole, else read now.
func (c *encoding) pushDict(p *plan, d arrow.ArrayData) {
	h := c.checked.head(p, d)
	if h == nil {
		c.push(d, d.Offset(), d.Len())
		return
	}
	s := c.pushed()
	s.d, s.arrayHead = d, *h
	s.setRows(-1, -1)
}

// copyMaxIndex copies indices of width bytes from src to dst and returns
// the largest, read as unsigned.
func copyMaxIndex(dst, src []byte, width int) uint64 {
	switch width {
	case 1:
		return uint64(arrowpack.CopyMaxUint8(dst, src))
	case 2:
		return uint64(arrowpack.CopyMaxUint16(view[uint16](dst), view[uint16](src)))
	case 4:
		return uint64(arrowpack.CopyMaxUint32(view[uint32](dst), view[uint32](src)))
	}
	return arrowpack.CopyMaxUint64(view[uint64](dst), view[uint64](src))
}

// shiftIndices writes into dst the indices of segs into their
// dictionaries laid end to end: each seg's shifted by the lengths of the
// dictionaries before it, and 0 for null rows.
func shiftIndices(p *plan, segs []seg, dst []byte) []byte {
	limit := int64(1)<<(8*p.width-1) - 1
	if !p.signed && p.width < 8 {
		limit = int64(1)<<(8*p.width) - 1
	}
	base, at := int64(0), 0
	for si := range segs {
		s := &segs[si]
		src := buffer(s, 1, p.width)
		bm := s.bm
		dn := int64(s.d.Dictionary().Len())
		for i := range s.n {
			v := int64(0)
			if isValid(bm, s.off+i) {
				if v = dictIndex(src, i, p.width, p.signed); v < 0 || v >= dn {
					late()
				}
				if v += base; v > limit {
					unsupportedf("the batches' dictionaries together hold more values than %s indices reach", s.d.DataType())
				}
			}
			putUint(dst, at+i, p.width, uint64(v))
		}
		base += dn
		at += s.n
	}
	return dst
}

// sameDicts reports whether every seg's dictionary equals the first's, the
// test array.Concatenate makes (the same ArrayData passes at once).
func sameDicts(segs []seg) bool {
	d0 := segs[0].d.Dictionary()
	var a0 arrow.Array
	defer func() {
		if a0 != nil {
			a0.Release()
		}
	}()
	for si := range segs[1:] {
		s := &segs[1:][si]
		d := s.d.Dictionary()
		if d == d0 {
			continue
		}
		if a0 == nil {
			a0 = array.MakeFromData(d0)
		}
		a := array.MakeFromData(d)
		eq := array.Equal(a0, a)
		a.Release()
		if !eq {
			return false
		}
	}
	return true
}

// transposeIndices writes the indices of s's rows into dst mapped through
// tr, and 0 for null rows, as array.Concatenate does.
func transposeIndices(p *plan, s *seg, dst []byte, tr []int32) {
	src := buffer(s, 1, p.width)
	bm := s.bm
	for i := range s.n {
		if !isValid(bm, s.off+i) {
			putUint(dst, i, p.width, 0)
			continue
		}
		v := dictIndex(src, i, p.width, p.signed)
		if v < 0 || v >= int64(len(tr)) {
			late()
		}
		putUint(dst, i, p.width, uint64(tr[v]))
	}
}

func dictIndex(b []byte, i, width int, signed bool) int64 {
	switch width {
	case 1:
		if signed {
			return int64(int8(b[i]))
		}
		return int64(b[i])
	case 2:
		v := binary.LittleEndian.Uint16(b[2*i:])
		if signed {
			return int64(int16(v))
		}
		return int64(v)
	case 4:
		v := binary.LittleEndian.Uint32(b[4*i:])
		if signed {
			return int64(int32(v))
		}
		return int64(v)
	default:
		return int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// putUint stores value i of b, of width bytes (1, 2, 4 or 8), as v cut to
// that width: dictionary indices and run ends.
func putUint(b []byte, i, width int, v uint64) {
	switch width {
	case 1:
		b[i] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
}

// dictCat is how the dictionary node of several segs is written: with
// indices nil, the dictionary of the first seg and the indices as they are
// (every seg has an equal dictionary); otherwise the unified dictionary dict
// and the indices rewritten to it, or (concat) every seg's dictionary and
// the indices shifted to match.
type dictCat struct {
	indices []byte
	dict    arrow.Array
	concat  bool // dictionaries arrow-go cannot unify: every seg's, end to end
}

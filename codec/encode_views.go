package codec

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
)

// Encoding string and binary views and list views.

// views writes the views of the rows of segs and one data buffer holding
// just the out-of-line bytes they reference, in row order. Views of null
// rows are written as empty inline views, and inline views zero-padded.
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
	c.w.reserve(n * arrow.ViewHeaderSizeBytes)
	viewsAt := c.w.pos - pad8(n*arrow.ViewHeaderSizeBytes)
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
	dstViews := c.w.at(viewsAt, n*arrow.ViewHeaderSizeBytes)
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
				clear(v[4+l:]) // the padding of inline views is zero in a block
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
		ch := s.d.Children()[0]
		if !first && (lo < 0 || int64(hi) > int64(ch.Len())) {
			invalidf("%s: list views reference child elements %d to %d of %d", s.d.DataType(), lo, hi, ch.Len())
		}
		c.push(ch, ch.Offset()+int(lo), int(hi-lo))
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

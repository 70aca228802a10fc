package codec

import "math"

// Encoding dense unions.

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

package codec

// Encoding run-end encoded arrays.

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
				putUint(dst, at+i, p.width, uint64(min(ends.at(first+i)-int64(s.off), int64(s.n))+int64(acc)))
			}
		}
		if first+k > vals.Len() {
			invalidf("%s: %d runs and %d values", s.d.DataType(), re.Len(), vals.Len())
		}
		c.push(vals, vals.Offset()+first, k)
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

// at returns run end i, as an int64 on every platform.
func (r runEndReader) at(i int) int64 {
	return runEndAt(r.b, r.width, i+r.off)
}

// search returns the first of the n runs whose end is at least v.
func (r runEndReader) search(n, v int) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.at(m) < int64(v) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

package codec

import "unsafe"

// The gather path of flat columns: the rows of a range are first sorted
// by partition (sortRows, once for all columns), then each partition's
// values are read from the batch and written one after another to its
// pending buffers. Where the scatter keeps one write stream open per
// partition, and so misses the caches and the TLB once there are more
// partitions than they hold, the gather fills one partition's buffer at a
// time; its reads stay within one column of the range.

// gathers reports whether the flat columns of a range of m rows are
// gathered: with at least gatherFrom partitions, the scatter's streams
// no longer fit the caches, and with at least gatherRows rows per
// partition, a partition's values fill whole cache lines one after
// another; with fewer, the gather's work per partition costs more than
// the scatter's misses. BenchmarkPartition's scatter and gather rows
// measure both ways.
func (pt *Partitioner) gathers(m int) bool {
	if pt.path != 0 {
		return pt.path > 0
	}
	return pt.n >= gatherFrom && m >= gatherRows*pt.n
}

const gatherFrom, gatherRows = 64, 16

// sortRows sets pt.idx to the rows of the range (positions in parts)
// sorted by partition, stable, and pt.starts[q] to the end of partition
// q's rows in it (and the start of q+1's); cnt[q] counts q's rows.
func (pt *Partitioner) sortRows(parts []uint32, cnt []int32) {
	starts := pt.starts[:pt.n+1]
	starts[0] = 0
	for q, c := range cnt {
		starts[q+1] = starts[q] + c
	}
	if cap(pt.idx) < len(parts) {
		pt.idx = make([]int32, len(parts))
	}
	idx := pt.idx[:len(parts)]
	for i, q := range parts {
		idx[starts[q]] = int32(i)
		starts[q]++
	}
}

// rowsOf returns partition q's rows of the range sorted by sortRows.
func (pt *Partitioner) rowsOf(q int) []int32 {
	lo := int32(0)
	if q > 0 {
		lo = pt.starts[q-1]
	}
	return pt.idx[lo:pt.starts[q]]
}

// gatherFlat is scatterFlat's second half on the gather path: it writes
// the rows of each partition of cnt, from at on in s's buffers, at the
// cursors scatterFlat set (not through the pends, which lie apart), and
// counts their set validity bits in ss.ones.
func (pt *Partitioner) gatherFlat(i int, s *src, at, m int, cnt []int32, bits bool) {
	p, ss := pt.enc.plans[i], &pt.ss
	for q, c := range cnt {
		if c == 0 {
			continue
		}
		rows, n := pt.rowsOf(q), int(c)
		if bits {
			ss.ones[q] = int32(gatherBits(ss.bits[q].bytes(n), ss.bits[q].at, s.vb, at, rows))
		}
		switch p.kind {
		case kBool:
			gatherBits(ss.vals[q].bytes(n), ss.vals[q].at, s.b1, at, rows)
		case kFixed, kDict:
			gatherFixed(unsafe.Slice((*byte)(ss.next[q]), n*p.width), s.b1[at*p.width:(at+m)*p.width], rows, p.width)
		case kBinary:
			gatherValues(ss.vals[q], ss.offs[q], int(ss.total[q]), s.b2, view[int32](s.b1)[at:at+m+1], rows)
		case kLargeBinary:
			gatherValues(ss.vals[q], ss.offs[q], int(ss.total[q]), s.b2, view[int64](s.b1)[at:at+m+1], rows)
		}
	}
}

// gatherValues writes the values rows of the binary array of offsets o
// and data src, total bytes in all, at data cursor d and their end
// offsets at offsets cursor k.
func gatherValues[T int32 | int64](d, k cursor, total int, src []byte, o []T, rows []int32) {
	var w T
	copyValues(unsafe.Slice((*byte)(unsafe.Add(d.base, d.at)), total+wordSlack), src, o, rows, T(d.at),
		unsafe.Slice((*T)(unsafe.Add(k.base, int(unsafe.Sizeof(w))*k.at)), len(rows)))
}

// bytes returns the bytes of bit cursor c's buffer up to n bits past c.
func (c cursor) bytes(n int) []byte {
	return unsafe.Slice((*byte)(c.base), (c.at+n+7)/8)
}

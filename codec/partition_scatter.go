package codec

import (
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack"
)

// The column-major scatter of flat columns (no children): one pass over a
// column's rows sends each value straight to the end of its partition's
// pending buffer, so that the work is one store a value and a few
// instructions a partition, not a call per partition and column.

// flatKind reports whether the columns of plan p are scattered
// column-major: top-level nulls, bits, fixed-width values, dictionary
// indices, and strings or binary.
func flatKind(p *plan) bool {
	switch p.kind {
	case kNull, kBool, kFixed, kDict, kBinary, kLargeBinary:
		return true
	}
	return false
}

// cursor is where the next value of one partition goes: at bytes (or
// bits) from base, the start of a buffer grown beforehand to hold them.
type cursor struct {
	base unsafe.Pointer
	at   int
}

// scatterScratch holds a flat column's per-partition cursors and tallies
// for one range of rows, reused from column to column.
type scatterScratch struct {
	vals, bits, offs []cursor
	next             []unsafe.Pointer // kFixed, kDict: where the next value goes
	total            []int64          // kBinary, kLargeBinary: bytes per partition
	ones             []int32          // set validity bits per partition
}

func (ss *scatterScratch) size(p int) {
	if len(ss.vals) < p {
		ss.vals, ss.bits, ss.offs = make([]cursor, p), make([]cursor, p), make([]cursor, p)
		ss.next = make([]unsafe.Pointer, p)
		ss.total, ss.ones = make([]int64, p), make([]int32, p)
	}
}

// part returns partition q, its slices made.
func (pt *Partitioner) part(q int) *partition {
	pa := &pt.parts[q]
	if !pa.alive {
		pa.live = make([]*pend, len(pt.enc.plans))
		pa.segs = make([][]piece, len(pt.enc.plans))
		pa.alive = true
	}
	return pa
}

// pendChunk is how many partitions' pends of one column are allocated
// together: a column's pends lie side by side, so that a pass over the
// partitions reads them in order, and only the chunks that get rows are
// made.
const pendChunk = 256

// pendOf returns partition q's pend of column i, making it.
func (pt *Partitioner) pendOf(q, i int) *pend {
	chunks := pt.pends[i]
	if chunks == nil {
		chunks = make([][]pend, (pt.n+pendChunk-1)/pendChunk)
		pt.pends[i] = chunks
	}
	ch := chunks[q/pendChunk]
	if ch == nil {
		ch = make([]pend, min(pendChunk, pt.n-q/pendChunk*pendChunk))
		chunks[q/pendChunk] = ch
	}
	pd := &ch[q%pendChunk]
	if pd.p == nil {
		// New, or emptied with its partition under a memory limit.
		pd.init(pt.enc.plans[i])
		pt.part(q).live[i] = pd
	}
	return pd
}

// scatterFlat appends rows [first, first+len(parts)) of flat column i, of
// data d, to their partitions; cnt[q] is how many of them go to q, and
// all go to partition one when it is not -1. It adds to add[q] the bytes
// partition q's block grows by and to mem[q] the capacity its buffers
// grow by.
func (pt *Partitioner) scatterFlat(i int, d arrow.ArrayData, parts []uint32, first int, cnt []int32, add, mem []int, one int) {
	p, s, ss := pt.enc.plans[i], pt.srcs[i], &pt.ss
	at := d.Offset() + first // the rows' first position in the buffers
	m := len(parts)
	if p.kind == kBinary {
		tallyLengths(ss.total, view[int32](s.b1)[at:at+m+1], parts)
	} else if p.kind == kLargeBinary {
		tallyLengths(ss.total, view[int64](s.b1)[at:at+m+1], parts)
	}
	bits := s.vb != nil && p.kind != kNull
	for q, c := range cnt {
		if c == 0 {
			continue
		}
		pd := pt.pendOf(q, i)
		h0 := pd.held()
		n := int(c)
		if p.kind == kDict && pd.n == 0 {
			if pd.dict != nil {
				pd.dict.Release()
			}
			pd.dict = d.Dictionary()
			pd.dict.Retain()
		}
		switch {
		case p.kind == kNull:
			pd.nulls += n
		case bits:
			if !pd.bitmap {
				pd.valid, pd.bitmap = growBits(pd.valid[:0], pd.n+n), true
				arrowpack.SetBitsAt(pd.valid, 0, pd.n)
			} else {
				pd.valid = growBits(pd.valid, pd.n+n)
			}
			ss.bits[q] = cursor{unsafe.Pointer(unsafe.SliceData(pd.valid)), pd.n}
			ss.ones[q] = 0
			add[q] += n / 8
		case pd.bitmap:
			pd.valid = growBits(pd.valid, pd.n+n)
			arrowpack.SetBitsAt(pd.valid, pd.n, n)
		}
		switch p.kind {
		case kBool:
			pd.vals = growBits(pd.vals, pd.n+n)
			ss.vals[q] = cursor{unsafe.Pointer(unsafe.SliceData(pd.vals)), pd.n}
			add[q] += n / 8
		case kFixed, kDict:
			l := len(pd.vals)
			pd.vals = grow(pd.vals, n*p.width+fixedSlack)[:l+n*p.width]
			ss.vals[q] = cursor{unsafe.Pointer(unsafe.SliceData(pd.vals)), l}
			ss.next[q] = unsafe.Pointer(&pd.vals[l])
			add[q] += n * p.width
		case kBinary:
			pd.data, pd.off32 = growBinary(pd.data, pd.off32, ss.total[q], n, ss, q)
			add[q] += int(ss.total[q]) + 4*n
		case kLargeBinary:
			pd.data, pd.off64 = growBinary(pd.data, pd.off64, ss.total[q], n, ss, q)
			add[q] += int(ss.total[q]) + 8*n
		}
		pd.n += n
		mem[q] += pd.held() - h0
	}
	if one >= 0 {
		pt.copyRun(pt.parts[one].live[i], s, at, m, one)
		return
	}
	if pt.gather {
		pt.gatherFlat(i, s, at, m, cnt, bits)
	} else {
		pt.scatterRows(p, s, at, m, parts, bits)
	}
	if bits {
		for q, c := range cnt {
			if c != 0 {
				pt.parts[q].live[i].nulls += int(c - ss.ones[q])
			}
		}
	}
}

// scatterRows is scatterFlat's second half on the scatter path: it
// sends rows [at, at+m) of s, row by row, to the cursors scatterFlat set
// for their partitions parts, and counts the set validity bits of each
// partition in ss.ones.
func (pt *Partitioner) scatterRows(p *plan, s *src, at, m int, parts []uint32, bits bool) {
	ss := &pt.ss
	if bits {
		scatterBits(ss.bits, ss.ones, s.vb, at, parts)
	}
	switch p.kind {
	case kBool:
		scatterBits(ss.vals, ss.ones[:0], s.b1, at, parts)
	case kFixed, kDict:
		scatterFixed(ss.next, s.b1[at*p.width:(at+m)*p.width], parts, p.width)
	case kBinary:
		scatterValues(ss.vals, ss.offs, s.b2, view[int32](s.b1)[at:at+m+1], parts)
	case kLargeBinary:
		scatterValues(ss.vals, ss.offs, s.b2, view[int64](s.b1)[at:at+m+1], parts)
	}
}

// copyRun appends rows [at, at+m) of s, all of partition q, to pd, whose
// buffers scatterFlat has grown and whose cursors it has set: whole runs
// copied by the kernels rather than value by value.
func (pt *Partitioner) copyRun(pd *pend, s *src, at, m, q int) {
	ss := &pt.ss
	if s.vb != nil && pd.p.kind != kNull {
		arrowpack.CopyBitsAt(pd.valid, ss.bits[q].at, s.vb, at, m)
		pd.nulls += m - arrowpack.CountOnes(s.vb, at, m)
	}
	switch p := pd.p; p.kind {
	case kBool:
		arrowpack.CopyBitsAt(pd.vals, ss.vals[q].at, s.b1, at, m)
	case kFixed, kDict:
		copy(pd.vals[ss.vals[q].at:], s.b1[at*p.width:(at+m)*p.width])
	case kBinary:
		copyRunValues(pd.data, pd.off32, s.b2, view[int32](s.b1)[at:at+m+1], ss.vals[q].at, ss.offs[q].at)
	case kLargeBinary:
		copyRunValues(pd.data, pd.off64, s.b2, view[int64](s.b1)[at:at+m+1], ss.vals[q].at, ss.offs[q].at)
	}
}

// copyRunValues copies the values of the binary array of offsets o (m+1
// of them) and data src to data from byte w on, and their ends to offs
// from k on.
func copyRunValues[T int32 | int64](data []byte, offs []T, src []byte, o []T, w, k int) {
	copy(data[w:], src[o[0]:o[len(o)-1]])
	rebaseOffsets(offs[k:], o[1:], o[0]-T(w))
}

// tallyLengths sets total[q] to the bytes of the values of o (m+1 offsets
// of m values) that go to each partition q.
func tallyLengths[T int32 | int64](total []int64, o []T, parts []uint32) {
	clear(total)
	o = o[:len(parts)+1]
	for r, q := range parts {
		total[q] += int64(o[r+1] - o[r])
	}
}

// wordSlack is the room past its end a pending data buffer keeps, so that
// a short value is copied as one word.
const wordSlack = 8

// growBinary grows data by total bytes and offs by n offsets, and points
// partition q's cursors at their ends.
func growBinary[T int32 | int64](data []byte, offs []T, total int64, n int, ss *scatterScratch, q int) ([]byte, []T) {
	l := len(data)
	data = grow(data, int(total)+wordSlack)[:l+int(total)]
	k := len(offs)
	// Not append(offs, make([]T, n)...), which clears what
	// scatterValues overwrites whole.
	offs = slices.Grow(offs, n)[:k+n]
	ss.vals[q] = cursor{unsafe.Pointer(unsafe.SliceData(data)), l}
	ss.offs[q] = cursor{unsafe.Pointer(unsafe.SliceData(offs)), k}
	return data, offs
}

// scatterBits copies bit at+r of src to the next bit of partition
// parts[r]'s cursor, for every r, and counts the set ones per partition
// when ones is not empty. The destination bits are clear.
func scatterBits(cur []cursor, ones []int32, src []byte, at int, parts []uint32) {
	count := len(ones) != 0
	for r, q := range parts {
		i := at + r
		b := src[i>>3] >> (i & 7) & 1
		c := &cur[q]
		*(*byte)(unsafe.Add(c.base, c.at>>3)) |= b << (c.at & 7)
		c.at++
		if count {
			ones[q] += int32(b)
		}
	}
}

// fixedSlack is the room past its end a pending buffer of fixed-width
// values keeps, so that a pointer just past a partition's last value
// still points into the buffer.
const fixedSlack = 8

// scatterFixed copies the values of src, of width bytes each, to where
// their partitions' next values go, advancing next.
func scatterFixed(next []unsafe.Pointer, src []byte, parts []uint32, width int) {
	switch width {
	case 1:
		scatterWords(next, src, parts)
	case 2:
		scatterWords(next, view[uint16](src), parts)
	case 4:
		scatterWords(next, view[uint32](src), parts)
	case 8:
		scatterWords(next, view[uint64](src), parts)
	case 16:
		v := view[uint64](src)[:2*len(parts)]
		for r, q := range parts {
			p := next[q]
			d := (*[2]uint64)(p)
			d[0], d[1] = v[2*r], v[2*r+1]
			next[q] = unsafe.Add(p, 16)
		}
	default:
		for r, q := range parts {
			p := next[q]
			copy(unsafe.Slice((*byte)(p), width), src[r*width:(r+1)*width])
			next[q] = unsafe.Add(p, width)
		}
	}
}

func scatterWords[T uint8 | uint16 | uint32 | uint64](next []unsafe.Pointer, src []T, parts []uint32) {
	src = src[:len(parts)]
	for r, q := range parts {
		p := next[q]
		*(*T)(p) = src[r]
		next[q] = unsafe.Add(p, unsafe.Sizeof(src[r]))
	}
}

// scatterValues copies the values of the binary array of offsets o and
// data src to their partitions' data cursors, and writes each value's end
// at its partition's offsets cursor.
func scatterValues[T int32 | int64](data, offs []cursor, src []byte, o []T, parts []uint32) {
	o = o[:len(parts)+1]
	for r, q := range parts {
		lo, hi := int(o[r]), int(o[r+1])
		c := &data[q]
		dst := unsafe.Add(c.base, c.at)
		if n := hi - lo; n <= 8 && lo+8 <= len(src) {
			// Short values, most of them: one word's copy (the
			// buffer keeps wordSlack bytes past its end), not a call.
			*(*[8]byte)(dst) = [8]byte(src[lo : lo+8])
		} else {
			copy(unsafe.Slice((*byte)(dst), n), src[lo:hi])
		}
		c.at += hi - lo
		oc := &offs[q]
		*(*T)(unsafe.Add(oc.base, oc.at*int(unsafe.Sizeof(o[0])))) = T(c.at)
		oc.at++
	}
}

// rebaseOffsets sets dst[i] = src[i] - base with the kernel of T's width.
func rebaseOffsets[T int32 | int64](dst, src []T, base T) {
	switch d := any(dst).(type) {
	case []int32:
		arrowpack.RebaseOffsets32(d, any(src).([]int32), int32(base))
	case []int64:
		arrowpack.RebaseOffsets64(d, any(src).([]int64), int64(base))
	}
}

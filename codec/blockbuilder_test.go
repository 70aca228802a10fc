package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack/internal/plain"
)

// blockBuilder writes a block field by field, following the grammar of
// FORMAT.md for a schema it knows, drawing every length, offset, id and flag
// from a choices source. Most draws give what the format says; some (as
// often as the source's rate says) give a hostile value instead: off by one,
// huge, negative, out of range, going back, overlapping, nulls where none
// may be. It records each hostile choice it makes: as bad when the format
// says a decoder must refuse the block, as odd when the block may still be
// sound (a decoder may accept or refuse it; if it accepts, the batch must
// validate, but it need not re-encode to the same bytes).
//
// A block built without any hostile choice is canonical: it decodes, and
// the Encoder writes the decoded batch back to the same bytes.
type blockBuilder struct {
	c      *choices
	body   []byte
	xf     flags // the transforms the body's buffers went through
	budget int   // values nested arrays may still take, so that blocks stay small
	bad    []string
	odd    []string
	kinds  map[kind]int // nodes written per kind, for coverage
	cut    bool         // the body lost its last word ("body cut short by a word")
}

// maxBuilderValues bounds the values of the nested arrays of one block.
const maxBuilderValues = 4096

func newBlockBuilder(c *choices, xf flags) *blockBuilder {
	return &blockBuilder{c: c, xf: xf, budget: maxBuilderValues, kinds: map[kind]int{}}
}

func (b *blockBuilder) markBad(format string, args ...any) {
	b.bad = append(b.bad, fmt.Sprintf(format, args...))
}

func (b *blockBuilder) markOdd(format string, args ...any) {
	b.odd = append(b.odd, fmt.Sprintf(format, args...))
}

// canonical reports whether no hostile choice was made.
func (b *blockBuilder) canonical() bool { return len(b.bad) == 0 && len(b.odd) == 0 }

func (b *blockBuilder) word(v uint64) {
	b.body = binary.LittleEndian.AppendUint64(b.body, v)
}

// buffer writes data as a buffer: its length, the bytes, zero padding.
func (b *blockBuilder) buffer(data []byte) {
	b.word(uint64(len(data)))
	b.body = append(b.body, data...)
	pad := pad8(len(data)) - len(data)
	if pad > 0 && b.c.hostile(1) == 0 {
		b.markOdd("nonzero padding")
		b.body = append(b.body, slices.Repeat([]byte{0xa5}, pad)...)
		return
	}
	b.body = append(b.body, make([]byte, pad)...)
}

// take returns how many of k values the budget still allows, and takes them.
func (b *blockBuilder) take(k int) int {
	k = max(0, min(k, b.budget))
	b.budget -= k
	return k
}

// rows draws a row count: mostly small, sometimes up to a few hundred.
func (b *blockBuilder) rows() int {
	switch b.c.intn(8) {
	case 0:
		return b.c.intn(300)
	case 1, 2:
		return b.c.intn(64)
	}
	return b.c.intn(9)
}

// lengthWord writes a node's length word for n rows.
func (b *blockBuilder) lengthWord(n int) {
	switch b.c.hostile(5) {
	case 0:
		b.markOdd("node length %d written as %d", n, n+1)
		b.word(uint64(n + 1))
	case 1:
		if n > 0 {
			b.markOdd("node length %d written as %d", n, n-1)
			b.word(uint64(n - 1))
			return
		}
		b.word(uint64(n))
	case 2:
		b.markBad("node length 2^31")
		b.word(1 << 31)
	case 3:
		b.markBad("node length 2^64-1")
		b.word(^uint64(0))
	case 4:
		b.markOdd("node length 2^31-1")
		b.word(1<<31 - 1)
	default:
		b.word(uint64(n))
	}
}

// forbid names why a node may hold no nulls ("" when it may).
type forbid string

const (
	mayBeNull    forbid = ""
	mapKeys      forbid = "map keys"
	mapEntries   forbid = "map entries"
	runEndValues forbid = "run ends"
)

// validity writes the validity buffer of n rows and returns which rows are
// valid (nil: all of them). Canonical blocks write no bitmap when no row is
// null, and zero bits past n.
func (b *blockBuilder) validity(n int, nullable bool, nn forbid) []bool {
	var valid []bool
	if n > 0 && nullable && nn == mayBeNull && b.c.intn(3) == 0 {
		valid = make([]bool, n)
		allNull := b.c.oneIn(4)
		for i := range valid {
			valid[i] = !allNull && b.c.intn(4) != 0
		}
		if !slices.Contains(valid, false) {
			valid = nil
		}
	}
	h := b.c.hostile(5)
	switch {
	case h == 0 && n > 0 && valid == nil:
		b.markOdd("all-valid bitmap")
		b.buffer(bitmapOf(nil, n))
		return nil
	case h == 1 && valid != nil && n%8 != 0:
		b.markOdd("bitmap bits set past the last row")
		bm := bitmap(valid)
		bm[len(bm)-1] |= 0xff << (n % 8)
		b.buffer(bm)
		return valid
	case h == 2:
		b.markBad("bitmap of %d bytes for %d rows", (n+7)/8+1, n)
		b.buffer(append(bitmapOf(valid, n), 0xff))
		return valid
	case h == 3 && n > 8:
		b.markBad("bitmap of %d bytes for %d rows", (n+7)/8-1, n)
		b.buffer(bitmapOf(valid, n)[:(n+7)/8-1])
		return valid
	case h == 4 && n > 0 && nn != mayBeNull:
		b.markBad("a null in %s", nn)
		valid = make([]bool, n)
		for i := range valid {
			valid[i] = i != n-1
		}
		b.buffer(bitmap(valid))
		return valid
	}
	if valid == nil {
		b.buffer(nil)
		return nil
	}
	b.buffer(bitmap(valid))
	return valid
}

// bitmap packs valid (nil: all valid, an empty bitmap) LSB first.
func bitmap(valid []bool) []byte {
	bm := make([]byte, (len(valid)+7)/8)
	for i, v := range valid {
		if v {
			bm[i/8] |= 1 << (i % 8)
		}
	}
	return bm
}

// bitmapOf is bitmap, with nil standing for n valid rows.
func bitmapOf(valid []bool, n int) []byte {
	if valid == nil {
		valid = slices.Repeat([]bool{true}, n)
	}
	return bitmap(valid)
}

func isNull(valid []bool, i int) bool { return valid != nil && !valid[i] }

// node writes a node of plan p for field f with n rows.
func (b *blockBuilder) node(p *plan, f arrow.Field, n int, nn forbid) {
	b.kinds[p.kind]++
	b.lengthWord(n)
	var valid []bool
	if hasValidity(p.kind) {
		valid = b.validity(n, f.Nullable, nn)
	}
	fields := childFields(p.dt)
	switch p.kind {
	case kNull:
	case kBool:
		bm := bitmap(b.c.bools(n))
		switch b.c.hostile(2) {
		case 0:
			if n%8 != 0 {
				b.markOdd("boolean bits set past the last row")
				bm[len(bm)-1] |= 0xff << (n % 8)
			}
		case 1:
			b.markBad("boolean values of %d bytes for %d rows", len(bm)+1, n)
			bm = append(bm, 1)
		}
		b.buffer(bm)
	case kFixed:
		vals := b.c.bytes(n * p.width)
		if b.c.hostile(1) == 0 {
			b.markBad("%d bytes of values for %d values of %d bytes", len(vals)+1, n, p.width)
			vals = append(vals, 7)
		}
		b.values(vals, p.width, p.transpose)
	case kBinary, kLargeBinary:
		b.varBinary(p, n, valid)
	case kView:
		b.views(p, n, valid)
	case kList, kLargeList:
		sizes := make([]int, n)
		for i := range sizes {
			if !isNull(valid, i) || b.c.oneIn(8) {
				sizes[i] = b.take(b.c.intn(5))
			}
		}
		bad := len(b.bad)
		total := b.offsets(sizes, p.kind == kLargeList)
		if len(b.bad) == bad {
			// A longer child could make up for a last offset one past
			// the end: skew it only under sound offsets.
			total += b.childSkew()
		}
		if _, isMap := layoutType(p.dt).(*arrow.MapType); isMap {
			b.entries(p.children[0], total)
			return
		}
		b.node(p.children[0], fields[0], total, mayBeNull)
	case kFixedList:
		b.node(p.children[0], fields[0], n*p.width+b.childSkew(), mayBeNull)
	case kListView, kLargeListView:
		b.listView(p, fields[0], n)
	case kStruct:
		skewed := -1
		if len(p.children) > 0 && b.c.hostile(1) == 0 {
			skewed = b.c.intn(len(p.children))
			b.markBad("struct child %d of %d rows under %d", skewed, n+1, n)
		}
		for i, c := range p.children {
			m := n
			if i == skewed {
				m++
			}
			b.node(c, fields[i], m, mayBeNull)
		}
	case kSparseUnion, kDenseUnion:
		b.union(p, fields, n)
	case kDict:
		b.dictionary(p, fields[0], n, valid)
	case kRunEnd:
		b.runEnds(p, fields, n)
	default:
		panic("blockBuilder: unknown kind " + p.kind.String())
	}
}

// childSkew is 0, or (hostile) 1: a child node one row longer than its
// parent says.
func (b *blockBuilder) childSkew() int {
	if b.c.hostile(1) == 0 {
		b.markBad("child node one row longer than its parent says")
		return 1
	}
	return 0
}

func layoutType(dt arrow.DataType) arrow.DataType {
	for dt.ID() == arrow.EXTENSION {
		dt = dt.(arrow.ExtensionType).StorageType()
	}
	return dt
}

// entries writes a map's entries: a struct of keys and items with no nulls
// at its level or in the keys.
func (b *blockBuilder) entries(p *plan, n int) {
	b.kinds[p.kind]++
	b.lengthWord(n)
	b.validity(n, false, mapEntries)
	fields := childFields(p.dt)
	b.node(p.children[0], fields[0], n, mapKeys)
	b.node(p.children[1], fields[1], n, mayBeNull)
}

// values writes a buffer of fixed-width values, byte-transposed when the
// block's flags say so for this buffer.
func (b *blockBuilder) values(vals []byte, width int, transpose bool) {
	if transpose && b.xf&flagTranspose != 0 && len(vals)%width == 0 {
		vals = plain.Transpose(vals, width)
	}
	b.buffer(vals)
}

// bools draws n booleans.
func (c *choices) bools(n int) []bool {
	v := make([]bool, n)
	for i := range v {
		v[i] = c.intn(2) == 1
	}
	return v
}

// offsets writes the offsets buffer (or, with flagLengths, a 0 then the
// lengths) of values of the given sizes, possibly hostile, and returns their
// total.
func (b *blockBuilder) offsets(sizes []int, large bool) int {
	offs := make([]int64, len(sizes)+1)
	for i, s := range sizes {
		offs[i+1] = offs[i] + int64(s)
	}
	total := int(offs[len(sizes)])
	n := len(sizes)
	lengths := b.xf&flagLengths != 0
	maxOff := int64(1<<31 - 1)
	if large {
		maxOff = 1<<63 - 1
	}
	overflow := false
	switch b.c.hostile(7) {
	case 6:
		if lengths && n >= 2 {
			b.markBad("value lengths adding up past the largest offset")
			overflow = true
		}
	case 0:
		if lengths {
			b.markOdd("nonzero word before the lengths")
		} else {
			b.markBad("offsets start at 1")
		}
		for i := range offs {
			offs[i]++
		}
	case 1:
		if n >= 2 {
			k := 1 + b.c.intn(n-1)
			b.markBad("offset %d above the next", k)
			offs[k] = offs[k+1] + 1
		}
	case 2:
		// With flagLengths and no values, offs[n] is the word before
		// the lengths, which decoders need not check.
		if lengths && n == 0 {
			b.markOdd("nonzero word before no lengths")
		} else {
			b.markBad("last offset one past the end")
		}
		offs[n]++
	case 3:
		if total > 0 {
			b.markBad("last offset one short of the end")
			offs[n]--
		}
	case 4:
		if lengths && n == 0 {
			b.markOdd("nonzero word before no lengths")
		} else {
			b.markBad("huge last offset")
		}
		offs[n] = maxOff
	case 5:
		if n >= 2 {
			b.markBad("negative offset")
			offs[1] = -1 - int64(b.c.intn(1000))
		}
	}
	width := 4
	if large {
		width = 8
	}
	buf := make([]byte, width*(n+1))
	for i, o := range offs {
		v := o
		if lengths && i > 0 {
			v = o - offs[i-1]
		} else if lengths {
			v = o // the word before the lengths: 0 unless hostile
		}
		putUint(buf, i, width, uint64(v))
	}
	if overflow {
		// Two lengths of half the largest offset and more.
		half := uint64(maxOff/2 + 1)
		putUint(buf, 1, width, half)
		putUint(buf, 2, width, half)
	}
	b.buffer(buf)
	return total
}

// text draws one value of a string (UTF-8, when utf8 is set) or binary
// array, of up to about max bytes.
func (b *blockBuilder) text(utf8 bool, maxLen int) []byte {
	n := b.take(b.c.intn(maxLen + 1))
	if !utf8 {
		return b.c.bytes(n)
	}
	chars := []string{"a", "b", "z", "0", " ", "é", "€", "𝄞", "ß"}
	var out []byte
	for len(out) < n {
		out = append(out, chars[b.c.intn(len(chars))]...)
	}
	return out
}

// varBinary writes the offsets and data of n binary or string values.
func (b *blockBuilder) varBinary(p *plan, n int, valid []bool) {
	vals := make([][]byte, n)
	for i := range vals {
		vals[i] = b.text(p.utf8, 10)
	}
	split := false
	switch b.c.hostile(2) {
	case 0:
		if p.utf8 && n >= 2 {
			b.markBad("a string starts inside a UTF-8 character")
			vals[0], vals[1] = []byte("é"), []byte("a")
			split = true
		}
	case 1:
		if p.utf8 && n >= 1 {
			b.markBad("string data not UTF-8")
			vals[n-1] = append(vals[n-1], 0xff)
		}
	}
	sizes := make([]int, n)
	var data []byte
	for i, v := range vals {
		sizes[i] = len(v)
		data = append(data, v...)
	}
	if split {
		sizes[0], sizes[1] = 1, 2
	}
	_ = valid
	b.offsets(sizes, p.kind == kLargeBinary)
	b.buffer(data)
}

// views writes n views and their data buffers: canonically one buffer of
// the out-of-line values in row order (none when all are inline), and
// empty views for null rows.
func (b *blockBuilder) views(p *plan, n int, valid []bool) {
	h := b.c.hostile(12)
	views := make([]byte, 16*n)
	var data []byte
	var outOfLine []int // rows whose value is out of line
	vals := make([][]byte, n)
	for i := range n {
		if isNull(valid, i) {
			continue
		}
		vals[i] = b.text(p.utf8, 30)
		v := views[16*i : 16*i+16]
		binary.LittleEndian.PutUint32(v, uint32(len(vals[i])))
		if len(vals[i]) <= arrow.ViewPrefixLen+8 {
			copy(v[4:], vals[i])
			continue
		}
		copy(v[4:8], vals[i])
		binary.LittleEndian.PutUint32(v[12:], uint32(len(data)))
		data = append(data, vals[i]...)
		outOfLine = append(outOfLine, i)
	}
	nbuf := 0
	if len(data) > 0 {
		nbuf = 1
	}
	bufs := [][]byte{data}
	pick := func(rows []int) int { return rows[b.c.intn(len(rows))] }
	var inline, nulls []int
	for i := range n {
		switch {
		case isNull(valid, i):
			nulls = append(nulls, i)
		case len(vals[i]) < arrow.ViewPrefixLen+8:
			inline = append(inline, i)
		}
	}
	switch {
	case h == 0 && len(inline) > 0:
		b.markBad("inline view not zero-padded")
		views[16*pick(inline)+15] = 1
	case h == 1 && n > 0:
		b.markBad("view of negative length")
		i := b.c.intn(n)
		clear(views[16*i : 16*i+16])
		binary.LittleEndian.PutUint32(views[16*i:], 0x80000000|uint32(b.c.intn(256)))
	case h == 2 && len(outOfLine) > 0:
		b.markBad("view into a data buffer that is not there")
		binary.LittleEndian.PutUint32(views[16*pick(outOfLine)+8:], uint32(nbuf+b.c.intn(3)))
	case h == 3 && len(outOfLine) > 0:
		b.markBad("view past the end of its data buffer")
		i := pick(outOfLine)
		binary.LittleEndian.PutUint32(views[16*i+12:], uint32(len(data)-len(vals[i])+1))
	case h == 4 && len(outOfLine) > 0:
		b.markBad("view prefix differs from its data")
		views[16*pick(outOfLine)+4] ^= 0x20
	case h == 5 && len(outOfLine) > 0:
		// Every out-of-line view covers the start of one shared value:
		// sound, but not the canonical layout.
		b.markOdd("views overlapping in one data buffer")
		longest := 0
		for _, i := range outOfLine {
			longest = max(longest, len(vals[i]))
		}
		data = bytes.Repeat([]byte{'q'}, longest)
		for _, i := range outOfLine {
			copy(views[16*i+4:16*i+8], data)
			binary.LittleEndian.PutUint32(views[16*i+12:], 0)
		}
		bufs = [][]byte{data}
	case h == 6:
		k := 1 + b.c.intn(64)
		b.markOdd("%d empty data buffers", k)
		if nbuf == 0 {
			bufs = nil
		}
		for range k {
			bufs = append(bufs, nil)
		}
		nbuf = len(bufs)
	case h == 7:
		b.markBad("huge data buffer count")
		b.buffer(views)
		b.word(1<<40 + uint64(nbuf))
		for _, d := range bufs[:nbuf] {
			b.buffer(d)
		}
		return
	case h == 8 && len(nulls) > 0:
		b.markOdd("a null row with a nonempty view")
		i := pick(nulls)
		views[16*i] = 1
		views[16*i+4] = 'x'
	case h == 9 && len(outOfLine) > 1:
		b.markOdd("out-of-line values in two data buffers")
		i := outOfLine[len(outOfLine)-1]
		o := binary.LittleEndian.Uint32(views[16*i+12:])
		bufs = [][]byte{data[:o], data[o:]}
		nbuf = 2
		binary.LittleEndian.PutUint32(views[16*i+8:], 1)
		binary.LittleEndian.PutUint32(views[16*i+12:], 0)
	case h == 10 && p.utf8 && len(outOfLine) > 0:
		b.markBad("string view not UTF-8")
		i := pick(outOfLine)
		o := binary.LittleEndian.Uint32(views[16*i+12:])
		data[int(o)+len(vals[i])-1] = 0xff
	case h == 11 && len(outOfLine) > 0:
		b.markBad("view longer than its data buffer")
		binary.LittleEndian.PutUint32(views[16*pick(outOfLine):], uint32(len(data)+1+b.c.intn(1<<16)))
	}
	b.buffer(views)
	b.word(uint64(nbuf))
	for _, d := range bufs[:nbuf] {
		b.buffer(d)
	}
}

// listView writes the offsets and sizes of n list views and their child:
// canonically the nonempty lists one after another from offset 0, and
// offset 0 for empty ones.
func (b *blockBuilder) listView(p *plan, f arrow.Field, n int) {
	large := p.kind == kLargeListView
	sizes := make([]int64, n)
	offs := make([]int64, n)
	total := int64(0)
	for i := range n {
		sizes[i] = int64(b.take(b.c.intn(4)))
		if sizes[i] > 0 {
			offs[i] = total
			total += sizes[i]
		}
	}
	childLen := total
	var nonEmpty, empty []int
	for i, s := range sizes {
		if s > 0 {
			nonEmpty = append(nonEmpty, i)
		} else {
			empty = append(empty, i)
		}
	}
	maxOff := int64(1<<31 - 1)
	if large {
		maxOff = 1<<63 - 1
	}
	switch h := b.c.hostile(6); {
	case h == 0 && len(nonEmpty) > 0:
		b.markOdd("list views overlapping")
		childLen = 0
		for _, i := range nonEmpty {
			offs[i] = 0
			childLen = max(childLen, sizes[i])
		}
	case h == 1 && len(nonEmpty) > 0:
		b.markBad("list view past its child")
		offs[nonEmpty[b.c.intn(len(nonEmpty))]] = childLen
	case h == 2 && n > 0:
		b.markBad("list view of negative size")
		sizes[b.c.intn(n)] = -1
	case h == 3 && n > 0:
		b.markBad("list view whose offset + size overflows")
		i := b.c.intn(n)
		offs[i], sizes[i] = maxOff, maxOff
	case h == 4 && len(empty) > 0:
		b.markOdd("empty list view at a nonzero offset")
		offs[empty[b.c.intn(len(empty))]] = childLen
	case h == 5 && len(nonEmpty) > 1:
		// Reversed: still the canonical child range.
		b.markOdd("list views in reverse order")
		o := int64(0)
		for k := len(nonEmpty) - 1; k >= 0; k-- {
			offs[nonEmpty[k]] = o
			o += sizes[nonEmpty[k]]
		}
	}
	width := 4
	if large {
		width = 8
	}
	ob, sb := make([]byte, width*n), make([]byte, width*n)
	for i := range n {
		putUint(ob, i, width, uint64(offs[i]))
		putUint(sb, i, width, uint64(sizes[i]))
	}
	b.buffer(ob)
	b.buffer(sb)
	b.node(p.children[0], f, int(childLen), mayBeNull)
}

// union writes the type ids (and dense offsets) of n rows and the children.
func (b *blockBuilder) union(p *plan, fields []arrow.Field, n int) {
	codes := layoutType(p.dt).(arrow.UnionType).TypeCodes()
	ids := make([]byte, n)
	child := make([]int, n)
	for i := range ids {
		child[i] = b.c.intn(len(codes))
		ids[i] = byte(codes[child[i]])
	}
	switch h := b.c.hostile(2); {
	case h == 0 && n > 0:
		b.markBad("union type id that names no child")
		free := byte(0)
		for slices.Contains(codes, int8(free)) {
			free++
		}
		ids[b.c.intn(n)] = free
	case h == 1 && n > 0:
		b.markBad("union type id above 127")
		ids[b.c.intn(n)] = 128 + byte(b.c.intn(128))
	}
	b.buffer(ids)
	if p.kind == kSparseUnion {
		for i, c := range p.children {
			b.node(c, fields[i], n+b.childSkew(), mayBeNull)
		}
		return
	}
	// Dense: per child, offsets from 0 that repeat or step by one.
	offs := make([]int32, n)
	next := make([]int32, len(p.children)) // per child: its length so far
	for i := range n {
		c := child[i]
		if next[c] > 0 && b.c.oneIn(4) {
			offs[i] = next[c] - 1
			continue
		}
		offs[i] = next[c]
		next[c]++
	}
	lens := slices.Clone(next)
	var referenced []int // rows whose child has at least 2 values
	for i := range n {
		if offs[i] > 0 {
			referenced = append(referenced, i)
		}
	}
	switch h := b.c.hostile(5); {
	case h == 0 && len(referenced) > 0:
		b.markBad("dense union offset going back")
		i := referenced[len(referenced)-1]
		offs[i] = -1 + offs[i]
		// Going back only if an earlier row of the child is further on.
		back := false
		for j := range i {
			if child[j] == child[i] && offs[j] > offs[i] {
				back = true
			}
		}
		if !back {
			b.bad = b.bad[:len(b.bad)-1]
			b.markOdd("dense union offset repeated")
		}
	case h == 1 && n > 0:
		b.markBad("dense union offset past its child")
		i := b.c.intn(n)
		offs[i] = lens[child[i]]
	case h == 2 && n > 0:
		b.markBad("negative dense union offset")
		offs[b.c.intn(n)] = -1
	case h == 3 && len(lens) > 0:
		b.markOdd("dense union child with values no row references")
		lens[b.c.intn(len(lens))] += 2
	case h == 4 && n > 0:
		b.markOdd("dense union child referenced from offset 1")
		c := child[b.c.intn(n)]
		for i := range n {
			if child[i] == c {
				offs[i]++
			}
		}
		lens[c]++
	}
	ob := make([]byte, 4*n)
	for i, o := range offs {
		binary.LittleEndian.PutUint32(ob[4*i:], uint32(o))
	}
	b.buffer(ob)
	for i, c := range p.children {
		b.node(c, fields[i], int(lens[i]), mayBeNull)
	}
}

// dictionary writes the indices of n rows and the dictionary.
func (b *blockBuilder) dictionary(p *plan, f arrow.Field, n int, valid []bool) {
	m := b.take(b.c.intn(6))
	if m == 0 && n > 0 {
		m = 1
	}
	idx := make([]uint64, n)
	var validRows, nullRows []int
	for i := range idx {
		if isNull(valid, i) {
			nullRows = append(nullRows, i)
		} else {
			validRows = append(validRows, i)
			idx[i] = uint64(b.c.intn(m))
		}
	}
	maxIdx := uint64(1)<<(8*p.width) - 1
	if p.width == 8 {
		maxIdx = ^uint64(0)
	}
	if p.signed {
		maxIdx >>= 1
	}
	size := n * p.width
	switch h := b.c.hostile(4); {
	case h == 0 && len(validRows) > 0:
		b.markBad("dictionary index past the dictionary")
		idx[validRows[b.c.intn(len(validRows))]] = uint64(m) + uint64(b.c.intn(3))
	case h == 1 && len(validRows) > 0 && p.signed:
		b.markBad("negative dictionary index")
		idx[validRows[b.c.intn(len(validRows))]] = ^uint64(0) // -1 at every width
	case h == 2:
		b.markBad("dictionary indices of the wrong size")
		size += p.width
	case h == 3 && len(nullRows) > 0:
		// Indices of null rows may hold anything.
		b.markOdd("out-of-range dictionary index in a null row")
		idx[nullRows[b.c.intn(len(nullRows))]] = maxIdx
	}
	buf := make([]byte, size)
	for i, v := range idx {
		putUint(buf, i, p.width, v)
	}
	b.values(buf, p.width, p.transpose)
	b.node(p.children[0], f, m, mayBeNull)
}

// runEnds writes the run ends and values of a run-end encoded array of n
// rows: a few runs, ends strictly increasing and the last at n.
func (b *blockBuilder) runEnds(p *plan, fields []arrow.Field, n int) {
	var ends []int64
	if n > 0 {
		cuts := map[int64]bool{}
		for range b.c.intn(min(n, 6)) {
			if n > 1 {
				cuts[1+int64(b.c.intn(n-1))] = true
			}
		}
		for e := range cuts {
			ends = append(ends, e)
		}
		slices.Sort(ends)
		ends = append(ends, int64(n))
	}
	runs := len(ends)
	valuesRows := runs
	var valid []bool
	switch h := b.c.hostile(9); {
	case h == 0 && runs >= 2:
		b.markBad("run ends not increasing")
		ends[0], ends[1] = ends[1], ends[0]
	case h == 1 && runs > 0:
		b.markBad("last run end past the length")
		ends[runs-1]++
	case h == 2 && runs > 0 && (runs == 1 || ends[runs-2] < int64(n-1)):
		if n > 1 {
			b.markBad("last run end short of the length")
			ends[runs-1]--
		}
	case h == 3 && runs > 0:
		b.markBad("first run end 0")
		ends[0] = 0
	case h == 4 && runs > 0:
		b.markBad("no runs for %d rows", n)
		ends, runs, valuesRows = nil, 0, 0
	case h == 5 && runs > 0:
		b.markBad("a null run end")
		valid = make([]bool, runs)
		for i := 1; i < runs; i++ {
			valid[i] = true
		}
	case h == 6:
		b.markBad("run-end values of %d rows for %d runs", runs+1, runs)
		valuesRows++
	case h == 7 && runs > 0:
		b.markBad("negative run end")
		ends[0] = -1
	case h == 8 && runs > 0 && p.width == 8:
		// The right length in the low 32 bits: an int on 32-bit
		// platforms would see it.
		b.markBad("last run end 2^32 past the length")
		ends[runs-1] += 1 << 32
	}
	// The run ends node: no nulls, values never transposed.
	b.kinds[p.children[0].kind]++
	b.word(uint64(runs))
	if valid != nil {
		b.buffer(bitmap(valid))
	} else {
		b.buffer(nil)
	}
	buf := make([]byte, runs*p.width)
	for i, e := range ends {
		putUint(buf, i, p.width, uint64(e))
	}
	b.buffer(buf)
	b.node(p.children[1], fields[1], valuesRows, mayBeNull)
}

package codec

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
	"unsafe"
)

// FSST (Boncz, Neumann and Leis, VLDB 2020) compresses string data with a
// static table of up to 255 symbols of 1 to 8 bytes: each symbol becomes a
// one-byte code, and a byte no symbol covers becomes the escape code 255
// followed by the byte. The table is trained on a sample of a column's data
// and kept per column across blocks (fsstColumn); every section carries its
// table, so it decodes alone. This file is the encoding side: training,
// the lookup tables a greedy longest-match parse needs, and the section
// writer. section_fsst_dec.go decodes.

const (
	fsstMaxSymbols = 255 // codes 0..254; 255 is the escape
	fsstEscape     = 255
	fsstHashBits   = 12
	// fsstSample is the most bytes a table is trained on, in spans of
	// fsstSpan spread evenly over the data.
	fsstSample = 16 << 10
	fsstSpan   = 512
	// fsstRounds is how many times training parses the sample with the
	// table of the round before and picks the symbols that gained most.
	fsstRounds = 5
	// fsstDrift: a column's table is retrained when a block's data
	// compresses to more than this factor of the ratio the table had on
	// the sample it was trained on.
	fsstDrift = 1.15
)

// fsstTable is a symbol table and the lookup tables of its encoder.
type fsstTable struct {
	n    int // symbols
	sym  [fsstMaxSymbols]uint64
	slen [fsstMaxSymbols]uint8
	// long holds the symbols of 3 to 8 bytes, by a hash of their first 3
	// bytes (one per bucket: training drops a symbol whose bucket is
	// taken). An empty bucket has len 0 and sym fsstNoSym, which no
	// input matches.
	long [1 << fsstHashBits]fsstEntry
	// short maps the next 2 bytes to the code of the 2-byte symbol of
	// them, else of the 1-byte symbol of the first, else the escape, and
	// the bytes it covers: code | len<<8, and 1<<12 for the escape, whose
	// byte follows it (fsstEscaped).
	short [1 << 16]uint16
	// single maps a byte to its 1-byte symbol's code, or the escape, as
	// short does.
	single [256]uint16
	// ratio is the codes' size over the raw size on the training sample;
	// size the bytes the table takes in a section.
	ratio float64
	size  int
}

type fsstEntry struct {
	sym uint64
	cl  uint16 // code | len<<8, as short holds them
	len uint8
}

// fsstNoSym is the symbol of an empty bucket of long: with its len 0 the
// input is masked to 0, which never equals it.
const fsstNoSym = ^uint64(0)

// fsstEscaped is a lookup entry that escapes one byte.
const fsstEscaped = fsstEscape | 1<<8 | 1<<12

// fsstMask[l] keeps the low l bytes of a word (256 entries, so that a
// byte indexes it without a bounds check).
var fsstMask = func() (m [256]uint64) {
	for l := 1; l <= 8; l++ {
		m[l] = ^uint64(0) >> (64 - 8*l)
	}
	return
}()

func fsstHash(w uint64) uint32 {
	return uint32((w&0xffffff)*0x9E3779B1) >> (32 - fsstHashBits)
}

// add puts a symbol of l bytes into t, if its lookup slot is free, and
// reports whether it did.
func (t *fsstTable) add(sym uint64, l int) bool {
	if t.n == fsstMaxSymbols {
		return false
	}
	code := uint16(t.n)
	switch {
	case l == 1:
		if t.single[sym&0xff] != fsstEscaped {
			return false
		}
		t.single[sym&0xff] = code | 1<<8
	case l == 2:
		if t.short[sym&0xffff]>>8 == 2 {
			return false
		}
		t.short[sym&0xffff] = code | 2<<8
	default:
		e := &t.long[fsstHash(sym)]
		if e.len != 0 {
			return false
		}
		*e = fsstEntry{sym: sym, cl: code | uint16(l)<<8, len: uint8(l)}
	}
	t.sym[t.n], t.slen[t.n] = sym, uint8(l)
	t.n++
	return true
}

// reset empties t: every byte escapes.
func (t *fsstTable) reset() {
	t.n = 0
	for i := range t.long {
		t.long[i] = fsstEntry{sym: fsstNoSym}
	}
	for i := range t.single {
		t.single[i] = fsstEscaped
	}
	for i := range t.short {
		t.short[i] = fsstEscaped
	}
}

// clearSymbols empties t, which finish has not filled, by undoing add
// for each of its symbols.
func (t *fsstTable) clearSymbols() {
	for i := range t.n {
		sym := t.sym[i]
		switch t.slen[i] {
		case 1:
			t.single[sym&0xff] = fsstEscaped
		case 2:
			t.short[sym&0xffff] = fsstEscaped
		default:
			t.long[fsstHash(sym)] = fsstEntry{sym: fsstNoSym}
		}
	}
	t.n = 0
}

// finish fills the 2-byte lookup's entries that have no 2-byte symbol
// with the 1-byte symbol of their first byte.
func (t *fsstTable) finish() {
	for i := range t.short {
		if t.short[i]>>8 != 2 {
			t.short[i] = t.single[i&0xff]
		}
	}
}

// next returns the code of the longest symbol (as far as the lookup finds
// it) at the start of w, the next 8 bytes of input (zero past its end),
// and the bytes it covers; left is how many bytes of input there are.
func (t *fsstTable) next(w uint64, left int) (code uint8, l int) {
	if e := &t.long[fsstHash(w)]; e.len != 0 && int(e.len) <= left && w&fsstMask[e.len] == e.sym {
		return uint8(e.cl), int(e.len)
	}
	// An entry that holds no 2-byte symbol gives way to the 1-byte one,
	// as finish fills it: training's tables are not finished.
	s := t.short[w&0xffff]
	if s>>8 != 2 || left < 2 {
		s = t.single[w&0xff]
	}
	return uint8(s), int(s >> 8 & 15)
}

// encode appends the codes of src to dst, which must have room for
// 2*len(src) more bytes, and returns it.
func (t *fsstTable) encode(dst, src []byte) []byte {
	o := len(dst)
	dst = dst[:cap(dst)]
	if len(src) < fsstLaneMin {
		return dst[:t.encodeRun(dst, o, src)]
	}
	return dst[:t.encodeLanes(dst, o, src)]
}

// fsstLaneMin is the fewest bytes encode splits into lanes.
const fsstLaneMin = 4 << 10

// encodeLanes codes src as four parts, one after another, into dst from
// o, and returns the end of the codes. A greedy parse is one chain of
// dependent loads (a code's length says where the next starts), about 30
// cycles a code; the parts' chains interleave. Each part's step has no
// branch on the data (a long symbol's hit selects it by a mask; the
// escaped byte is written always and kept only after an escape), since a
// mispredicted branch would stall all four. Lane j writes from o+2*start
// (codes take at most 2 bytes a byte), and the parts are then moved
// together. The codes differ from one part's only where a part ends: a
// valid parse too.
func (t *fsstTable) encodeLanes(dst []byte, o int, src []byte) int {
	q := len(src) / 4
	e0, e1, e2, e3 := q, 2*q, 3*q, len(src)
	i0, i1, i2, i3 := 0, e0, e1, e2
	o0, o1, o2, o3 := o, o+2*e0, o+2*e1, o+2*e2
	if len(dst)-o >= 2*len(src) {
		// Through pointers, as the slices' checks took a third of the
		// loop: a lane reads 8 bytes only while 8 are left before its
		// end, and lane j's codes for the bytes it took, at most 2 a
		// byte, stay below o+2*i_j, so its two bytes at o_j are inside
		// its own part of dst.
		sp, dp := unsafe.Pointer(unsafe.SliceData(src)), unsafe.Pointer(unsafe.SliceData(dst))
		load := func(i int) uint64 { return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(sp, i))[:]) }
		put := func(o int, v uint, w uint64) {
			*(*byte)(unsafe.Add(dp, o)), *(*byte)(unsafe.Add(dp, o+1)) = byte(v), byte(w)
		}
		for {
			// A step takes at most 8 bytes of each lane: this many
			// rounds keep every lane's 8-byte load inside it, with no
			// test of the four ends in the loop (whose values Go then
			// kept on the stack).
			k := min(e0-i0, e1-i1, e2-i2, e3-i3) / 8
			if k == 0 {
				break
			}
			for range k {
				w0, w1, w2, w3 := load(i0), load(i1), load(i2), load(i3)
				v0, v1, v2, v3 := t.lookup(w0), t.lookup(w1), t.lookup(w2), t.lookup(w3)
				put(o0, v0, w0)
				put(o1, v1, w1)
				put(o2, v2, w2)
				put(o3, v3, w3)
				o0, o1, o2, o3 = o0+1+int(v0>>12), o1+1+int(v1>>12), o2+1+int(v2>>12), o3+1+int(v3>>12)
				i0, i1, i2, i3 = i0+int(v0>>8&15), i1+int(v1>>8&15), i2+int(v2>>8&15), i3+int(v3>>8&15)
			}
		}
	}
	end := t.encodeRun(dst, o0, src[i0:e0])
	end += copy(dst[end:], dst[o+2*e0:t.encodeRun(dst, o1, src[i1:e1])])
	end += copy(dst[end:], dst[o+2*e1:t.encodeRun(dst, o2, src[i2:e2])])
	end += copy(dst[end:], dst[o+2*e2:t.encodeRun(dst, o3, src[i3:e3])])
	return end
}

// lookup returns the lookup entry (code | len<<8, and 1<<12 for an
// escape) of the longest symbol at the start of w, 8 bytes of input,
// without a branch on the data: the long symbol's entry is selected by a
// mask when it matches.
func (t *fsstTable) lookup(w uint64) uint {
	v := uint(t.short[w&0xffff])
	e := &t.long[fsstHash(w)]
	miss := w&fsstMask[e.len] ^ e.sym
	return v ^ (v^uint(e.cl))&(uint((miss|-miss)>>63)-1)
}

// encodeRun codes src into dst from o, one code after another, and returns
// the end of the codes. Its branches predict well enough on one chain.
func (t *fsstTable) encodeRun(dst []byte, o int, src []byte) int {
	i := 0
	for ; i+8 <= len(src); i++ {
		w := binary.LittleEndian.Uint64(src[i:])
		if e := &t.long[fsstHash(w)]; e.len != 0 && w&fsstMask[e.len] == e.sym {
			dst[o] = uint8(e.cl)
			o++
			i += int(e.len) - 1
			continue
		}
		s := t.short[w&0xffff]
		dst[o] = uint8(s)
		o++
		if uint8(s) == fsstEscape {
			dst[o] = byte(w)
			o++
		}
		i += int(s>>8&15) - 1
	}
	var last [16]byte
	for i < len(src) {
		copy(last[:8], src[i:])
		clear(last[len(src)-i:])
		code, l := t.next(binary.LittleEndian.Uint64(last[:]), len(src)-i)
		dst[o] = code
		o++
		if code == fsstEscape {
			dst[o] = src[i]
			o++
		}
		i += l
	}
	return o
}

// fsstTrainer holds the counts training needs, kept for reuse.
type fsstTrainer struct {
	sample  []byte
	codes   []uint16 // the sample parsed: a symbol's code, or 256 + an escaped byte
	count1  [512]uint32
	count2  []uint16 // count2[a<<9|b]: how often code b followed code a
	touched []uint32 // the entries of count2 that are not zero
	cands   []fsstCand
	slots   []int32 // the candidates by a hash of their symbol: index+1, 0 when free
	// table is the rounds' table: empty between trainings and never
	// finished, so that a round empties it by taking its symbols out
	// (clearSymbols) rather than by rewriting its 64K-entry lookup.
	table *fsstTable
}

type fsstCand struct {
	sym  uint64
	l    int
	gain int
}

var fsstTrainers = sync.Pool{New: func() any {
	t := new(fsstTable)
	t.reset()
	return &fsstTrainer{count2: make([]uint16, 512*512), table: t}
}}

// sampleOf copies into s a sample of data: all of it up to limit bytes,
// else limit/fsstSpan spans spread evenly.
func sampleOf(s, data []byte, limit int) []byte {
	s = s[:0]
	if len(data) <= limit {
		return append(s, data...)
	}
	k := limit / fsstSpan
	step := (len(data) - fsstSpan) / (k - 1)
	for i := range k {
		s = append(s, data[i*step:i*step+fsstSpan]...)
	}
	return s
}

// trainFSST builds a table for data from a sample of it: fsstRounds times,
// it parses the sample with the table so far, counts each symbol and each
// pair of neighbouring symbols (their concatenation, cut to 8 bytes, is a
// candidate), and keeps the fsstMaxSymbols candidates that cover the most
// sample bytes.
func trainFSST(data []byte) *fsstTable {
	t, _ := trainFSSTFrom(nil, data, fsstRounds)
	return t
}

// trainFSSTFrom trains a table for data as trainFSST does, in the given
// number of rounds, the first parsing the sample with from (nil: an empty
// table) rather than with no symbols: a retrained column starts from its
// last table, so fewer rounds on a smaller sample (fsstWarmSample) find as
// good a table. It also returns from's
// ratio on the sample (1 for nil).
func trainFSSTFrom(from *fsstTable, data []byte, rounds int) (*fsstTable, float64) {
	tr := fsstTrainers.Get().(*fsstTrainer)
	defer fsstTrainers.Put(tr)
	limit := fsstSample
	if from != nil {
		limit = fsstWarmSample
	}
	tr.sample = sampleOf(tr.sample, data, limit)
	s := tr.sample
	t := tr.table
	cur, fromRatio := t, 1.0
	if from != nil {
		cur = from
	}
	// scale is how many times the data holds the sample.
	scale := float64(len(data)) / float64(max(len(s), 1))
	for round := range rounds {
		tr.parse(cur, s)
		if round == 0 && from != nil && len(s) > 0 {
			coded := 0
			for c, n := range tr.count1 {
				coded += int(n) * (1 + c/256)
			}
			fromRatio = float64(coded) / float64(len(s))
		}
		tr.clearCands()
		addCand := func(sym uint64, l, gain int) {
			tr.addCand(sym, l, gain)
		}
		symOf := func(c uint16) (uint64, int) {
			if c >= 256 {
				return uint64(c - 256), 1
			}
			return cur.sym[c], int(cur.slen[c])
		}
		for c := range 512 {
			if n := tr.count1[c]; n != 0 {
				sym, l := symOf(uint16(c))
				// A 1-byte symbol saves the escape byte; longer
				// ones save their length less the code.
				addCand(sym, l, int(n)*l)
			}
		}
		for _, at := range tr.touched {
			a, b := uint16(at>>9), uint16(at&511)
			if sa, la := symOf(a); la < 8 {
				sb, lb := symOf(b)
				l := min(la+lb, 8)
				addCand((sa|sb<<(8*la))&fsstMask[l], l, int(tr.count2[at])*l)
			}
			tr.count2[at] = 0
		}
		tr.touched = tr.touched[:0]
		clear(tr.count1[:])
		// Candidates used once can never be kept (below): most pairs
		// are, and sorting them took most of the training's time.
		tr.cands = slices.DeleteFunc(tr.cands, func(c fsstCand) bool { return c.gain/c.l < 2 })
		slices.SortFunc(tr.cands, func(x, y fsstCand) int {
			if x.gain != y.gain {
				return y.gain - x.gain
			}
			if x.l != y.l {
				return y.l - x.l
			}
			if x.sym < y.sym {
				return -1
			}
			if x.sym > y.sym {
				return 1
			}
			return 0
		})
		t.clearSymbols()
		for _, c := range tr.cands {
			if t.n == fsstMaxSymbols {
				break
			}
			// A symbol must cover more than its code does once used
			// at least twice; 1-byte symbols cover escapes. The last
			// round keeps only symbols that save more bytes of the
			// data than their place in the table takes (a length
			// byte and theirs): small data gets a small table.
			uses := c.gain / c.l
			if uses < 2 || round == rounds-1 && float64(uses*max(c.l-1, 1))*scale <= float64(c.l+1) {
				continue
			}
			t.add(c.sym, c.l)
		}
		cur = t
	}
	// The table returned is a new one, finished for encoding, of the
	// symbols added in the same order: the same codes.
	final := new(fsstTable)
	final.reset()
	for i := range t.n {
		final.add(t.sym[i], int(t.slen[i]))
	}
	final.finish()
	t.clearSymbols()
	t = final
	if len(s) > 0 {
		enc := t.encode(make([]byte, 0, 2*len(s)+8), s)
		t.ratio = float64(len(enc)) / float64(len(s))
	} else {
		t.ratio = 1
	}
	t.size = fsstTableSize(t)
	return t, fromRatio
}

// clearCands empties the candidates and their lookup, sized for what the
// next round can count: the 512 codes and the touched pairs.
func (tr *fsstTrainer) clearCands() {
	tr.cands = tr.cands[:0]
	if need := 2 * (512 + len(tr.touched)); len(tr.slots) < need {
		tr.slots = make([]int32, 1<<bits.Len(uint(need)))
	} else {
		clear(tr.slots)
	}
}

// addCand adds gain to the candidate symbol sym of l bytes, first adding
// it: an open-addressing lookup, since a map took a third of the training
// time.
func (tr *fsstTrainer) addCand(sym uint64, l, gain int) {
	mask := uint64(len(tr.slots) - 1)
	h := (sym*0x9E3779B97F4A7C15 + uint64(l)) >> 20
	for i := h & mask; ; i = (i + 1) & mask {
		k := tr.slots[i]
		if k == 0 {
			tr.slots[i] = int32(len(tr.cands) + 1)
			tr.cands = append(tr.cands, fsstCand{sym, l, gain})
			return
		}
		if c := &tr.cands[k-1]; c.sym == sym && c.l == l {
			c.gain += gain
			return
		}
	}
}

// parse encodes s with t, counting in tr each code (escapes as 256 + the
// byte) and each pair of neighbouring codes.
func (tr *fsstTrainer) parse(t *fsstTable, s []byte) {
	var last [16]byte
	prev := -1
	for i := 0; i < len(s); {
		var w uint64
		if i+8 <= len(s) {
			w = binary.LittleEndian.Uint64(s[i:])
		} else {
			copy(last[:8], s[i:])
			clear(last[len(s)-i : 8])
			w = binary.LittleEndian.Uint64(last[:])
		}
		code, l := t.next(w, len(s)-i)
		c := int(code)
		if code == fsstEscape {
			c = 256 + int(s[i])
		}
		tr.count1[c]++
		if prev >= 0 {
			at := uint32(prev<<9 | c)
			if tr.count2[at] == 0 {
				tr.touched = append(tr.touched, at)
			}
			if tr.count2[at] < 0xffff {
				tr.count2[at]++
			}
		}
		prev = c
		i += l
	}
}

// fsstTableSize is the bytes t takes in a section: its count, a length
// byte per symbol and the symbols' bytes.
func fsstTableSize(t *fsstTable) int {
	n := 1 + t.n
	for i := range t.n {
		n += int(t.slen[i])
	}
	return n
}

// fsstColumn is the table an encoder keeps for one string column across
// blocks.
type fsstColumn struct {
	mu    sync.Mutex
	table *fsstTable
	base  float64 // the ratio drift is measured against
	stale bool    // the last block drifted past base: retrain
	// wait is how many blocks must pass before a retrain is tried again,
	// backoff what it becomes (doubling, up to fsstMaxBackoff) each time
	// a retrain does not pay: data whose ratio drifts without a better
	// table (sorted words) retrained every block, taking up to 25 times
	// LZ4's encode time.
	wait, backoff int
}

// fsstWarmRounds is the rounds a retrain starting from the column's last
// table takes, on a sample of at most fsstWarmSample bytes (on words,
// sorted, which retrains every block: 1 round of 8 KiB coded as small as 2
// of 16 KiB, in a quarter of the training); fsstGain the least it must shrink the sample's codes by to
// replace the table; fsstMaxBackoff the most blocks between retrains that
// do not pay.
const (
	fsstWarmRounds = 1
	fsstWarmSample = 8 << 10
	fsstGain       = 0.03
	fsstMaxBackoff = 64
)

// tableFor returns the column's table for data, training one first when
// there is none, or retraining when the last block drifted and no retrain
// that did not pay was tried too recently.
func (fc *fsstColumn) tableFor(data []byte) *fsstTable {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.table == nil {
		fc.table = trainFSST(data)
		fc.base = fc.table.ratio
		return fc.table
	}
	if fc.wait > 0 {
		fc.wait--
		return fc.table
	}
	if fc.stale {
		fc.stale = false
		t, old := trainFSSTFrom(fc.table, data, fsstWarmRounds)
		if t.ratio+float64(t.size)/float64(max(len(data), 1)) <= old*(1-fsstGain)+float64(fc.table.size)/float64(max(len(data), 1)) {
			fc.table, fc.base, fc.backoff = t, t.ratio, 0
		} else {
			fc.backoff = min(max(1, 2*fc.backoff), fsstMaxBackoff)
			fc.wait, fc.base = fc.backoff, old
		}
	}
	return fc.table
}

// retrains reports whether the next tableFor retrains the column's table.
func (fc *fsstColumn) retrains() bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.stale && fc.wait == 0
}

// ratioNow is the ratio of the column's table, or fsstGuess before one is
// trained: what a planner weighs string bytes with.
func (fc *fsstColumn) ratioNow() float64 {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.table == nil {
		return fsstGuess
	}
	return fc.table.ratio
}

// fsstGuess is the ratio taken for a column without a table.
const fsstGuess = 0.5

// observe records how well t, the column's table, did on a block: the
// codes' size over the raw size. A ratio past fsstDrift times the base
// makes the next block retrain.
func (fc *fsstColumn) observe(t *fsstTable, ratio float64) {
	fc.mu.Lock()
	if fc.table == t && ratio > fc.base*fsstDrift {
		fc.stale = true
	}
	fc.mu.Unlock()
}

// fsstHeader is the fixed part of an FSST section: the decoded length m
// and the number of code bytes (uint32 each).
const fsstHeader = 8

// fsstBound is the most bytes an FSST section of n data bytes and a tail
// of tail bytes takes.
func fsstBound(n, tail int) int {
	return fsstHeader + 1 + fsstMaxSymbols*9 + 2*n + tail
}

// encodeFSST writes into dst (of at least fsstBound bytes) the FSST
// section of raw, whose first n bytes are string data and the rest a tail
// stored as it is, with table t, and returns it.
//
//	m      uint32  bytes the codes decode to (n)
//	c      uint32  code bytes
//	k      uint8   symbols
//	lens   k bytes, each 1..8
//	syms   the symbols' bytes, back to back
//	codes  c bytes
//	tail   the r - m raw bytes after the data
func encodeFSST(dst, raw []byte, n int, t *fsstTable) []byte {
	binary.LittleEndian.PutUint32(dst[0:], uint32(n))
	o := fsstHeader
	dst[o] = byte(t.n)
	o++
	for i := range t.n {
		dst[o] = t.slen[i]
		o++
	}
	for i := range t.n {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], t.sym[i])
		o += copy(dst[o:], b[:t.slen[i]])
	}
	codes := t.encode(dst[o:o:len(dst)], raw[:n])
	binary.LittleEndian.PutUint32(dst[4:], uint32(len(codes)))
	o += len(codes)
	o += copy(dst[o:], raw[n:])
	return dst[:o]
}

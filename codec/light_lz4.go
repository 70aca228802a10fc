package codec

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/arrowpack/arrowpack"
	"github.com/pierrec/lz4/v4"
)

// Light never stores a section larger than LZ4 would: an estimate that
// picked a lightweight codec may be wrong (the estimates predict 1.3-2
// times the bytes LZ4 really writes, and a frame of reference misses runs
// and repeats LZ4 finds), so the encoder compresses the piece with LZ4 and
// keeps the smaller, unless the lightweight section is under the fewest
// bytes LZ4 may take (lz4Least). Compressing every piece took the
// built-in shapes' encode to 2 to 5 times its time.

// lz4Least returns the fewest bytes LZ4 may store src, a piece starting
// with a buffer of hint h, in (plain; -1 for integers an LZ4 block holds
// transposed, which are held to that alone), and for integers of 4 or 8
// bytes the fewest their transposed LZ4 section may take (trans; else
// -1): from the match parse of a sample of src (reaching into the 32 KiB
// before it, reachSavings), and of all of a sample of the integers
// transposed (transposedLeast), as lz4LeastOf bounds it, and at least
// LZ4's floor. A piece under minMatchPiece has no estimate: 0 (compress
// it).
func lz4Least(ls *lightScratch, src []byte, h bufHint) (plain, trans int) {
	n := len(src)
	plain, trans = 0, -1
	w := int(h.width)
	if h.kind == hInt && (w == 4 || w == 8) {
		trans = 0
		if h.transposed() {
			plain = -1
		}
	}
	if n < minMatchPiece {
		return plain, trans
	}
	if plain == 0 {
		plain = plainLeast(&ls.reach, src)
	}
	if trans == 0 && h.n/w*w >= minMatchPiece {
		vals := h.n / w * w
		trans = transposedHeader + transposedLeast(transposedSample(&ls.est, src, h), w, vals) + n - vals
	}
	return plain, trans
}

// plainLeast is the fewest bytes LZ4 may store src in, a piece of at
// least minMatchPiece bytes, as lz4Least bounds it (rt is room for
// reachSavings).
func plainLeast(rt *reachTable, src []byte) int {
	return max(lz4LeastOf(reachSavings(src, rt, 4), len(src)), lz4Floor(len(src)))
}

// transposedLeast is the fewest bytes LZ4 is taken to store vals bytes
// of integers of w bytes transposed in, from t, a sample of them
// transposed: the parse of all of t, so that it sees planes match one
// another, each plane's part of its savings (at least 0) bounding that
// plane's bytes as lz4LeastOf does, and at least LZ4's floor. Bounding
// the planes apart keeps a plane of noise from hiding behind planes of
// zeros, whose savings would bring a bound of the whole to LZ4's floor.
func transposedLeast(t []byte, w, vals int) int {
	var parts [8]int
	if len(t) < 8*w {
		return lz4Floor(vals)
	}
	parseSaved(t, 0, len(t), nil, 0, parts[:w])
	least := 0
	for _, p := range parts[:w] {
		least += lz4LeastOf(float64(max(p, 0))/float64(len(t)/w), vals/w)
	}
	return max(least, lz4Floor(vals))
}

// transposedSample returns, in room (grown as needed), up to lz4Sample
// integers of hint h (4 or 8 bytes) from the middle of src,
// byte-transposed.
func transposedSample(room *[]byte, src []byte, h bufHint) []byte {
	w := int(h.width)
	k := min(h.n, lz4Sample*w) / w * w
	at := (h.n/2 - k/2) / w * w
	if cap(*room) < k {
		*room = make([]byte, k)
	}
	t := (*room)[:k]
	arrowpack.TransposeBytes(t, src[at:at+k], w)
	return t
}

// lz4Sample is how many values lz4Least transposes and parses whole, so
// that the parse sees matches across planes (w = 8: 4 KiB).
const lz4Sample = 512

// lz4LeastOf is the fewest bytes LZ4 is taken to store n bytes in whose
// sample the match parse saved sav: (0.55 - sav) n, under the least LZ4
// took for each savings on the pieces of the real tables and built-in
// shapes (a parse of a sample that saved 5% went with LZ4 taking 64% of
// the piece, one of 25% with 35%, one of 45% with 31%; from 55% on, LZ4
// may take any number of bytes: runs longer than the sample).
func lz4LeastOf(sav float64, n int) int {
	return int(max(0, 0.55-sav) * float64(n))
}

// lz4Floor is the fewest bytes an LZ4 block of r raw bytes takes: from the
// most an LZ4 block of s bytes decodes to, 255s - 1001 (FORMAT.md, Bounds).
func lz4Floor(r int) int {
	return (r + 1001 + 254) / 255
}

// lightRoom is the room a lightweight section s is encoded in: its own
// bound, or what LZ4 (for integers, transposed LZ4) may take in its place.
func lightRoom(s section) int {
	n := max(lightBound(s), lz4.CompressBlockBound(s.n))
	if w := int(s.hint.width); s.hint.kind == hInt && (w == 4 || w == 8) {
		n = max(n, transposedBound(s.hint.n/w, w, s.n-s.hint.n/w*w))
	}
	return n
}

// notOverLZ4 returns z, the lightweight section s of the raw bytes src
// encoded in dst (of lightRoom(s) bytes; nil if encoding failed), unless
// LZ4 stores src in fewer bytes: then it returns LZ4's bytes and sets
// s.codec to LZ4. A piece that starts with integers of 4 or 8 bytes is
// compared with its transposed LZ4 section, one LZ4 block of the integers
// byte-transposed, which is what makes LZ4 small on sorted keys and
// timestamps on a grid; that section sets s.codec to codecTransposed.
// Where an LZ4 block holds the integers transposed too (FORMAT.md's
// transpose flag), that is what LZ4 stores them as, and LZ4 of them as
// they are is not tried: on the real tables it never took fewer bytes.
func (c *compressor) notOverLZ4(st *lz4State, ls *lightScratch, dst, src []byte, s *section, z []byte) []byte {
	first, h := s.codec, s.hint
	var seen *lz4Seen
	var cs *columnState // a section choose picked: the column whose streak it keeps
	if h.col != nil && h.kind != hNone {
		switch first {
		case codecFront:
			// Its piece, lengths and text, was compressed only if a
			// string dictionary was tried on it (s.rep.lz).
			seen = &c.column(h.col).pieceSeen
		case codecStrDict, codecTransposed:
		default:
			cs = c.column(h.col)
			seen = &cs.seen[h.kind]
		}
	}
	z = c.heldToLZ4(st, ls, dst, src, s, z, seen)
	if cs != nil {
		// The column's next blocks go straight to what beat the
		// section choose picked (section_light.go's lostTo).
		l := &cs.lost[h.kind]
		switch {
		case s.codec != LZ4 && s.codec != codecTransposed:
			l.won()
		case h.kind == hText && cs.fsst.retrains():
			// A stale FSST table lost: the next block retrains it
			// first (section_fsst_enc.go).
		default:
			l.codec.Store(uint32(s.codec))
			l.lost()
		}
	}
	return z
}

// heldToLZ4 is notOverLZ4's rule, FORMAT.md's "Never larger than LZ4",
// without the column's streak; seen (nil: none) is what LZ4 took on the
// column's last piece of the kind (light_seen.go).
func (c *compressor) heldToLZ4(st *lz4State, ls *lightScratch, dst, src []byte, s *section, z []byte, seen *lz4Seen) []byte {
	plain, trans := lz4Least(ls, src, s.hint)
	if s.codec == codecTransposed {
		trans = -1 // z is that section
	}
	estPlain, estTrans := plain, trans
	likePlain, likeTrans := 0, 0 // what the column's records take LZ4 to store src in
	if (s.codec == codecStrDict || s.codec == codecFront) && s.rep.lz > 0 {
		// chooseStrDict compressed the piece but its few tail bytes, or
		// the column's record held it (rep.lzHeld): what LZ4 took is
		// known, or the record was used once already.
		s.lz4 = s.rep.lz
		if s.rep.lzHeld {
			plain = max(plain, heldBound(s.rep.lz))
		} else {
			plain = max(plain, s.rep.lz)
		}
	} else if seen != nil {
		if likePlain = seen.plain.held(plain, len(src)); likePlain > 0 {
			plain = heldBound(likePlain)
		}
		if likeTrans = seen.trans.held(trans, len(src)); likeTrans > 0 {
			trans = heldBound(likeTrans)
		}
	}
	if z != nil && (plain < 0 || len(z) <= plain) && (trans < 0 || len(z) <= trans) {
		if s.lz4 == 0 {
			// For lz4MayWin, which takes a section LZ4 was not tried on
			// to be stored by LZ4 in its own bytes.
			s.lz4 = likePlain
			if estPlain < 0 {
				s.lz4 = likeTrans
			}
		}
		return z
	}
	if cap(ls.alt) < len(dst) {
		ls.alt = make([]byte, len(dst))
	}
	alt := ls.alt[:len(dst)]
	// The first trial's LZ4 block is kept only if smaller than z, so a
	// trial that loses stops once it has written a quarter more than z.
	// s.lz4 then holds the least LZ4 may take: more than the room, or,
	// as pierrec's compressor gives up on a block not smaller than src in
	// a dst shorter than its bound, len(src). (lz4MayWin counts those
	// bytes: stopping at len(z) made it try three real tables for
	// nothing.) A second trial need only beat z.
	room := func(first bool) []byte {
		switch {
		case z == nil:
			return alt
		case first:
			return alt[:min(len(alt), len(z)+len(z)/4)]
		}
		return alt[:len(z)-1]
	}
	if plain >= 0 && (z == nil || len(z) > plain) {
		r := room(true)
		took := len(src)
		switch k := lz4Block(st, r, src); {
		case k > 0:
			s.lz4, took = k, k
			if z == nil || k < len(z) {
				s.codec = LZ4
				z = dst[:copy(dst, alt[:k])]
			}
		case z != nil:
			s.lz4 = min(len(r)+1, len(src))
			took = s.lz4
		}
		if seen != nil {
			seen.plain.note(took, estPlain, len(src))
		}
	}
	if w := int(s.hint.width); trans >= 0 && (z == nil || len(z) > trans) {
		r := room(plain < 0)
		y := encodeTransposed(st, ls, r, src, s.hint.n/w, w)
		if seen != nil {
			took := min(len(r)+1, len(src))
			if y != nil {
				took = len(y)
			}
			seen.trans.note(took, estTrans, len(src))
		}
		if plain < 0 {
			switch {
			case y != nil:
				s.lz4 = len(y)
			case z != nil:
				s.lz4 = min(len(r)+1, len(src))
			}
		}
		if y != nil && (z == nil || len(y) < len(z)) {
			s.codec = codecTransposed
			z = dst[:copy(dst, y)]
		}
	}
	return z
}

// joinLZ4 joins each run of neighbouring LZ4 sections of ss.secs (pieces
// notOverLZ4 gave to LZ4 lie between others) into one LZ4 section of their
// raw bytes where that takes fewer bytes, as an LZ4 block's one section
// finds matches across buffers; it returns the compressed body's size,
// stored before.
func (c *compressor) joinLZ4(ss *sectionScratch, body []byte, stored int) int {
	secs := ss.secs
	need := 0
	for i := 0; i < len(secs); {
		j := i + 1
		for secs[i].codec == LZ4 && j < len(secs) && secs[j].codec == LZ4 {
			j++
		}
		if j-i > 1 {
			need += lz4.CompressBlockBound(secs[j-1].at + secs[j-1].n - secs[i].at)
		}
		i = j
	}
	if need == 0 {
		return stored
	}
	if cap(ss.joined) < need {
		ss.joined = make([]byte, need)
	}
	room := ss.joined[:need]
	st := c.getState()
	defer c.putState(st)
	out := secs[:0]
	for i := 0; i < len(secs); {
		j := i + 1
		for secs[i].codec == LZ4 && j < len(secs) && secs[j].codec == LZ4 {
			j++
		}
		if j-i == 1 {
			out = append(out, secs[i])
			i = j
			continue
		}
		at, end := secs[i].at, secs[j-1].at+secs[j-1].n
		was := 0
		for _, s := range secs[i:j] {
			was += 8 + bufferSize(len(s.z))
		}
		n := lz4.CompressBlockBound(end - at)
		if k := lz4Block(st, room[:n], body[at:end]); k > 0 && 8+bufferSize(k) < was {
			out = append(out, section{at: at, n: end - at, codec: LZ4, z: room[:k:k]})
			stored += 8 + bufferSize(k) - was
		} else {
			out = append(out, secs[i:j]...)
		}
		room = room[n:]
		i = j
	}
	ss.secs = out
	return stored
}

// lz4MayWin reports whether LZ4 may store a Light block, whose raw body
// is body and whose sections secs take stored bytes, in fewer bytes, and
// so is worth compressing with LZ4 too. Each lightweight section already
// takes no more than LZ4 would (notOverLZ4), so LZ4 can win only by
// matches across the buffers Light compresses apart: columns of equal
// values (alltypes_tiny_pages), which the LZ4, byte-plane and raw
// sections hold, so the block is tried when they hold at least lz4Share
// of its bytes (transposed LZ4 sections count with the lightweight ones:
// counting them too had alltypes_tiny_pages' blocks, which Light now
// stores in 7% fewer bytes than LZ4, compressed twice); and columns that copy one another (a name and its ASCII
// spelling), so it is tried when the bytes LZ4 is taken to store the
// lightweight and Huffman sections in, with matches into the bytes before
// each (crossBytes, from LZ4's bytes for each as notOverLZ4 measured
// them, else their own), are fewer than theirs. The LZ4 block the block
// is then tried with decides; these estimates only spare the trial to
// blocks that hold no copies.
func lz4MayWin(rt *reachTable, body []byte, secs []section, stored int) bool {
	like := 0
	for _, s := range secs {
		switch s.codec {
		case None:
			like += s.n
		case LZ4, codecPlanes:
			like += len(s.z)
		}
	}
	if float64(like) >= lz4Share*float64(stored) {
		return true
	}
	next, light, lz := -1, 0, 0.0
	for i := range secs {
		s := &secs[i]
		if !lightweight(s.codec) && s.codec != codecHuff {
			continue
		}
		light += len(s.z)
		if s.n < minCross {
			lz += float64(max(len(s.z), s.lz4))
			continue
		}
		ref := len(s.z)
		if s.lz4 > 0 {
			ref = s.lz4
		}
		if next < 0 {
			// Cleared only for a block that has a section to look at: a
			// block of a few rows would spend most of its time here.
			*rt, next = reachTable{}, 0
		}
		lz += crossBytes(rt, &next, body, secs[:i+1], ref)
	}
	return lz < float64(light)
}

// lz4Share is the share of a Light block's bytes that LZ4 must be able to
// match across buffers for lz4MayWin to try it.
const lz4Share = 0.5

// crossBytes returns the bytes LZ4 is taken to store the last of secs,
// s, in when it compresses s with the 64 KiB before it, given that it
// takes ref alone: lz4Floor if s copies a section before it of its
// buffer's shape (copyDists) byte for byte; else ref times, of s's middle
// crossSample bytes (an eighth of s, if fewer), the cost of a greedy parse
// that also matches into the bytes before s (crossCost) over the cost of
// one matching within them alone. The bytes before s are looked up in rt,
// which holds every crossStride-th position before *next; crossBytes adds
// the ones up to s (the sections come in order).
func crossBytes(rt *reachTable, next *int, body []byte, secs []section, ref int) float64 {
	s := &secs[len(secs)-1]
	dists := copyDists(secs)
	for _, d := range dists {
		if d > 0 && bytes.Equal(body[s.at-d:s.at-d+s.n], body[s.at:s.at+s.n]) {
			// A sample shows nothing of a copy of runs: its parse costs
			// next to nothing with the copy or without.
			return float64(lz4Floor(s.n))
		}
	}
	for *next = max(*next, s.at-64<<10); *next+16 <= s.at; *next += crossStride {
		rt[crossHash(body[*next:])] = uint32(*next + 1)
	}
	n := min(s.n/8, crossSample)
	at := s.at + (s.n-n)/2
	lo, b := max(0, at-(64<<10-1)), body[at:at+n]
	// A copy long enough to matter meets one of the positions rt holds
	// within any crossStride of its own: a sample whose first and middle
	// crossStride positions meet none is taken to copy nothing, which
	// spares the parses below for most sections.
	if !farAt(rt, body, lo, b, 0) && !farAt(rt, body, lo, b, len(b)/2) {
		return float64(ref)
	}
	alone := crossCost(nil, [2]int{}, body, lo, at, b)
	if alone == 0 {
		return float64(ref)
	}
	return float64(ref) * min(1, float64(crossCost(rt, dists, body, lo, at, b))/float64(alone))
}

// copyDists returns the distances from the last of secs back to the two
// nearest sections before it, within LZ4's 64 KiB, that hold a buffer of
// its kind and width and about its size: where a copied column of numbers
// lies, which rt, holding the latest of repeated values, seldom finds.
func copyDists(secs []section) [2]int {
	var d [2]int
	s, k := &secs[len(secs)-1], 0
	for i := len(secs) - 2; i >= 0 && k < len(d) && s.at-secs[i].at < 64<<10; i-- {
		t := &secs[i]
		if t.hint.kind == s.hint.kind && t.hint.width == s.hint.width && max(t.n-s.n, s.n-t.n) <= s.n/16 {
			d[k], k = s.at-t.at, k+1
		}
	}
	return d
}

// crossCost returns the cost (a byte a literal, 3 a match) of a greedy
// parse of b, body's bytes from at, taking at each step the longest match
// within b or, if rt is not nil, of crossMatch bytes or more into body
// from lo: at the position rt holds, at one of the distances dists (0:
// none), or at the distance of the last such match, which a copy keeps.
func crossCost(rt *reachTable, dists [2]int, body []byte, lo, at int, b []byte) int {
	var near [1 << 10]uint16 // 1 + the last position of a hash in b
	cost, d := 0, 0
	for i := 0; i+4 <= len(b); {
		v := binary.LittleEndian.Uint32(b[i:])
		h := (v * 2654435761) >> 22
		j, cand := 1, int(near[h])-1
		near[h] = uint16(i + 1)
		if cand >= 0 && binary.LittleEndian.Uint32(b[cand:]) == v {
			j = 4 + sharedPrefix(b[cand+4:], b[i+4:])
		}
		if rt != nil && i+16 <= len(b) {
			for _, e := range [3]int{d, dists[0], dists[1]} {
				if p := at + i - e; e > 0 && p >= lo {
					if k := sharedPrefix(body[p:], b[i:]); k >= crossMatch && k > j {
						j, d = k, e
					}
				}
			}
			if k, p := farLen(rt, body, lo, b, i); k >= crossMatch && k > j {
				j, d = k, at+i-p
			}
		}
		cost += min(j, 3)
		i += j
	}
	return cost
}

// farAt reports whether a far match (farLen) of crossMatch bytes or more
// starts at one of the crossStride positions of b from i.
func farAt(rt *reachTable, body []byte, lo int, b []byte, i int) bool {
	for e := min(i+crossStride, len(b)-15); i < e; i++ {
		if k, _ := farLen(rt, body, lo, b, i); k >= crossMatch {
			return true
		}
	}
	return false
}

// farLen returns how many bytes b matches from i with the bytes of body at
// the position p (from lo) that rt holds for b[i:i+16], and p; 0 if their
// first 8 differ.
func farLen(rt *reachTable, body []byte, lo int, b []byte, i int) (int, int) {
	p := int(rt[crossHash(b[i:])]) - 1
	if p < lo || binary.LittleEndian.Uint64(body[p:]) != binary.LittleEndian.Uint64(b[i:]) {
		return 0, 0
	}
	return 8 + sharedPrefix(body[p+8:], b[i+8:]), p
}

// crossHash hashes the 16 bytes b starts with into a reachTable index:
// 16 bytes, not LZ4's 4, so that the entry of a run of short strings or of
// few distinct values is mostly the copy's, not the last one like it.
func crossHash(b []byte) uint32 {
	x := binary.LittleEndian.Uint64(b) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[8:]), 31)
	return uint32((x * 0x9E3779B97F4A7C15) >> 52)
}

// crossSample, crossMatch and crossStride: what crossBytes reads of a
// section, the shortest match into the bytes before it that it counts,
// and how far apart the positions it notes there are. minCross is the
// fewest raw bytes of a section lz4MayWin looks at: sampling smaller ones
// costs more encode time than their copies save (docs/light.md).
const (
	crossSample = 512
	crossMatch  = 16
	crossStride = 32
	minCross    = 1 << 10
)

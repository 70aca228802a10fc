package codec

import (
	"github.com/klauspost/compress/huff0"
	"github.com/pierrec/lz4/v4"
	"sync/atomic"
)

// The lightweight section codecs and how an encoder with Light chooses
// among them. Their ids in a section descriptor (FORMAT.md):
const (
	codecBitpack    Compression = 4  // frame of reference (or delta) and bit-packing of integers
	codecALP        Compression = 5  // ALP: decimal floats as bit-packed integers
	codecFSST       Compression = 6  // FSST: string data as codes of a symbol table
	codecPlanes     Compression = 7  // byte planes of floats, each raw or LZ4
	codecHuff       Compression = 8  // another section's bytes Huffman-coded (huff0)
	codecRLE        Compression = 9  // run-length: run values and run ends, each bit-packed
	codecDict       Compression = 10 // integers as a dictionary and bit-packed codes
	codecStrDict    Compression = 11 // a string column's lengths and data as a dictionary and codes
	codecFront      Compression = 12 // a string column's lengths and data as shared prefixes and suffixes
	codecTransposed Compression = 13 // integers byte-transposed and one LZ4 block, as the LZ4 encoder stores them
	maxCodec                    = codecTransposed
)

// lightweight reports whether c is a lightweight section codec, which
// encodeLight writes and sectionDecoders reads (Huffman, which wraps
// another section, is not one).
func lightweight(c Compression) bool { return c <= maxCodec && sectionDecoders[c] != nil }

// lightMaxValues is the most values a bit-packing or ALP section holds: a
// longer buffer is cut into several sections. It bounds what a section's
// few header bytes can make a decoder write (lightMaxRaw).
const lightMaxValues = 1 << 20

// lightMaxRaw returns the most raw bytes a lightweight section of codec c
// can decode to from s stored bytes: bit-packing at most lightMaxValues
// values of 16 bytes (width 0 packs them in no bytes) and a tail no longer
// than the section, ALP the same of 8 bytes, FSST 8 bytes a stored byte (a
// code makes at most a symbol of 8 bytes, the tail one byte a byte), byte
// planes 256 (an LZ4 plane decodes to at most 255 bytes a byte, a packed
// one to at most 8), Huffman the most of those from the m <= 8 x (s - 8)
// (a code takes at least a bit) and <= huff0.BlockSizeMax bytes of its
// inner section (checkHuff checks the inner codec's own bound); run-length
// and integer dictionaries as bit-packing (at most lightMaxValues values
// of 8 bytes and the tail), a string dictionary or front-coded strings
// strDictMaxRaw and its tail.
func lightMaxRaw(c Compression, s int) uint64 {
	switch c {
	case codecHuff:
		m := uint64(min(8*max(s-huffHeader, 0), huff0.BlockSizeMax))
		return max(256*m, 16*lightMaxValues+m)
	case codecBitpack, codecRLE, codecDict:
		return 16*lightMaxValues + uint64(s)
	case codecStrDict, codecFront:
		return strDictMaxRaw + uint64(s)
	case codecALP:
		return 8*lightMaxValues + uint64(s)
	case codecFSST:
		return 8 * uint64(s)
	case codecPlanes, codecTransposed:
		return 256 * uint64(s)
	}
	return uint64(s)
}

// minLightRows is the fewest rows a block under minDecide bytes must have
// for its buffers to get lightweight sections; a smaller block of fewer
// rows is transposed and compressed whole with MinLZ (planLight), since its
// buffers are too short for packing to pay for the sections' headers and
// FSST's table (lineitem-64: 4.1 KB cut into lightweight sections, 3.2 KB
// with LZ4, 2.8 KB with MinLZ, which also encodes it in about 0.5-0.8 of
// LZ4's time and decodes it in about LZ4's; Huffman-coded, 2.6 KB against
// zstd's 2.5) and a general codec finds matches across them. A small block of many rows has buffers long enough
// to pack (dict-8192's 8192 dictionary indices: 9.0 KB in lightweight
// sections, 10.1 KB with LZ4, 9.9 KB with MinLZ).
const minLightRows = 1024

// huffMaxBody bounds the raw bodies whose sections an encoder with Light
// Huffman-codes (section_huff_enc.go): in a small body the bytes saved
// weigh more than the time (lineitem-64: 2824 -> 2624 bytes against
// zstd's 2520; dict-8192's validity bitmap: 9000 -> 8744 bytes, IPC's
// zstd 10048), and every section fits one huff0 block (at most 256 KiB);
// in a large one decoding about a nanosecond a coded byte would take
// Light's decode past LZ4's.
const huffMaxBody = minDecide

// minLight is the smallest buffer, in bytes, a lightweight codec is tried
// on: below it the section's header and descriptor cost more than packing
// saves.
const minLight = 256

// columnState is what an encoder keeps of one column across blocks.
type columnState struct {
	fsst   fsstColumn
	alp    alpColumn
	strTry streak // blocks whose string dictionary and front coding are not tried (light_streak.go)
	// lost holds, for each kind of buffer, the codec that last took the
	// place of the lightweight section choose picked (LZ4 or transposed
	// LZ4) and the streak of blocks whose pieces go to it unchosen.
	lost [hText + 1]lostTo
	// seen holds, for each kind of buffer, what LZ4 took on the column's
	// last piece it was tried on (light_seen.go); pieceSeen what it took
	// on its last front-coded piece, lengths and text together, and
	// dataSeen on the data part of its last such or dictionary section.
	seen      [hText + 1]lz4Seen
	pieceSeen lz4Seen
	dataSeen  seenShare // of the data of its string dictionary or front-coded sections
}

// lostTo is a codec that beat a column's lightweight section, and the
// streak of blocks that take it without choosing.
type lostTo struct {
	streak
	codec atomic.Uint32
}

// column returns the state of the node p.
func (c *compressor) column(p *plan) *columnState {
	if s, ok := c.cols.Load(p); ok {
		return s.(*columnState)
	}
	s, _ := c.cols.LoadOrStore(p, new(columnState))
	return s.(*columnState)
}

// lightScratch is the room one goroutine encodes lightweight sections in.
type lightScratch struct {
	words []uint64
	bytes []byte
	idx   []uint32
	alt   []byte    // what LZ4 stores a lightweight section's bytes in (notOverLZ4)
	est   []byte    // room for lz4Least's transposed sample
	huff  huffCoder // the Huffman sections' coder
	dalt  []byte    // the LZ4 block of a string dictionary's data
	reach reachTable
}

// planLight cuts body at the marks and hints the writer noted and picks
// each piece's codec: a piece starts at every buffer a lightweight codec
// may take and wherever the pieces before reach minPiece bytes; a piece
// that starts with such a buffer gets the lightweight codec its hint names
// when that is estimated to take less than both the raw bytes (less the
// minimum savings) and LZ4's estimate; other pieces are compressed with
// LZ4 when worth it (as with LZ4) and otherwise stored raw. Neighbouring
// LZ4 or raw pieces form one section. In a body under huffMaxBody, each
// raw or LZ4 section of at least huffMinRaw bytes becomes a Huffman
// section of its raw bytes (encodeHuff keeps the coding only where it
// pays, and LZ4 where that takes fewer bytes). Lightweight sections are
// not coded: Huffman decodes at about a nanosecond a byte, bit-unpacking
// and FSST at a fraction of that, and the bytes it saves on them cost more
// time than LZ4 takes for the whole block (dict-8192's 7-bit indices,
// coded a byte a value: 7216 -> 4771 bytes, 2.2 times LZ4's decode time
// for the block; with only its bitmap coded, 0.87 of IPC's zstd at 0.86
// times LZ4's decode time).
func (c *compressor) planLight(ss *sectionScratch, body []byte) []section {
	secs := ss.secs[:0]
	ss.repsUsed = 0
	if ss.xf&flagTranspose != 0 {
		// A small body of few rows (minLightRows) is transposed and
		// one MinLZ section, as with MinLZ, Huffman-coded.
		return append(secs, section{n: len(body), codec: codecHuff, inner: MinLZ})
	}
	add := func(s section) {
		if k := len(secs); k > 0 && s.codec <= MinLZ && secs[k-1].codec == s.codec {
			secs[k-1].n = s.at + s.n - secs[k-1].at
			return
		}
		secs = append(secs, s)
	}
	start, startHint := 0, bufHint{}
	var dict *section // a string dictionary section, to end at the next cut
	skip := 0         // marks before skip lie inside dict
	cut := func(end int) {
		if dict != nil {
			dict.n = end - dict.at
			add(*dict)
			dict = nil
			return
		}
		h := startHint
		if h.kind == hInt || h.kind == hFloat {
			// Whole sections of lightMaxValues values first.
			for max := lightMaxValues * int(h.width); h.n > max; h.n -= max {
				add(c.choose(ss, body, start, start+max, bufHint{kind: h.kind, width: h.width, n: max, col: h.col}))
				start += max
			}
		}
		if end > start {
			add(c.choose(ss, body, start, end, h))
		}
	}
	for i, m := range ss.marks {
		h := ss.hints[i]
		if m < skip {
			continue
		}
		if d, ok := c.strDictAt(ss, body, i); ok {
			cut(m)
			start, startHint, dict = m, bufHint{}, &d
			skip = m + h.n + d.rep.gap + d.rep.text
			continue
		}
		light := h.kind != hNone && h.n >= minLight
		if !light && (m-start < minPiece || len(body)-m < minPiece) || i+1 < len(ss.marks) && ss.marks[i+1] == m {
			continue
		}
		cut(m)
		start, startHint = m, h
		if !light {
			startHint = bufHint{}
		}
	}
	cut(len(body))
	if len(body) < huffMaxBody {
		for i := range secs {
			if s := &secs[i]; s.n >= huffMinRaw && (s.codec == None || s.codec == LZ4) {
				s.inner, s.codec = s.codec, codecHuff
			}
		}
	}
	return secs
}

// strDictAt returns the string dictionary or front-coded section of the
// string column whose lengths buffer starts at mark i, followed by its
// text, if chooseStrDict or else chooseFront finds it pays: only with
// lengths (flagLengths), as those sections write them, and not while the
// column's streak skips a column where neither paid.
func (c *compressor) strDictAt(ss *sectionScratch, body []byte, i int) (section, bool) {
	h := ss.hints[i]
	if h.kind != hInt || ss.xf&flagLengths == 0 || i+1 >= len(ss.marks) {
		return section{}, false
	}
	t, at := ss.hints[i+1], ss.marks[i+1]
	if t.kind != hText || t.col != h.col || t.n < minLight || at < ss.marks[i]+h.n {
		return section{}, false
	}
	try := &c.column(h.col).strTry
	if try.skip() {
		return section{}, false
	}
	var lens strLens
	s, ok := c.chooseStrDict(ss, &lens, body, ss.marks[i], h, at-ss.marks[i]-h.n, t.n)
	if !ok {
		s, ok = c.chooseFront(ss, &lens, body, ss.marks[i], h, at-ss.marks[i]-h.n, t.n)
	}
	if ok {
		ss.keepRep(&s)
		try.won()
	} else {
		try.lost()
	}
	return s, ok
}

// choose picks the codec of body[at:end], which starts with a buffer of
// hint h (hNone: of nothing known), unless the column's lost streak for
// such buffers names the codec that beat its last lightweight section.
func (c *compressor) choose(ss *sectionScratch, body []byte, at, end int, h bufHint) section {
	s := section{at: at, n: end - at, codec: None}
	b := body[at:end]
	if h.col != nil && h.kind != hNone && len(body) >= huffMaxBody {
		// (In a smaller body an LZ4 section becomes a Huffman one, which
		// a lightweight section beaten by LZ4 does not.)
		if l := &c.column(h.col).lost[h.kind]; l.skip() {
			s.codec, s.hint = Compression(l.codec.Load()), h
			return s
		}
	}
	keep := 1 - c.minSavings // the most of its raw size a section may take
	sav := -1.0              // b's match savings, parsed once when first asked for
	lz := func() float64 {
		if len(b) < minMatchPiece {
			return 1
		}
		if sav < 0 {
			sav = matchSavings(b)
		}
		return 1 - (sav - lzSlack)
	}
	switch h.kind {
	case hInt:
		bp, words := chooseBitpack(b[:h.n], int(h.width), ss.words)
		ss.words = words
		codec, best := chooseRepeats(ss.nextRep(), &s, b[:h.n], int(h.width), len(b), bp.bits, bp.size(len(b)-h.n), codecBitpack)
		if size := float64(best); size <= keep*float64(len(b)) && size <= lz()*float64(len(b)) {
			s.codec, s.hint, s.bp = codec, h, bp
			if codec != codecBitpack {
				ss.keepRep(&s)
			}
			return s
		}
		// An LZ4 block holds integers byte-transposed (timestamps on a
		// grid, keys with gaps): the transposed LZ4 section is that
		// block, as the match parse of a sample transposed estimates
		// it. Integers it does not hold transposed (offsets, lengths)
		// get their planes, LZ4 where that shrinks them.
		if w := int(h.width); (w == 4 || w == 8) && h.transposed() && h.n/w*w >= minMatchPiece {
			t := transposedSample(&ss.planes, b, h)
			vals := h.n / w * w
			if size := (1-parseSavings(t, 0, len(t), nil, 0)+lzSlack)*float64(vals) + float64(transposedHeader+len(b)-vals); size <= keep*float64(len(b)) {
				s.codec, s.hint = codecTransposed, h
				return s
			}
		} else if w == 4 || w == 8 {
			p, psize, planes := c.choosePlanes(ss, b[:h.n], w)
			ss.planes = planes
			if p.lz4|p.packed != 0 && float64(psize+len(b)-h.n) <= keep*float64(len(b)) {
				s.codec, s.hint, s.planes = codecPlanes, h, p
				return s
			}
		}
	case hFloat:
		a := chooseALP(b[:h.n], int(h.width), &c.column(h.col).alp)
		size := a.bits/8*float64(h.n/int(h.width)) + alpHeader + float64(len(b)-h.n)
		if a.exc <= 0.5 && size <= keep*float64(len(b)) && size <= lz()*float64(len(b)) {
			s.codec, s.hint, s.alp = codecALP, h, a
			return s
		}
		// Not decimals: byte planes, if their sign and exponent planes
		// shrink (with LZ4 or packed). Planes that do not are stored
		// raw without compressor time, so half the minimum savings is
		// enough.
		p, psize, planes := c.choosePlanes(ss, b[:h.n], int(h.width))
		ss.planes = planes
		if p.lz4|p.packed != 0 && float64(psize+len(b)-h.n) <= (1-c.minSavings/2)*float64(len(b)) {
			s.codec, s.hint, s.planes = codecPlanes, h, p
			return s
		}
	case hText:
		t := c.column(h.col).fsst.tableFor(b[:h.n])
		size := t.ratio*float64(h.n) + float64(fsstHeader+t.size+len(b)-h.n)
		if len(b) < minMatchPiece {
			// Too short for LZ4's estimate, and FSST's table weighs
			// most here: compress it with LZ4 and compare.
			z := c.lz4Trial(ss, b)
			if size <= keep*float64(len(b)) && size <= float64(z) {
				s.codec, s.hint, s.fsst = codecFSST, h, t
			} else if float64(z) <= keep*float64(len(b)) {
				s.codec = LZ4
			}
			return s
		}
		if size <= keep*float64(len(b)) && size <= lz()*float64(len(b)) {
			s.codec, s.hint, s.fsst = codecFSST, h, t
			return s
		}
	}
	if ok, _ := c.worthSaving(&ss.hist, b, sav); ok {
		s.codec = LZ4
	}
	return s
}

// lz4Trial returns the bytes LZ4 compresses b to, in ss.planes.
func (c *compressor) lz4Trial(ss *sectionScratch, b []byte) int {
	st := c.getState()
	defer c.putState(st)
	if n := lz4.CompressBlockBound(len(b)); cap(ss.planes) < n {
		ss.planes = make([]byte, n)
	}
	n, err := st.fast.CompressBlock(b, ss.planes[:cap(ss.planes)])
	if err != nil || n == 0 {
		return len(b)
	}
	return n
}

// lightBound is the most bytes the lightweight section s takes.
func lightBound(s section) int {
	tail := s.n - s.hint.n
	switch s.codec {
	case codecBitpack:
		return s.bp.size(tail)
	case codecALP:
		return alpBound(s.hint.n/int(s.hint.width), int(s.hint.width), tail)
	case codecFSST:
		return fsstBound(s.hint.n, tail)
	case codecPlanes:
		return planesBound(s.planes.n, s.planes.w, tail)
	case codecTransposed:
		w := int(s.hint.width)
		return transposedBound(s.hint.n/w, w, s.n-s.hint.n/w*w)
	case codecRLE:
		return rleBound(s.rep.k, int(s.hint.width), tail)
	case codecDict:
		return intDictBound(s.hint.n/int(s.hint.width), s.rep.k, int(s.hint.width), tail)
	case codecStrDict:
		w := int(s.hint.width)
		return strDictBound(w, s.hint.n/w-1, s.rep.gap, s.rep.k, s.rep.m, tail)
	case codecFront:
		return frontBound(s.hint.n/int(s.hint.width)-1, s.rep.gap, s.rep.m, tail)
	}
	return lz4.CompressBlockBound(s.n)
}

// encodeLight encodes the lightweight section s of raw bytes src into dst
// (of lightBound(s) bytes) with the room in ls and the LZ4 compressor st,
// and returns the section's stored bytes.
func (c *compressor) encodeLight(st *lz4State, ls *lightScratch, dst, src []byte, s section) []byte {
	switch s.codec {
	case codecPlanes:
		return encodePlanes(st, ls, dst, src, s.planes)
	case codecTransposed:
		w := int(s.hint.width)
		return encodeTransposed(st, ls, dst, src, s.hint.n/w, w)
	case codecBitpack:
		z, words := encodeBitpack(dst, src, s.bp, ls.words)
		ls.words = words
		return z
	case codecALP:
		z, words := encodeALP(dst, src, s.hint.n/int(s.hint.width), s.alp, ls.words)
		ls.words = words
		return z
	case codecRLE:
		w := int(s.hint.width)
		z, words := encodeRLE(dst, src, s.hint.n/w, w, s.rs.runs, ls.words)
		ls.words = words
		return z
	case codecDict:
		w := int(s.hint.width)
		z, words := encodeIntDict(dst, src, s.hint.n/w, w, s.rs.vals, s.rs.codes, ls.words)
		ls.words = words
		return z
	case codecStrDict:
		return c.encodeStrDictSection(st, ls, dst, src, s)
	case codecFront:
		return c.encodeFrontSection(st, ls, dst, src, s)
	case codecFSST:
		z := encodeFSST(dst, src, s.hint.n, s.fsst)
		if s.hint.n > 0 {
			codes := len(z) - (len(src) - s.hint.n) - fsstHeader - s.fsst.size
			c.column(s.hint.col).fsst.observe(s.fsst, float64(codes)/float64(s.hint.n))
		}
		return z
	}
	return nil
}

// repChoice is a run-length or dictionary section decided by the planner:
// k runs or entries, and for a string dictionary the dictionary's data
// bytes m and where the lengths, gap and text lie.
type repChoice struct {
	k, m      int
	gap, text int
	lz        int  // a string dictionary or front-coded section: the bytes LZ4 took for its lengths, gap and text (0: not compressed)
	lzHeld    bool // lz is what the column's last piece takes LZ4 to store this one in (light_seen.go), not LZ4's bytes
}

// repScratch is the room run-length and dictionary sections are tried in,
// kept by a chosen section until it is encoded.
type repScratch struct {
	runs  rleRuns
	dict  dictTable
	codes []uint32
	vals  []byte
	words []uint64 // the bit-packing choices' room
	front frontCode
}

// rleSampleRuns is the most runs, as a share of the values, a window of
// the values (rleWindow of them, in the middle) may have for the encoder
// to count the runs of all the values: with runs of 3 values on average,
// the run ends cost about what the values save.
const (
	rleWindow    = 1024
	rleMaxShare  = 3
	minRepValues = 64
)

// chooseRepeats tries the run-length and integer dictionary sections on
// the n values of w bytes in vals of a piece of r bytes, the rest the
// tail, against cur, the codec chosen so far, of best bytes (bit-packing,
// of bits bits a value): it returns the codec that takes fewest and its
// bytes, setting s.rep. Each is tried only when a sample
// says it may pay (few runs in a window; few distinct values among
// dictSample).
func chooseRepeats(rs *repScratch, s *section, vals []byte, w, r, bits int, best int, cur Compression) (Compression, int) {
	n := len(vals) / w
	if w != 4 && w != 8 || n < minRepValues {
		return cur, best
	}
	tail := r - len(vals)
	k := min(n, rleWindow)
	at := (n - k) / 2 * w
	if runsAtMost(vals[at:at+k*w], w, k/rleMaxShare) {
		rs.runs = runsOf(rs.runs, vals, w)
		var size int
		size, rs.words = rleSize(rs.runs, w, tail, rs.words)
		if size < best {
			cur, best = codecRLE, size
			s.rep = repChoice{k: len(rs.runs.vals) / w}
		}
	}
	if intDictMayPay(&rs.dict, vals, w, bits) {
		var ok bool
		if rs.codes, ok = intDict(&rs.dict, vals, w, rs.codes); ok {
			rs.vals = dictValues(&rs.dict, w, rs.vals)
			var size int
			if size, rs.words = intDictSize(rs.vals, rs.codes, w, tail, rs.words); size < best {
				cur, best = codecDict, size
				s.rep = repChoice{k: len(rs.dict.vals)}
			}
		}
	}
	return cur, best
}

// chooseStrDict decides whether the string column whose lengths buffer
// (hint h) starts at body[at:], followed after gap bytes by its text of
// text bytes, takes fewer bytes as a string dictionary than as bit-packed
// lengths and FSST-coded text (both estimated with the column's FSST
// ratio), and than LZ4 takes for the piece, which it compresses to make
// sure (notOverLZ4 then need not): it returns the section, whose end the
// planner sets, if so. The room it builds the dictionary in is
// ss.nextRep(); lens holds the lengths' bit-packing and LZ4's bytes for
// chooseFront.
func (c *compressor) chooseStrDict(ss *sectionScratch, lens *strLens, body []byte, at int, h bufHint, gap, text int) (section, bool) {
	rs := ss.nextRep()
	w := int(h.width)
	p, ok := strPieceAt(body, at, h, gap, text)
	if !ok {
		return section{}, false
	}
	ratio := c.column(h.col).fsst.ratioNow()
	k, ok := strDictMayPay(&rs.dict, p, ratio)
	if !ok {
		return section{}, false
	}
	// The codes alone take at least n bits(k) bits; the plain sections
	// take the lengths bit-packed and at most LZ4's estimate of the text
	// (above what LZ4 takes on the real tables). Text in runs or cycles
	// (alltypes_tiny_pages's) is known to lose so, without building the
	// dictionary.
	var bp bitpackChoice
	bp, rs.words = lens.of(p, rs.words)
	codes := float64(p.n*widthOf(uint64(k))) / 8
	if text >= minMatchPiece && codes >= float64(bp.size(0))+(1-(matchSavings(p.data)-lzSlack))*float64(text) {
		return section{}, false
	}
	// A sorted column's runs of a value make LZ4 smaller than the codes
	// (iso639-3; dates in runs, alltypes_tiny_pages): then bit-packed
	// lengths and FSST, each held to LZ4, take less than the piece as one
	// LZ4 section. LZ4 is tried before the dictionary is built, which
	// takes longer. Where the column's last piece was compressed, what
	// LZ4 took there holds this one (light_seen.go).
	piece := body[at : at+h.n+gap+text]
	seen, least := &c.column(h.col).pieceSeen.plain, 0
	if len(piece) >= minMatchPiece {
		least = plainLeast(&ss.reach, piece)
	}
	lz := seen.held(least, len(piece))
	lens.lzHeld = lz > 0
	if !lens.lzHeld {
		lz = c.lz4Trial(ss, piece)
		seen.note(lz, least, len(piece))
	}
	lens.lz = lz
	if codes >= float64(lz) {
		return section{}, false
	}
	if rs.codes, ok = strDict(&rs.dict, p, rs.codes); !ok {
		return section{}, false
	}
	m := len(rs.dict.strs)
	rs.vals = dictLengths(&rs.dict, w, rs.vals)
	var lp, cp int
	lp, rs.words = partSize(rs.vals, w, rs.words)
	cp, rs.words = partSize(asBytes(rs.codes), 4, rs.words)
	dict := float64(strDictHeader+gap+lp+cp) + ratio*float64(m)
	plain := float64(bp.size(gap)+fsstHeader) + ratio*float64(text)
	if dict >= plain || float64(lz) <= dict {
		return section{}, false
	}
	return section{at: at, codec: codecStrDict, hint: h, rep: repChoice{k: rs.dict.dictEntries(), m: m, gap: gap, text: text, lz: lz, lzHeld: lens.lzHeld}}, true
}

// strPieceAt is the string column whose lengths buffer (hint h) starts at
// body[at:], followed after gap bytes by its text of text bytes, if a
// string dictionary or front-coded section can hold it: lengths of 4 or
// 8 bytes, a gap under 256 bytes and at most strDictMaxRaw bytes.
func strPieceAt(body []byte, at int, h bufHint, gap, text int) (strPiece, bool) {
	w := int(h.width)
	if w != 4 && w != 8 || gap > 255 || h.n+gap+text > strDictMaxRaw {
		return strPiece{}, false
	}
	p := strPiece{w: w, n: h.n/w - 1, lens: body[at : at+h.n], gap: body[at+h.n : at+h.n+gap]}
	p.data = body[at+h.n+gap : at+h.n+gap+text]
	return p, true
}

// strLens is the bit-packing of a string column's lengths, worked out at
// most once for the string sections that weigh themselves against it, and
// the bytes LZ4 took for the column if chooseStrDict compressed it, or
// those the column's record takes it to (lzHeld), else 0.
type strLens struct {
	bp     bitpackChoice
	done   bool
	lz     int
	lzHeld bool // as repChoice's
}

// of returns the bit-packing of p's lengths, with room in words.
func (l *strLens) of(p strPiece, words []uint64) (bitpackChoice, []uint64) {
	if !l.done {
		l.bp, words = chooseBitpack(p.lens, p.w, words)
		l.done = true
	}
	return l.bp, words
}

// strPieceOf is the string column a string dictionary section s of raw
// bytes src holds.
func strPieceOf(src []byte, s section) strPiece {
	w := int(s.hint.width)
	lens := s.hint.n
	return strPiece{w: w, n: lens/w - 1, lens: src[:lens], gap: src[lens : lens+s.rep.gap],
		data: src[lens+s.rep.gap : lens+s.rep.gap+s.rep.text]}
}

// encodeStrDictSection encodes the string dictionary section s of src
// into dst (of lightBound(s) bytes) with the dictionary chooseStrDict
// built.
func (c *compressor) encodeStrDictSection(st *lz4State, ls *lightScratch, dst, src []byte, s section) []byte {
	p := strPieceOf(src, s)
	rs := s.rs
	d := strDictParts{lens: rs.vals, codes: rs.codes, data: rs.dict.strs, strData: c.strDataFor(st, ls, s, rs.dict.strs)}
	z, words := encodeStrDict(dst, p, src[len(p.lens)+len(p.gap)+len(p.data):], d, ls.words)
	ls.words = words
	return z
}

// strDataFor is what the data of the string section s, data, is written
// with: the column's FSST table for data of at least minLight bytes, st
// and room in ls for its LZ4 block.
func (c *compressor) strDataFor(st *lz4State, ls *lightScratch, s section, data []byte) strData {
	if n := lz4.CompressBlockBound(len(data)); cap(ls.dalt) < n {
		ls.dalt = make([]byte, n)
	}
	d := strData{st: st, alt: ls.dalt[:cap(ls.dalt)], seen: &c.column(s.hint.col).dataSeen}
	if len(data) >= minLight {
		d.fsst = c.column(s.hint.col).fsst.tableFor(data)
	}
	return d
}

// nextRep returns the room the next run-length or dictionary trial uses.
func (ss *sectionScratch) nextRep() *repScratch {
	if ss.repsUsed == len(ss.reps) {
		ss.reps = append(ss.reps, new(repScratch))
	}
	return ss.reps[ss.repsUsed]
}

// keepRep gives s the room of the last trial (nextRep), which holds its
// runs or dictionary, until the next block.
func (ss *sectionScratch) keepRep(s *section) {
	s.rs = ss.reps[ss.repsUsed]
	ss.repsUsed++
}

package codec

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"math/bits"

	"github.com/pierrec/lz4/v4"
)

// The dictionary section codecs. Integers (codec 10): n values of 4 or 8
// bytes stored as k distinct values and n codes, with the run-length
// section's header and parts (section_rle_enc.go): the values part holds
// the dictionary, the next part the n codes (uint32, each below k) as a
// bit-packed section. k is at least 2 (one value is a run).
//
// Strings (codec 11): a lengths buffer (a 0, then n lengths of w bytes,
// as flagLengths writes them), g bytes between it and the data (the data
// buffer's length prefix and the lengths' padding) and the data, stored
// as a dictionary of k distinct strings and n codes. The section's bytes,
// after which come the tail's:
//
//	0   uint8   w: bytes per length, 4 or 8
//	1   uint8   g: the bytes between the lengths and the data, stored raw
//	2   uint8   the dictionary data's codec: 0 raw, 1 LZ4, 6 FSST
//	3   uint8   0
//	4   uint32  n: strings, 1..2^20
//	8   uint32  k: dictionary entries, 2..n
//	12  uint32  L: bytes of the lengths part
//	16  uint32  M: bytes of the dictionary's data, the sum of its lengths
//	20  uint32  D: bytes of the data part
//	24  uint32  C: bytes of the codes part
//	28  g       the gap's raw bytes
//	28+g L      the dictionary's k lengths of w bytes (a part, encodePart)
//	    D       the dictionary's data: M raw bytes, an LZ4 block of them, or an
//	            FSST section of them with no tail
//	    C       the n codes (uint32, each below k) as a bit-packed section
//	            the tail: the raw bytes after the strings' data
//
// A string section's raw bytes are at most strDictMaxRaw.
const strDictHeader = 28

// strDictMaxRaw is the most raw bytes a string dictionary section decodes
// to: codes can repeat a long entry many times, so its raw bytes are not
// bounded by its stored ones; an encoder writes no longer section.
const strDictMaxRaw = 64 * lightMaxValues

// dictSample is how many values an encoder hashes, in dictChunks chunks
// spread over the buffer, to decide whether a dictionary may pay, and
// dictMaxK the most entries it builds a dictionary of.
const (
	dictSample = 512
	dictChunks = 4
	dictMaxK   = 1 << 16
)

// dictTable is an open-addressing hash table of a dictionary's entries
// under construction, reused across buffers.
type dictTable struct {
	slots []int32 // entry + 1, 0 empty
	hash  []uint64
	mask  uint64
	seed  maphash.Seed
	// The entries: integers in vals, or strings as offsets into strs.
	vals []uint64
	strs []byte
	offs []uint32
}

// reset empties t for up to limit entries.
func (t *dictTable) reset(limit int) {
	size := 1 << bits.Len(uint(2*limit))
	if cap(t.slots) < size {
		t.slots = make([]int32, size)
	}
	t.slots = t.slots[:size]
	clear(t.slots)
	t.mask = uint64(size - 1)
	t.vals, t.strs, t.offs = t.vals[:0], t.strs[:0], append(t.offs[:0], 0)
	if t.seed == (maphash.Seed{}) {
		t.seed = maphash.MakeSeed()
	}
}

// intCode returns the entry of x, added if new.
func (t *dictTable) intCode(x uint64) int {
	h := x * 0x9E3779B97F4A7C15
	for i := h >> 32 & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i]
		if e == 0 {
			t.vals = append(t.vals, x)
			t.slots[i] = int32(len(t.vals))
			return len(t.vals) - 1
		}
		if t.vals[e-1] == x {
			return int(e - 1)
		}
	}
}

// strCode returns the entry of s, added if new.
func (t *dictTable) strCode(s []byte) int {
	h := maphash.Bytes(t.seed, s)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i]
		if e == 0 {
			t.strs = append(t.strs, s...)
			t.offs = append(t.offs, uint32(len(t.strs)))
			t.slots[i] = int32(len(t.offs) - 1)
			return len(t.offs) - 2
		}
		if bytes.Equal(t.strs[t.offs[e-1]:t.offs[e]], s) {
			return int(e - 1)
		}
	}
}

// dictEntries is how many entries t holds.
func (t *dictTable) dictEntries() int {
	if len(t.offs) > 1 {
		return len(t.offs) - 1
	}
	return len(t.vals)
}

// intDictMayPay reports whether a dictionary of the n values of w bytes in
// b may take fewer bits a value than bitsNow: fewer than half the values
// of a sample differ and their codes are at least 2 bits narrower.
func intDictMayPay(t *dictTable, b []byte, w, bitsNow int) bool {
	n := len(b) / w
	if n < 2*dictSample || bitsNow < 4 {
		return false
	}
	t.reset(dictSample)
	step := dictSample / dictChunks
	for c := range dictChunks {
		at := (n - step) * c / (dictChunks - 1)
		for i := at; i < at+step; i++ {
			t.intCode(intAt(b, i, w))
		}
	}
	k := t.dictEntries()
	return 2*k <= dictSample && widthOf(uint64(k))+2 <= bitsNow
}

// intAt is the i-th value of w bytes (4 or 8) of b.
func intAt(b []byte, i, w int) uint64 {
	if w == 8 {
		return binary.LittleEndian.Uint64(b[8*i:])
	}
	return uint64(binary.LittleEndian.Uint32(b[4*i:]))
}

// intDict builds the dictionary and codes of the n values of w bytes in
// b into t and codes (grown as needed and returned), and reports false if
// it has more than dictMaxK or n/2 entries.
func intDict(t *dictTable, b []byte, w int, codes []uint32) ([]uint32, bool) {
	n := len(b) / w
	limit := min(dictMaxK, n/2)
	t.reset(limit)
	codes = codes[:0]
	for i := range n {
		codes = append(codes, uint32(t.intCode(intAt(b, i, w))))
		if len(t.vals) > limit {
			return codes, false
		}
	}
	return codes, true
}

// dictValues returns the dictionary of integers of t as values of w bytes,
// in room.
func dictValues(t *dictTable, w int, room []byte) []byte {
	room = room[:0]
	for _, x := range t.vals {
		room = appendValue(room, x, w)
	}
	return room
}

// intDictSize is the bytes the integer dictionary section of the
// dictionary vals and codes takes with a tail of tail bytes, with room in
// scratch.
func intDictSize(vals []byte, codes []uint32, w, tail int, scratch []uint64) (int, []uint64) {
	v, scratch := partSize(vals, w, scratch)
	c, scratch := partSize(asBytes(codes), 4, scratch)
	return partsHeader + v + c + tail, scratch
}

// intDictBound is the most bytes an integer dictionary section of k
// entries for n values of w bytes takes with a tail of tail bytes.
func intDictBound(n, k, w, tail int) int {
	return partsHeader + partBound(k, w) + partBound(n, 4) + tail
}

// encodeIntDict writes into dst (of intDictBound bytes) the dictionary
// section of raw, whose first n values of w bytes are the dictionary vals
// and codes and the rest the tail, with room in scratch, and returns it.
func encodeIntDict(dst, raw []byte, n, w int, vals []byte, codes []uint32, scratch []uint64) ([]byte, []uint64) {
	o := partsHeader
	v, scratch := encodePart(dst[o:], vals, w, scratch)
	o += v
	c, scratch := encodePart(dst[o:], asBytes(codes), 4, scratch)
	o += c
	putPartsHeader(dst, w, n, len(vals)/w, v)
	o += copy(dst[o:], raw[n*w:])
	return dst[:o], scratch
}

// strPiece is a string column's lengths and data in a piece of body: the
// lengths (a 0 and n lengths of w bytes), gap bytes, then the data.
type strPiece struct {
	w, n      int
	lens, gap []byte
	data      []byte
}

// strLen is the length of string i of p.
func (p strPiece) strLen(i int) int { return int(intAt(p.lens, i+1, p.w)) }

// sampleStrs calls f with each string of dictChunks runs of step strings
// spread over p, the string before it in p (nil at the first of a run)
// and whether it starts its run; it reports false if p's lengths pass its
// data. The strings between runs are skipped by summing their lengths.
func sampleStrs(p strPiece, step int, f func(s, prev []byte, first bool)) bool {
	at, i := 0, 0
	for c := range dictChunks {
		from := max(i, (p.n-step)*c/(dictChunks-1))
		skip, ok := sumLens(p.lens, p.w, i+1, from+1, len(p.data))
		if !ok || skip > len(p.data)-at {
			return false
		}
		at += skip
		var prev []byte
		for i = from; i < min(from+step, p.n); i++ {
			l := p.strLen(i)
			if l > len(p.data)-at {
				return false
			}
			s := p.data[at : at+l]
			f(s, prev, i == from)
			prev, at = s, at+l
		}
	}
	return true
}

// sumLens is the sum of the values j to k-1 of w bytes (4 or 8) in lens,
// and false if one is over most.
func sumLens(lens []byte, w, j, k, most int) (int, bool) {
	sum, or := uint64(0), uint64(0)
	if w == 8 {
		for b := lens[8*j : 8*k]; len(b) >= 8; b = b[8:] {
			v := binary.LittleEndian.Uint64(b)
			sum, or = sum+v, or|v
		}
	} else {
		// Two lengths a load: the walk between sampled runs covers every
		// length of the column, for each estimate that samples it.
		b := lens[4*j : 4*k]
		for ; len(b) >= 8; b = b[8:] {
			v := binary.LittleEndian.Uint64(b)
			lo, hi := v&0xffffffff, v>>32
			sum, or = sum+lo+hi, or|v
		}
		if len(b) >= 4 {
			v := uint64(binary.LittleEndian.Uint32(b))
			sum, or = sum+v, or|v
		}
		or = or&0xffffffff | or>>32
	}
	return int(sum), or <= uint64(most)
}

// strDictMayPay reports whether a dictionary of p's strings may pay, from
// a sample (dictChunks runs of strings spread over p, dictSample in all):
// the dictionary's entries are estimated as the sample's distinct strings
// plus, for the strings not sampled, the share of the sample's strings
// seen once (Good-Turing), or as those seen in one run only times the
// column's length over the sample's if more, their bytes as the sampled entries' average,
// weighed by ratio (the column's FSST ratio), and the codes in the bits
// of that many entries; the estimate must be under 0.9 of the strings'
// bytes weighed so and their lengths. It returns the estimated entries,
// and walks the lengths once.
func strDictMayPay(t *dictTable, p strPiece, ratio float64) (float64, bool) {
	if p.n < 2*dictSample {
		return 0, false
	}
	t.reset(dictSample)
	var seen [dictSample]uint16
	var runs [dictSample]uint8 // the runs each entry was seen in, a bit each
	longest, run := 0, -1
	ok := sampleStrs(p, dictSample/dictChunks, func(s, _ []byte, first bool) {
		if first {
			run++
		}
		c := t.strCode(s)
		seen[c]++
		runs[c] |= 1 << run
		longest = max(longest, len(s))
	})
	if !ok {
		return 0, false
	}
	d := t.dictEntries()
	if 2*d > dictSample {
		return 0, false
	}
	once, alone := 0, 0
	for c, k := range seen[:d] {
		if k == 1 {
			once++
		}
		if bits.OnesCount8(runs[c]) == 1 {
			alone++
		}
	}
	// A sorted column repeats each string in a run (dates): the sample
	// sees each few times, and in one run only, so the strings seen in
	// one run stand for as many in every stretch of the column as long.
	k := min(float64(p.n), max(float64(d)+float64(once)*float64(p.n-dictSample)/dictSample,
		float64(d-alone)+float64(alone)*float64(p.n)/dictSample))
	avg := float64(len(t.strs)) / float64(d)
	lb := float64(widthOf(uint64(longest)) + 1)
	dict := k*avg*ratio + float64(p.n)*float64(widthOf(uint64(k)))/8 + k*lb/8
	plain := float64(len(p.data))*ratio + float64(p.n)*lb/8
	return k, dict < 0.9*plain
}

// strDict builds the dictionary and codes of p's strings into t and codes
// (grown as needed and returned), and reports false if they have more than
// dictMaxK or n/2 distinct strings.
func strDict(t *dictTable, p strPiece, codes []uint32) ([]uint32, bool) {
	limit := min(dictMaxK, p.n/2)
	t.reset(limit)
	codes = codes[:0]
	at := 0
	var prev []byte
	code := uint32(0)
	for i := range p.n {
		l := p.strLen(i)
		// A string equal to the one before it (a sorted column's runs)
		// takes its code without a hash.
		if s := p.data[at : at+l]; i == 0 || !bytes.Equal(s, prev) {
			code, prev = uint32(t.strCode(s)), s
		}
		codes = append(codes, code)
		at += l
		if len(t.offs)-1 > limit {
			return codes, false
		}
	}
	return codes, true
}

// dictLengths returns the lengths of the string dictionary of t as values
// of w bytes, in room.
func dictLengths(t *dictTable, w int, room []byte) []byte {
	room = room[:0]
	for i := 1; i < len(t.offs); i++ {
		room = appendValue(room, uint64(t.offs[i]-t.offs[i-1]), w)
	}
	return room
}

// strDictBound is the most bytes a string dictionary section of n strings
// with lengths of w bytes, a gap of gap bytes and k entries of m data
// bytes takes with a tail of tail bytes (the data part at most FSST's
// bound or LZ4's).
func strDictBound(w, n, gap, k, m, tail int) int {
	return strDictHeader + gap + partBound(k, w) + max(fsstBound(m, 0), lz4.CompressBlockBound(m)) + partBound(n, 4) + tail
}

// strData is what a string section's data part is written with: the
// column's FSST table (or nil), an LZ4 compressor and room for its block,
// and what LZ4 took on the column's last data part (nil: none kept).
type strData struct {
	fsst *fsstTable
	st   *lz4State
	alt  []byte // room for the LZ4 block of the data
	seen *seenShare
}

// encode writes data into dst (of the larger of fsstBound and LZ4's bound
// bytes) as the smallest of raw, LZ4 and FSST with d.fsst, if any, and
// returns its codec and the bytes written.
func (d strData) encode(dst, data []byte) (Compression, int) {
	codec, dz := None, data
	if d.fsst != nil {
		if z := encodeFSST(dst, data, len(data), d.fsst); len(z) < len(dz) {
			codec, dz = codecFSST, z
		}
	}
	// LZ4 is not tried where FSST took less than the column's last data
	// part held it to (light_seen.go).
	if d.seen == nil || len(dz) > heldBound(d.seen.held(0, len(data))) {
		k := lz4Block(d.st, d.alt, data)
		if d.seen != nil {
			d.seen.note(cmp.Or(k, len(data)), 0, len(data))
		}
		if k > 0 && k < len(dz) {
			codec, dz = LZ4, d.alt[:k]
		}
	}
	if codec != codecFSST {
		copy(dst, dz)
	}
	return codec, len(dz)
}

// strDictParts is what encodeStrDict writes the dictionary data with.
type strDictParts struct {
	lens  []byte   // the k lengths of w bytes
	codes []uint32 // the n codes
	data  []byte   // the dictionary's data
	strData
}

// encodeStrDict writes into dst (of strDictBound bytes) the string
// dictionary section of p, whose raw bytes end with tail, and returns it
// and scratch. The dictionary's data is stored as the smallest of raw,
// LZ4 and FSST with the column's table.
func encodeStrDict(dst []byte, p strPiece, tail []byte, d strDictParts, scratch []uint64) ([]byte, []uint64) {
	o := strDictHeader
	o += copy(dst[o:], p.gap)
	l, scratch := encodePart(dst[o:], d.lens, p.w, scratch)
	o += l
	m := len(d.data)
	codec, dz := d.encode(dst[o:], d.data)
	o += dz
	c, scratch := encodePart(dst[o:], asBytes(d.codes), 4, scratch)
	o += c
	dst[0], dst[1], dst[2], dst[3] = byte(p.w), byte(len(p.gap)), byte(codec), 0
	binary.LittleEndian.PutUint32(dst[4:], uint32(p.n))
	binary.LittleEndian.PutUint32(dst[8:], uint32(len(d.lens)/p.w))
	binary.LittleEndian.PutUint32(dst[12:], uint32(l))
	binary.LittleEndian.PutUint32(dst[16:], uint32(m))
	binary.LittleEndian.PutUint32(dst[20:], uint32(dz))
	binary.LittleEndian.PutUint32(dst[24:], uint32(c))
	o += copy(dst[o:], tail)
	return dst[:o], scratch
}

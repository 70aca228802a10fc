package codec

import (
	"encoding/binary"
	"sync"
	"unsafe"

	"github.com/pierrec/lz4/v4"
)

// decodeIntDict fills raw, exactly, from an integer dictionary section
// (section_dict_enc.go has the layout), checking every field before it
// writes a byte of raw: the header (parsePartsSection, k at least 2),
// each part decoding to exactly its values, and every code below k. Its
// room, the k entries and n codes, is at most twice the n*w raw bytes it
// checked.
func decodeIntDict(raw, src []byte) error {
	p, err := parsePartsSection(len(raw), src, "dictionary", 2)
	if err != nil {
		return err
	}
	pr, room := getRoom((p.k*p.w + 4*p.n + 7) / 8)
	defer roomPool.Put(pr)
	vals := asBytes(room)[:p.k*p.w]
	codes := view[uint32](asBytes(room)[p.k*p.w:])[:p.n]
	if err := decodePart(vals, p.first, p.w); err != nil {
		return err
	}
	if err := decodePart(asBytes(codes), p.next, 4); err != nil {
		return err
	}
	if err := codesBelow(codes, p.k); err != nil {
		return err
	}
	if p.w == 8 {
		gather(view[uint64](raw)[:p.n], view[uint64](vals)[:p.k], codes)
	} else {
		gather(view[uint32](raw)[:p.n], view[uint32](vals)[:p.k], codes)
	}
	copy(raw[p.n*p.w:], p.tail)
	return nil
}

// codesBelow checks that every code is below k.
func codesBelow(codes []uint32, k int) error {
	hi := uint32(0)
	for _, c := range codes {
		hi = max(hi, c)
	}
	if len(codes) > 0 && int64(hi) >= int64(k) {
		return corruptf("dictionary code %d of a dictionary of %d entries", hi, k)
	}
	return nil
}

// gather writes dict[codes[i]] to out[i]: codes checked.
func gather[T uint32 | uint64](out, dict []T, codes []uint32) {
	for i, c := range codes {
		out[i] = dict[c]
	}
}

// decodeStrDict fills raw, exactly, from a string dictionary section
// (section_dict_enc.go has the layout), checking every field before it
// writes a byte of raw: w 4 or 8; a known data codec; 2 <= k <= n <=
// 2^20; the lengths of n+1 values and the gap inside raw; the parts
// inside the section; M at most raw's bytes after them; the data part decoding to
// exactly M bytes and the k lengths summing to exactly M; every code below
// k; and the strings' data and the tail exactly what is left of raw. Its
// room (k lengths and offsets, M data bytes, n codes) is at most three
// times the raw bytes: M is at most the bytes after the lengths and gap.
func decodeStrDict(raw, src []byte) error {
	if len(src) < strDictHeader {
		return corruptf("string dictionary section of %d bytes, shorter than its header", len(src))
	}
	w, g, dc := int(src[0]), uint64(src[1]), Compression(src[2])
	n := uint64(binary.LittleEndian.Uint32(src[4:]))
	k := uint64(binary.LittleEndian.Uint32(src[8:]))
	l := uint64(binary.LittleEndian.Uint32(src[12:]))
	m := uint64(binary.LittleEndian.Uint32(src[16:]))
	d := uint64(binary.LittleEndian.Uint32(src[20:]))
	c := uint64(binary.LittleEndian.Uint32(src[24:]))
	r := uint64(len(raw))
	if w != 4 && w != 8 || dc != None && dc != LZ4 && dc != codecFSST || src[3] != 0 {
		return corruptf("string dictionary section of %d-byte lengths, data codec %d (flags %d)", w, dc, src[3])
	}
	if n == 0 || n > lightMaxValues || k < 2 || k > n {
		return corruptf("string dictionary section of %d strings and %d entries, want 2 <= entries <= strings <= %d", n, k, lightMaxValues)
	}
	lens := (n + 1) * uint64(w)
	if lens+g > r || m > r-lens-g {
		return corruptf("string dictionary section of %d strings of %d-byte lengths, a gap of %d and %d dictionary bytes in %d raw bytes", n, w, g, m, r)
	}
	if strDictHeader+g+l+d+c > uint64(len(src)) {
		return corruptf("string dictionary section of %d bytes holds parts of %d, %d and %d bytes after a gap of %d", len(src), l, d, c, g)
	}
	at := uint64(strDictHeader)
	gap := src[at : at+g]
	lp := src[at+g : at+g+l]
	dp := src[at+g+l : at+g+l+d]
	cp := src[at+g+l+d : at+g+l+d+c]
	tail := src[at+g+l+d+c:]
	kw := k * uint64(w)
	pr, room := getRoom(int((kw + 4*n + 4*(k+1) + m + strSlack + 7) / 8))
	defer roomPool.Put(pr)
	ab := asBytes(room)
	dlens := ab[:kw]
	codes := view[uint32](ab[kw : kw+4*n])[:n]
	offs := view[uint32](ab[kw+4*n : kw+4*n+4*(k+1)])[:k+1] // m < 2^32
	at = kw + 4*n + 4*(k+1)
	data := ab[at : at+m : at+m+strSlack]
	if err := decodePart(dlens, lp, w); err != nil {
		return err
	}
	if err := decodeStrData(data, dp, dc, "string dictionary's data"); err != nil {
		return err
	}
	offs[0] = 0
	for i := range k {
		l := intAt(dlens, int(i), w)
		if l > m-uint64(offs[i]) {
			return corruptf("string dictionary's lengths pass its %d bytes at entry %d", m, i)
		}
		offs[i+1] = offs[i] + uint32(l)
	}
	if uint64(offs[k]) != m {
		return corruptf("string dictionary's lengths sum to %d, its data holds %d", offs[k], m)
	}
	if err := decodePart(asBytes(codes), cp, 4); err != nil {
		return err
	}
	total, bad := stringsTotal(codes, offs)
	if bad {
		return codesBelow(codes, int(k))
	}
	if lens+g+total+uint64(len(tail)) != r {
		return corruptf("string dictionary section's strings take %d bytes and its tail %d, of %d raw bytes after %d of lengths and gap", total, len(tail), r-lens-g, lens+g)
	}
	if w == 4 && total > 1<<31-1 {
		return corruptf("string dictionary section's strings take %d bytes, past 32-bit lengths", total)
	}
	copy(raw[lens:], gap)
	data = data[:m+strSlack]
	var o int
	if w == 8 {
		o = putDictStrings(view[uint64](raw[:lens])[:n+1], raw[lens+g:], data, offs, codes)
	} else {
		o = putDictStrings(view[uint32](raw[:lens])[:n+1], raw[lens+g:], data, offs, codes)
	}
	copy(raw[lens+g+uint64(o):], tail)
	return nil
}

// stringsTotal returns the bytes the strings of codes take, from the k+1
// offsets of a string dictionary's entries, and reports true, before
// summing them all, if a code is k or more.
func stringsTotal(codes, offs []uint32) (total uint64, bad bool) {
	k := uint32(len(offs) - 1)
	for _, x := range codes {
		if x >= k {
			return 0, true
		}
		total += uint64(offs[x+1] - offs[x])
	}
	return total, false
}

// decodeStrData fills data, exactly, from the data part dp of a string
// section (what names it), stored with codec dc (checked to be raw, LZ4
// or FSST).
func decodeStrData(data, dp []byte, dc Compression, what string) error {
	switch dc {
	case None:
		if len(dp) != len(data) {
			return corruptf("%s of %d bytes stored raw in %d", what, len(data), len(dp))
		}
		copy(data, dp)
	case LZ4:
		if got, err := lz4.UncompressBlock(dp, data); err != nil || got != len(data) {
			return corruptf("%s: LZ4 data decodes to %d of %d bytes (%v)", what, got, len(data), err)
		}
	case codecFSST:
		return decodeFSST(data, dp)
	}
	return nil
}

// strSlack is the room after a string dictionary's data that lets a
// decoder move a string of up to strSlack bytes as one word.
const strSlack = 16

// putDictStrings writes a 0 then the length of entry codes[i] for each i
// into lb, and the entries' strings, read from data (strSlack bytes past
// them), one after another into out, in one pass: codes checked below
// len(offs)-1, and out holding their bytes. It returns the bytes written
// to out.
func putDictStrings[T uint32 | uint64](lb []T, out, data []byte, offs, codes []uint32) int {
	lb[0] = 0
	lb = lb[1 : len(codes)+1]
	// Codes below len(offs)-1 and data's strSlack bytes of room let
	// the lookups and the 16-byte moves go through pointers: the
	// slices' checks took most of the loop.
	ob, op, dp := unsafe.Pointer(unsafe.SliceData(offs)), unsafe.Pointer(unsafe.SliceData(out)), unsafe.Pointer(unsafe.SliceData(data))
	o := 0
	for i, x := range codes {
		a, e := *(*uint32)(unsafe.Add(ob, 4*uintptr(x))), *(*uint32)(unsafe.Add(ob, 4*uintptr(x)+4))
		l := int(e - a)
		lb[i] = T(l)
		if l <= strSlack && len(out)-o >= strSlack {
			// Short strings as one 16-byte move: data has strSlack bytes
			// of room after its end, and the bytes past the string in
			// out are written next (a later string, or the tail).
			*(*[strSlack]byte)(unsafe.Add(op, o)) = *(*[strSlack]byte)(unsafe.Add(dp, a))
		} else {
			copy(out[o:], data[a:e])
		}
		o += l
	}
	return o
}

// roomPool holds the room run-length and dictionary decoders unpack their
// parts into.
var roomPool = sync.Pool{New: func() any { return new([]uint64) }}

// getRoom returns a pooled buffer of n words (to go back with
// roomPool.Put(p)) and its words.
func getRoom(n int) (*[]uint64, []uint64) {
	p := roomPool.Get().(*[]uint64)
	if cap(*p) < n {
		*p = make([]uint64, n)
	}
	return p, (*p)[:n]
}

package codec

import "encoding/binary"

// decodeFront fills raw, exactly, from a front-coded string section
// (section_front_enc.go has the layout), checking every field before it
// writes a byte of raw: w 4 or 8; a known suffix codec; 1 <= n <= 2^20;
// the lengths of n+1 values and the gap inside raw; the parts inside the
// section; M at most raw's bytes after them; the data part decoding to
// exactly M bytes; the first prefix 0 and each at most the length of the
// string before; the suffix lengths summing to exactly M; and the
// strings' data and the tail exactly what is left of raw. Its room (2n
// lengths, M suffix bytes) is at most three times the raw bytes.
func decodeFront(raw, src []byte) error {
	if len(src) < frontHeader {
		return corruptf("front-coded section of %d bytes, shorter than its header", len(src))
	}
	w, g, dc := int(src[0]), uint64(src[1]), Compression(src[2])
	n := uint64(binary.LittleEndian.Uint32(src[4:]))
	pl := uint64(binary.LittleEndian.Uint32(src[8:]))
	sl := uint64(binary.LittleEndian.Uint32(src[12:]))
	m := uint64(binary.LittleEndian.Uint32(src[16:]))
	d := uint64(binary.LittleEndian.Uint32(src[20:]))
	r := uint64(len(raw))
	if w != 4 && w != 8 || dc != None && dc != LZ4 && dc != codecFSST || src[3] != 0 {
		return corruptf("front-coded section of %d-byte lengths, suffix codec %d (flags %d)", w, dc, src[3])
	}
	if n == 0 || n > lightMaxValues {
		return corruptf("front-coded section of %d strings, want 1 to %d", n, lightMaxValues)
	}
	lens := (n + 1) * uint64(w)
	if lens+g > r || m > r-lens-g {
		return corruptf("front-coded section of %d strings of %d-byte lengths, a gap of %d and %d suffix bytes in %d raw bytes", n, w, g, m, r)
	}
	if frontHeader+g+pl+sl+d > uint64(len(src)) {
		return corruptf("front-coded section of %d bytes holds parts of %d, %d and %d bytes after a gap of %d", len(src), pl, sl, d, g)
	}
	at := uint64(frontHeader)
	gap := src[at : at+g]
	pp := src[at+g : at+g+pl]
	sp := src[at+g+pl : at+g+pl+sl]
	dp := src[at+g+pl+sl : at+g+pl+sl+d]
	tail := src[at+g+pl+sl+d:]
	pr, room := getRoom(int((8*n + m + strSlack + 7) / 8))
	defer roomPool.Put(pr)
	ab := asBytes(room)
	pre := view[uint32](ab[:4*n])[:n]
	suf := view[uint32](ab[4*n : 8*n])[:n]
	data := ab[8*n : 8*n+m : 8*n+m+strSlack]
	if err := decodePart(asBytes(pre), pp, 4); err != nil {
		return err
	}
	if err := decodePart(asBytes(suf), sp, 4); err != nil {
		return err
	}
	if err := decodeStrData(data, dp, dc, "front-coded suffixes"); err != nil {
		return err
	}
	strLens := suf // frontLengths turns the suffix lengths into the strings'
	total, sufs, ok := frontLengths(pre, strLens)
	if !ok {
		return frontPrefixError(pre, strLens)
	}
	if sufs != m {
		return corruptf("front-coded suffix lengths sum to %d, the suffixes hold %d", sufs, m)
	}
	if lens+g+total+uint64(len(tail)) != r {
		return corruptf("front-coded section's strings take %d bytes and its tail %d, of %d raw bytes after %d of lengths and gap", total, len(tail), r-lens-g, lens+g)
	}
	if w == 4 && total > 1<<31-1 {
		return corruptf("front-coded section's strings take %d bytes, past 32-bit lengths", total)
	}
	copy(raw[lens:], gap)
	if w == 8 {
		putFrontLengths(view[uint64](raw[:lens])[:n+1], strLens)
	} else {
		putFrontLengths(view[uint32](raw[:lens])[:n+1], strLens)
	}
	putFrontStrings(raw[lens+g:], data[:m+strSlack], pre, strLens)
	copy(raw[lens+g+total:], tail)
	return nil
}

// frontLengths turns the suffix lengths sl of the strings of prefix
// lengths pre into the strings' lengths, in place, and returns the bytes
// of the strings and of their suffixes, and reports whether the first
// prefix is 0 and each at most the length of the string before. It has
// no branch on the lengths, as the check passes on every string of a sound
// section; the sums of at most 2^20 32-bit lengths cannot wrap. A length
// fits 32 bits when the check passes and the suffixes sum to under 2^32,
// as each is then at most that sum.
func frontLengths(pre, sl []uint32) (total, sufs uint64, ok bool) {
	sl = sl[:len(pre)]
	prev, bad := uint64(0), uint64(0)
	for i, p32 := range pre {
		p, s := uint64(p32), uint64(sl[i])
		bad |= prev - p // wraps, setting bit 63, if p > prev
		prev, sufs = p+s, sufs+s
		total += prev
		sl[i] = uint32(prev)
	}
	return total, sufs, bad>>63 == 0
}

// frontPrefixError is the error of the first string whose prefix is
// longer than the string before it (frontLengths found one; lens are the
// lengths it wrote).
func frontPrefixError(pre, lens []uint32) error {
	prev := uint32(0)
	for i, p := range pre {
		if p > prev {
			return corruptf("front-coded string %d shares %d bytes with a string of %d before it", i, p, prev)
		}
		prev = lens[i]
	}
	return corruptf("front-coded strings share more bytes than the strings before them hold")
}

// putFrontLengths writes a 0 then the strings' lengths lens (checked to
// fit).
func putFrontLengths[T uint32 | uint64](lb []T, lens []uint32) {
	lb[0] = 0
	if lb32, ok := any(lb).([]uint32); ok {
		copy(lb32[1:], lens)
		return
	}
	lb = lb[1 : len(lens)+1] // no bounds checks in the loop
	for i, l := range lens {
		lb[i] = T(l)
	}
}

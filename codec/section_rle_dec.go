package codec

import "encoding/binary"

// partsSection is the header and parts of a run-length or dictionary
// section (section_rle_enc.go has the layout), checked against the raw
// bytes it fills.
type partsSection struct {
	w, n, k     int
	first, next []byte // the values part and the ends or codes part
	tail        []byte
}

// parsePartsSection checks the header of a run-length or dictionary
// section src (name says which) of r raw bytes before anything is sized
// from it: w 4 or 8, 1 <= n <= 2^20 values inside r, 1 <= k <= n (at
// least 2 for a dictionary: one value is a run), the values part inside
// the section, and the tail exactly the raw bytes after the values.
func parsePartsSection(r int, src []byte, name string, minK int) (partsSection, error) {
	var p partsSection
	if len(src) < partsHeader {
		return p, corruptf("%s section of %d bytes, shorter than its header", name, len(src))
	}
	w := int(src[0])
	n := uint64(binary.LittleEndian.Uint32(src[4:]))
	k := uint64(binary.LittleEndian.Uint32(src[8:]))
	v := uint64(binary.LittleEndian.Uint32(src[12:]))
	if w != 4 && w != 8 || src[1]|src[2]|src[3] != 0 {
		return p, corruptf("%s section of %d-byte values (flags %d)", name, w, binary.LittleEndian.Uint32(src)>>8)
	}
	if n == 0 || n > lightMaxValues || n*uint64(w) > uint64(r) {
		return p, corruptf("%s section of %d values of %d bytes in %d raw bytes (at most %d values)", name, n, w, r, lightMaxValues)
	}
	if k < uint64(minK) || k > n {
		return p, corruptf("%s section of %d values in %d parts, want %d to %d", name, n, k, minK, n)
	}
	tail := uint64(r) - n*uint64(w)
	if v > uint64(len(src)-partsHeader) || tail > uint64(len(src)-partsHeader)-v {
		return p, corruptf("%s section of %d bytes holds a values part of %d and a tail of %d", name, len(src), v, tail)
	}
	p.w, p.n, p.k = w, int(n), int(k)
	p.first = src[partsHeader : partsHeader+v]
	p.next = src[partsHeader+v : uint64(len(src))-tail]
	p.tail = src[uint64(len(src))-tail:]
	return p, nil
}

// decodePart fills out, exactly, from a part of len(out)/w values of w
// bytes (encodePart): one value's w raw bytes, or a bit-packed section.
func decodePart(out, src []byte, w int) error {
	if len(out) == w {
		if len(src) != w {
			return corruptf("part of one %d-byte value stored in %d bytes", w, len(src))
		}
		copy(out, src)
		return nil
	}
	return decodeBitpack(out, src)
}

// decodeRLE fills raw, exactly, from a run-length section
// (section_rle_enc.go has the layout), checking every field before it
// writes a byte of raw: the header (parsePartsSection), each part
// decoding to exactly its values, and the run ends strictly increasing
// from at least 1 to below n. Its room, the k values and k-1 ends, is at
// most twice the n*w raw bytes it checked.
func decodeRLE(raw, src []byte) error {
	p, err := parsePartsSection(len(raw), src, "run-length", 1)
	if err != nil {
		return err
	}
	if p.k == 1 {
		if len(p.first) != p.w || len(p.next) != 0 {
			return corruptf("run-length section of one run with parts of %d and %d bytes", len(p.first), len(p.next))
		}
		var one [1]uint64 // p.first may not be aligned
		copy(asBytes(one[:]), p.first)
		fillRuns(raw[:p.n*p.w], asBytes(one[:])[:p.w], nil, p.w)
		copy(raw[p.n*p.w:], p.tail)
		return nil
	}
	pr, room := getRoom((p.k*p.w + 4*(p.k-1) + 7) / 8)
	defer roomPool.Put(pr)
	vals := asBytes(room)[:p.k*p.w]
	ends := view[uint32](asBytes(room)[p.k*p.w:])[:p.k-1]
	if err := decodePart(vals, p.first, p.w); err != nil {
		return err
	}
	if err := decodePart(asBytes(ends), p.next, 4); err != nil {
		return err
	}
	prev := uint32(0)
	for i, e := range ends {
		if e <= prev || e >= uint32(p.n) {
			return corruptf("run-length section: run %d ends at %d, after %d, in %d values", i, e, prev, p.n)
		}
		prev = e
	}
	fillRuns(raw[:p.n*p.w], vals, ends, p.w)
	copy(raw[p.n*p.w:], p.tail)
	return nil
}

// fillRuns writes into out the runs of vals (w bytes each) ending at ends
// and, the last, at the end of out: ends checked.
func fillRuns(out, vals []byte, ends []uint32, w int) {
	if w == 8 {
		fillRunsT(view[uint64](out)[:len(out)/8], view[uint64](vals)[:len(vals)/8], ends)
		return
	}
	fillRunsT(view[uint32](out)[:len(out)/4], view[uint32](vals)[:len(vals)/4], ends)
}

func fillRunsT[T uint32 | uint64](out, vals []T, ends []uint32) {
	at := 0
	for j, x := range vals {
		end := len(out)
		if j < len(ends) {
			end = int(ends[j])
		}
		s := out[at:end]
		for i := range s {
			s[i] = x
		}
		at = end
	}
}

package codec

import "encoding/binary"

// decodeFSST fills raw, exactly, from an FSST section (section_fsst_enc.go
// has the layout), checking every field before it uses it: the decoded
// length inside raw, at most 255 symbols of 1 to 8 bytes, the table and
// codes inside the section, the tail exactly what is left of raw, and the
// codes decoding to exactly m bytes (never a byte past them, an escape
// never the last code).
func decodeFSST(raw, src []byte) error {
	if len(src) < fsstHeader+1 {
		return corruptf("fsst section of %d bytes, shorter than its header", len(src))
	}
	m := uint64(binary.LittleEndian.Uint32(src))
	c := uint64(binary.LittleEndian.Uint32(src[4:]))
	if m > uint64(len(raw)) {
		return corruptf("fsst section decodes to %d bytes, it holds %d", m, len(raw))
	}
	k := int(src[fsstHeader])
	if k > fsstMaxSymbols {
		return corruptf("fsst table of %d symbols, at most %d", k, fsstMaxSymbols)
	}
	at := fsstHeader + 1
	if len(src)-at < k {
		return corruptf("fsst table of %d symbols in %d bytes", k, len(src)-at)
	}
	lens := src[at : at+k]
	at += k
	var sym [256]uint64
	var slen [256]uint8
	for i, l := range lens {
		if l < 1 || l > 8 {
			return corruptf("fsst symbol %d of %d bytes, want 1 to 8", i, l)
		}
		if len(src)-at < int(l) {
			return corruptf("fsst symbol %d runs past the section", i)
		}
		var b [8]byte
		copy(b[:], src[at:at+int(l)])
		sym[i], slen[i] = binary.LittleEndian.Uint64(b[:]), l
		at += int(l)
	}
	tail := uint64(len(raw)) - m
	if uint64(len(src)-at) != c+tail {
		return corruptf("fsst section has %d bytes after its table, want %d codes and a tail of %d", len(src)-at, c, tail)
	}
	codes := src[at : at+int(c)]
	out := raw[:m]
	o, i := 0, 0
	// While 32 bytes of room are left, take codes four at a time when none
	// of them is an escape or unknown, writing whole symbols (8 bytes
	// each, the bytes past a symbol's length overwritten by the next) and
	// advancing by their lengths; otherwise one code.
	for i+4 <= len(codes) && o+32 <= len(out) {
		c4 := binary.LittleEndian.Uint32(codes[i:])
		if x := ^c4; (x-0x01010101)&^x&0x80808080 == 0 {
			c0, c1, c2, c3 := uint8(c4), uint8(c4>>8), uint8(c4>>16), uint8(c4>>24)
			l0, l1, l2, l3 := int(slen[c0]), int(slen[c1]), int(slen[c2]), int(slen[c3])
			if l0 != 0 && l1 != 0 && l2 != 0 && l3 != 0 {
				binary.LittleEndian.PutUint64(out[o:], sym[c0])
				o += l0
				binary.LittleEndian.PutUint64(out[o:], sym[c1])
				o += l1
				binary.LittleEndian.PutUint64(out[o:], sym[c2])
				o += l2
				binary.LittleEndian.PutUint64(out[o:], sym[c3])
				o += l3
				i += 4
				continue
			}
		}
		code := codes[i]
		if code == fsstEscape {
			out[o] = codes[i+1] // i+1 < i+4 <= len(codes)
			o++
			i += 2
			continue
		}
		l := slen[code]
		if l == 0 {
			return corruptf("fsst code %d names none of the %d symbols", code, k)
		}
		binary.LittleEndian.PutUint64(out[o:], sym[code])
		o += int(l)
		i++
	}
	// While 8 bytes of room are left, write whole symbols and advance by
	// their length; then finish byte by byte.
	for ; i < len(codes) && o+8 <= len(out); i++ {
		code := codes[i]
		if code != fsstEscape {
			l := slen[code]
			if l == 0 {
				return corruptf("fsst code %d names none of the %d symbols", code, k)
			}
			binary.LittleEndian.PutUint64(out[o:], sym[code])
			o += int(l)
			continue
		}
		i++
		if i == len(codes) {
			return corruptf("fsst codes end in an escape")
		}
		out[o] = codes[i]
		o++
	}
	for ; i < len(codes); i++ {
		code := codes[i]
		if code == fsstEscape {
			i++
			if i == len(codes) {
				return corruptf("fsst codes end in an escape")
			}
			if o == len(out) {
				return corruptf("fsst codes decode past %d bytes", m)
			}
			out[o] = codes[i]
			o++
			continue
		}
		l := int(slen[code])
		if l == 0 {
			return corruptf("fsst code %d names none of the %d symbols", code, k)
		}
		if len(out)-o < l {
			return corruptf("fsst codes decode past %d bytes", m)
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], sym[code])
		o += copy(out[o:], b[:l])
	}
	if o != len(out) {
		return corruptf("fsst codes decode to %d bytes, the section says %d", o, m)
	}
	copy(raw[m:], src[at+int(c):])
	return nil
}

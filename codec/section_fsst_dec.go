package codec

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

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
		if len(src)-at >= 8 {
			// One load, cut to the symbol's bytes: a copy of a few
			// bytes cost most of a small section's decode.
			sym[i] = binary.LittleEndian.Uint64(src[at:]) & (^uint64(0) >> (64 - 8*l))
		} else {
			var b [8]byte
			copy(b[:], src[at:at+int(l)])
			sym[i] = binary.LittleEndian.Uint64(b[:])
		}
		slen[i] = l
		at += int(l)
	}
	tail := uint64(len(raw)) - m
	if uint64(len(src)-at) != c+tail {
		return corruptf("fsst section has %d bytes after its table, want %d codes and a tail of %d", len(src)-at, c, tail)
	}
	codes := src[at : at+int(c)]
	out := raw[:m]
	// The fast loop may write symbols past m, into the tail's room (the
	// tail is copied after), never past raw.
	o, i := fsstDecodeFast(raw, codes, &sym, &slen, k)
	if o > len(out) {
		return corruptf("fsst codes decode past %d bytes", m)
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

// fsstDecodeFast decodes codes with the table (sym, slen) of k symbols
// into dst while at least 8 codes and 64 bytes of room are left, and
// returns the bytes written and the codes taken. Each symbol is written as
// a whole word (its bytes past its length overwritten by the next) straight
// into dst: the room for a round of 8 codes (at most 64 bytes) is checked
// once, before it, so the stores need no checks of their own. A round of 8
// codes without an escape takes them all; otherwise the codes before the
// first escape and the escaped byte. It stops before a round that holds a
// code naming no symbol (k or more), leaving it to the caller to report.
func fsstDecodeFast(dst, codes []byte, sym *[256]uint64, slen *[256]uint8, k int) (o, i int) {
	if len(dst) < 64 || len(codes) < 8 {
		return 0, 0
	}
	p := unsafe.Pointer(unsafe.SliceData(dst))
	put := func(o int, v uint64) {
		binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(p, o))[:], v)
	}
	// A code of k or more sets bit 7 of its byte in none (below): its low
	// 7 bits plus add carry into bit 7 when they reach k (or k - 128,
	// for a code with bit 7 set, when k >= 128), and a code with bit 7
	// set is k or more anyway when k < 128 (hm). Checking the round's
	// codes once, before it, takes 2 instructions a code less than
	// checking each length after it.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	add, hm := uint64(128-k)*ones, uint64(highs)
	if k >= 128 {
		add, hm = uint64(256-k)*ones, 0
	}
	for i+8 <= len(codes) && o+64 <= len(dst) {
		w := binary.LittleEndian.Uint64(codes[i:])
		x := ^w // an escape (0xff) is a zero byte of x
		esc := (x - 0x0101010101010101) &^ x & 0x8080808080808080
		if esc == 0 {
			t := w&^highs + add
			if ((t&(w|hm))|(w&hm))&highs != 0 {
				return o, i
			}
			// Eight symbols, one after another, each code read from
			// memory: taken from w by shifts, Go computed all eight up
			// front and kept them on the stack.
			cp := unsafe.Pointer(unsafe.SliceData(codes[i : i+8]))
			c0 := *(*uint8)(unsafe.Add(cp, 0))
			put(o, sym[c0])
			o += int(slen[c0])
			c1 := *(*uint8)(unsafe.Add(cp, 1))
			put(o, sym[c1])
			o += int(slen[c1])
			c2 := *(*uint8)(unsafe.Add(cp, 2))
			put(o, sym[c2])
			o += int(slen[c2])
			c3 := *(*uint8)(unsafe.Add(cp, 3))
			put(o, sym[c3])
			o += int(slen[c3])
			c4 := *(*uint8)(unsafe.Add(cp, 4))
			put(o, sym[c4])
			o += int(slen[c4])
			c5 := *(*uint8)(unsafe.Add(cp, 5))
			put(o, sym[c5])
			o += int(slen[c5])
			c6 := *(*uint8)(unsafe.Add(cp, 6))
			put(o, sym[c6])
			o += int(slen[c6])
			c7 := *(*uint8)(unsafe.Add(cp, 7))
			put(o, sym[c7])
			o += int(slen[c7])
			i += 8
			continue
		}
		// The lowest flagged byte is the first escape (flags above it
		// may be false).
		for range bits.TrailingZeros64(esc) >> 3 {
			c := uint8(w)
			w >>= 8
			l := slen[c]
			if l == 0 {
				return o, i
			}
			put(o, sym[c])
			o += int(l)
			i++
		}
		if i+1 == len(codes) {
			return o, i // the caller reports the escape ending the codes
		}
		*(*byte)(unsafe.Add(p, o)) = codes[i+1]
		o++
		i += 2
	}
	return o, i
}

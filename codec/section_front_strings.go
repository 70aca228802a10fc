package codec

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// The hot loop of decodeFront, on its own: writing a front-coded
// section's strings from their prefixes and suffixes.

// putFrontStrings writes the strings of prefix and suffix lengths pre and
// suf (checked) into out, their suffixes read from data (strSlack bytes
// past them): runs of strings of at most 8 bytes by frontTiny, runs of
// short ones by frontShort, each long one by copies.
func putFrontStrings(out, data []byte, pre, suf []uint32) {
	var lo, hi uint64 // the string before's first 16 bytes
	o, a := 0, 0
	suf = suf[:len(pre)]
	for i := 0; i < len(pre); i++ {
		var k int
		k, o, a, lo = frontTiny(out, data, pre[i:], suf[i:], o, a, lo)
		if i += k; i == len(pre) {
			break
		}
		k, o, a, lo, hi = frontShort(out, data, pre[i:], suf[i:], o, a, lo, hi)
		if i += k; i == len(pre) {
			break
		}
		p, s := int(pre[i]), int(suf[i])
		if p > 0 { // then i > 0: the first prefix is 0
			copy(out[o:], out[o-int(pre[i-1]+suf[i-1]):][:p])
		}
		copy(out[o+p:], data[a:a+s])
		var w [16]byte
		copy(w[:], out[o:o+p+s])
		lo, hi = binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:])
		o, a = o+p+s, a+s
	}
}

// frontShift[k] shifts a word left by k bytes as a multiplier (0 for 8
// and up: all shifted out), and less one is the mask of its k low bytes:
// multiplies and a table need none of the fixed registers, and none of the
// checks for 64 and over, that Go's variable shifts take, which left the
// loop short of registers.
var frontShift = [16]uint64{1, 1 << 8, 1 << 16, 1 << 24, 1 << 32, 1 << 40, 1 << 48, 1 << 56}

// frontTiny is frontShort for strings of at most 8 bytes (ZIP codes,
// country codes): it writes them while each is that short, with fewer
// values to keep than frontShort, which Go then keeps in registers.
func frontTiny(out, data []byte, pre, suf []uint32, o, a int, lo uint64) (int, int, int, uint64) {
	base := unsafe.Pointer(unsafe.SliceData(out))
	op := unsafe.Add(base, o)
	limit := uintptr(base) + uintptr(len(out)) - strSlack // needs len(out) >= strSlack
	if len(out) < strSlack {
		return 0, o, a, lo
	}
	dbase := unsafe.Pointer(unsafe.SliceData(data))
	dp := unsafe.Add(dbase, a)
	suf = suf[:len(pre)]
	for i, p32 := range pre {
		p, s := uint(p32), uint(suf[i])
		if p+s > 8 || uintptr(op) > limit {
			return i, int(uintptr(op) - uintptr(base)), int(uintptr(dp) - uintptr(dbase)), lo
		}
		m := frontShift[p&15] // p <= 8; frontShift[8], 0, keeps lo as it is
		lo = lo&(m-1) | binary.LittleEndian.Uint64((*[8]byte)(dp)[:])*m
		binary.LittleEndian.PutUint64((*[8]byte)(op)[:], lo)
		op, dp = unsafe.Add(op, p+s), unsafe.Add(dp, s)
	}
	return len(pre), int(uintptr(op) - uintptr(base)), int(uintptr(dp) - uintptr(dbase)), lo
}

// frontShort writes the strings of pre and suf from out[o:], their
// suffixes from data[a:], while each is at most 16 bytes and out has 16
// bytes of room, and returns how many it wrote, where it stopped in out
// and data and the last one's first 16 bytes. lo and hi hold the string
// before's: reading it back from out would wait on the stores that just
// wrote it. Each string is built in them and written as 16 bytes (8 for
// one of at most 8); the bytes past it are written next, by a later string or the tail. The
// loop has no call, and uses pointers, so that its state stays in
// registers: the loads and stores stay inside out and data because
// decodeFront checked that the prefixes and suffixes sum to what fits
// and data has strSlack bytes past its suffixes. The words are read and
// written little-endian, byte by byte where the machine needs that.
func frontShort(out, data []byte, pre, suf []uint32, o, a int, lo, hi uint64) (int, int, int, uint64, uint64) {
	base := unsafe.Pointer(unsafe.SliceData(out))
	op := unsafe.Add(base, o)
	end := uintptr(base) + uintptr(len(out))
	dbase := unsafe.Pointer(unsafe.SliceData(data))
	dp := unsafe.Add(dbase, a)
	suf = suf[:len(pre)]
	for i, p32 := range pre {
		p, s := uint(p32), uint(suf[i])
		if p+s > strSlack || end-uintptr(op) < strSlack {
			return i, int(uintptr(op) - uintptr(base)), int(uintptr(dp) - uintptr(dbase)), lo, hi
		}
		sl := binary.LittleEndian.Uint64((*[8]byte)(dp)[:])
		if p < 8 && p+s <= 8 {
			// A string of at most 8 bytes is all in lo; the next
			// shares at most 8 bytes with it, so hi is not read
			// before it is set again.
			m := frontShift[p]
			lo = lo&(m-1) | sl*m
			binary.LittleEndian.PutUint64((*[8]byte)(op)[:], lo)
		} else {
			sh := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(dp, 8))[:])
			if p < 8 {
				// One multiply shifts sl left by p bytes into the
				// two words.
				m := frontShift[p]
				up, l := bits.Mul64(sl, m)
				lo, hi = lo&(m-1)|l, sh*m|up
			} else {
				m := frontShift[(p-8)&15] // p <= 16
				hi = hi&(m-1) | sl*m
			}
			binary.LittleEndian.PutUint64((*[8]byte)(op)[:], lo)
			binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(op, 8))[:], hi)
		}
		op, dp = unsafe.Add(op, p+s), unsafe.Add(dp, s)
	}
	return len(pre), int(uintptr(op) - uintptr(base)), int(uintptr(dp) - uintptr(dbase)), lo, hi
}

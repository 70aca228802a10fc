package codec

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// The hot loop of decodeFront, on its own: writing a front-coded
// section's strings from their prefixes and suffixes.

// putFrontStrings writes the strings of prefix lengths pre and lengths
// lens (checked) into out, their suffixes read from data (strSlack bytes
// past them): runs of strings of at most 8 bytes by frontTiny, runs of
// short ones by frontShort, each long one by frontLong, or by copies at
// the end of out.
func putFrontStrings(out, data []byte, pre, lens []uint32) {
	var lo, hi uint64 // the string before's first 16 bytes
	o, a := 0, 0
	lens = lens[:len(pre)]
	for i := 0; i < len(pre); i++ {
		// (The calls are for runs: a string too long for them, as most
		// of some columns are, skips them.)
		if lens[i] <= 8 {
			k, wrote, read, last := frontTiny(out[o:], data[a:], pre[i:], lens[i:], lo)
			o, a, lo = o+wrote, a+read, last
			if i += k; i == len(pre) {
				break
			}
		}
		if lens[i] <= strSlack {
			var k int
			k, o, a, lo, hi = frontShort(out, data, pre[i:], lens[i:], o, a, lo, hi)
			if i += k; i == len(pre) {
				break
			}
		}
		p, l := int(pre[i]), int(lens[i])
		if l > strSlack && len(out)-o-l >= strSlack {
			prev := 0
			if i > 0 {
				prev = int(lens[i-1])
			}
			lo, hi = frontLong(out[o:], data[a:], p, l, prev, lo, hi)
			o, a = o+l, a+l-p
			continue
		}
		if p > 0 { // then i > 0: the first prefix is 0
			copy(out[o:], out[o-int(lens[i-1]):][:p])
		}
		copy(out[o+p:], data[a:a+l-p])
		var w [16]byte
		copy(w[:], out[o:o+l])
		lo, hi = binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:])
		o, a = o+l, a+l-p
	}
}

// frontLong writes a string longer than strSlack, of prefix length p and
// length l, at the start of out (which has strSlack bytes of room past
// it), its suffix from data (strSlack bytes past it), after a string of
// length prev whose first 16 bytes are lo and hi (only the first 8 if
// prev is at most 8), and returns its own first 16 bytes. It copies in
// words, 16 bytes at a time, where copy would call memmove twice for
// strings this short: a prefix of at most 16 bytes from lo and hi, a
// longer one from the string before, 16 bytes or more behind. The bytes it
// writes past the prefix the suffix writes again, and those past the
// string a later string or the tail.
func frontLong(out, data []byte, p, l, prev int, lo, hi uint64) (uint64, uint64) {
	op := unsafe.Pointer(unsafe.SliceData(out))
	if p <= strSlack {
		binary.LittleEndian.PutUint64((*[8]byte)(op)[:], lo)
		binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(op, 8))[:], hi)
	} else {
		moveWords(op, unsafe.Add(op, -prev), p)
	}
	moveWords(unsafe.Add(op, p), unsafe.Pointer(unsafe.SliceData(data)), l-p)
	return binary.LittleEndian.Uint64((*[8]byte)(op)[:]), binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(op, 8))[:])
}

// moveWords copies n bytes from from to to, 16 at a time, so up to 15
// bytes past them: from must be 16 bytes or more before to, or apart.
func moveWords(to, from unsafe.Pointer, n int) {
	for j := 0; j < n; j += 16 {
		w0 := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(from, j))[:])
		w1 := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(from, j+8))[:])
		binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(to, j))[:], w0)
		binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(to, j+8))[:], w1)
	}
}

// frontShift[k] shifts a word left by k bytes as a multiplier (0 for 8
// and up: all shifted out), and less one is the mask of its k low bytes:
// multiplies and a table need none of the fixed registers, and none of the
// checks for 64 and over, that Go's variable shifts take, which left the
// loop short of registers.
var frontShift = [16]uint64{1, 1 << 8, 1 << 16, 1 << 24, 1 << 32, 1 << 40, 1 << 48, 1 << 56}

// frontTiny is frontShort for strings of at most 8 bytes (ZIP codes,
// country codes): it writes them while each is that short and out has
// room, and returns how many it wrote, the bytes it wrote to out and read
// from data, and the last one's first 8 bytes.
func frontTiny(out, data []byte, pre, lens []uint32, lo uint64) (k, wrote, read int, _ uint64) {
	lens = lens[:len(pre)]
	for k < len(pre) && len(out)-wrote >= strSlack {
		// Each string writes 8 bytes and moves at most 8: this many fit
		// in the room left, which the run then need not check.
		n := min(len(pre)-k, (len(out)-wrote-strSlack)/8+1)
		i, w, r, l := frontTinyRun(out[wrote:], data[read:], pre[k:k+n], lens[k:k+n], lo)
		k, wrote, read, lo = k+i, wrote+w, read+r, l
		if i < n {
			break
		}
	}
	return k, wrote, read, lo
}

// frontTinyRun is frontTiny's loop, over strings that fit in out: it has
// few enough values for Go to keep them all in registers.
func frontTinyRun(out, data []byte, pre, lens []uint32, lo uint64) (k, wrote, read int, _ uint64) {
	op := unsafe.Pointer(unsafe.SliceData(out))
	dp := unsafe.Pointer(unsafe.SliceData(data))
	lens = lens[:len(pre)]
	for i, p32 := range pre {
		p, l := uint(p32), uint(lens[i])
		if l > 8 {
			return i, wrote, read, lo
		}
		m := frontShift[p&15] // p <= 8; frontShift[8], 0, keeps lo as it is
		lo = lo&(m-1) | binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(dp, read))[:])*m
		binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(op, wrote))[:], lo)
		wrote, read = wrote+int(l), read+int(l-p)
	}
	return len(pre), wrote, read, lo
}

// frontShort writes the strings of prefix lengths pre and lengths lens
// from out[o:], their suffixes from data[a:], while each is at most 16
// bytes and out has 16 bytes of room, and returns how many it wrote,
// where it stopped in out and data and the last one's first 16 bytes. lo
// and hi hold the string before's: reading it back from out would wait on
// the stores that just wrote it. Each string is built in them and written
// as 16 bytes (8 for one of at most 8); the bytes past it are written
// next, by a later string or the tail. The loop has no call, and uses
// pointers, so that its state stays in registers: the loads and stores
// stay inside out and data because decodeFront checked that the prefixes
// and suffixes sum to what fits and data has strSlack bytes past its
// suffixes. The words are read and written little-endian, byte by byte
// where the machine needs that.
func frontShort(out, data []byte, pre, lens []uint32, o, a int, lo, hi uint64) (int, int, int, uint64, uint64) {
	base := unsafe.Pointer(unsafe.SliceData(out))
	op := unsafe.Add(base, o)
	end := uintptr(base) + uintptr(len(out))
	dbase := unsafe.Pointer(unsafe.SliceData(data))
	dp := unsafe.Add(dbase, a)
	lens = lens[:len(pre)]
	for i, p32 := range pre {
		p, l := uint(p32), uint(lens[i])
		if l > strSlack || end-uintptr(op) < strSlack {
			return i, int(uintptr(op) - uintptr(base)), int(uintptr(dp) - uintptr(dbase)), lo, hi
		}
		sl := binary.LittleEndian.Uint64((*[8]byte)(dp)[:])
		if p < 8 && l <= 8 {
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
				up, low := bits.Mul64(sl, m)
				lo, hi = lo&(m-1)|low, sh*m|up
			} else {
				m := frontShift[(p-8)&15] // p <= 16
				hi = hi&(m-1) | sl*m
			}
			binary.LittleEndian.PutUint64((*[8]byte)(op)[:], lo)
			binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(op, 8))[:], hi)
		}
		op, dp = unsafe.Add(op, l), unsafe.Add(dp, l-p)
	}
	return len(pre), int(uintptr(op) - uintptr(base)), int(uintptr(dp) - uintptr(dbase)), lo, hi
}

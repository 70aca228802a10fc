package codec

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/arrowpack/arrowpack"
)

// The checks the decoder makes on a block and the encoder on a batch: one
// implementation each, which report where the first fault is and leave the
// error (ErrCorrupt for a block, ErrInvalidBatch for a batch) to the
// caller. Each returns -1 when there is no fault.

// firstBadOffset returns the first i such that offs[i] is negative, below
// offs[i-1] or above limit, or -1 if offs is a valid offsets buffer for
// limit bytes or elements. The kernel answers for the whole buffer at
// memory speed; the index is looked for only when it says no.
func firstBadOffset[T int32 | int64](offs []T, limit int64) int {
	if offsetsValid(offs, limit) {
		return -1
	}
	var prev T
	for i, o := range offs {
		if o < prev || int64(o) > limit {
			return i
		}
		prev = o
	}
	return -1
}

// offsetsValid reports whether offs start at 0 or above, never decrease
// and end at limit or below.
func offsetsValid[T int32 | int64](offs []T, limit int64) bool {
	switch o := any(offs).(type) {
	case []int32:
		if limit > 1<<31-1 {
			limit = 1<<31 - 1
		}
		return arrowpack.ValidOffsets32(o, int32(limit))
	case []int64:
		return arrowpack.ValidOffsets64(o, limit)
	}
	return false
}

// firstBadUTF8 returns the index of the first value of data, delimited by
// offs (already checked: in order, inside data), that is not valid UTF-8,
// or -1 when all are. Data that is plain ASCII is passed by the SIMD
// kernel alone; otherwise the data between the first and last offsets
// must be UTF-8 and no value may start inside a character, which makes
// every value UTF-8.
func firstBadUTF8[T int32 | int64](data []byte, offs []T) int {
	if len(offs) == 0 {
		return -1
	}
	used := data[offs[0]:offs[len(offs)-1]]
	if arrowpack.IsASCII(used) {
		return -1
	}
	if utf8.Valid(used) && startsAtRunes(data, offs) {
		return -1
	}
	// Some value is not UTF-8 (one that ends inside a character, if one
	// starts inside it): find which.
	for i := range len(offs) - 1 {
		if !utf8.Valid(data[offs[i]:offs[i+1]]) {
			return i
		}
	}
	return -1
}

// startsAtRunes reports whether no non-empty value of data, delimited by
// offs, starts inside a UTF-8 character.
func startsAtRunes[T int32 | int64](data []byte, offs []T) bool {
	for i, o := range offs[:len(offs)-1] {
		if o < offs[i+1] && !utf8.RuneStart(data[o]) {
			return false
		}
	}
	return true
}

// firstBadTypeID returns the first row whose union type id names no
// child.
func firstBadTypeID(ids []byte, unionChild *[128]int8) int {
	for i, id := range ids {
		if id > 127 || unionChild[id] < 0 {
			return i
		}
	}
	return -1
}

// firstBadDenseOffset returns the first row of a dense union (type ids
// already checked) whose offset is negative, goes back from the previous
// offset into the same child, or lies past the end of the child, whose
// length lens holds by child index.
func firstBadDenseOffset(ids []byte, offs []int32, unionChild *[128]int8, lens *[128]int) int {
	var next [128]int32 // per child: the smallest offset the next row may have
	for i, o := range offs {
		c := unionChild[ids[i]]
		if o < next[c] || int(o) >= lens[c] {
			return i
		}
		next[c] = o
	}
	return -1
}

// firstBadListView returns the first list view (offset, size) that does
// not lie inside a child of limit elements.
func firstBadListView[T int32 | int64](offs, sizes []T, limit T) int {
	for i, o := range offs {
		// o <= limit and sz <= limit-o keep the sum from overflowing.
		if sz := sizes[i]; o < 0 || sz < 0 || o > limit || sz > limit-o {
			return i
		}
	}
	return -1
}

// firstBadRunEnd returns the first of runs run ends (width bytes each,
// starting at value off of b) that is not above the one before it (the
// first: not positive), comparing them as 64-bit integers on every
// platform.
func firstBadRunEnd(b []byte, width, off, runs int) int {
	var prev int64
	for i := range runs {
		e := runEndAt(b, width, off+i)
		if e <= prev {
			return i
		}
		prev = e
	}
	return -1
}

// runEndAt returns run end i of b, run ends of width bytes.
func runEndAt(b []byte, width, i int) int64 {
	switch width {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b[2*i:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
	default:
		return int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// firstBadIndex returns the first row of dictionary indices b (width
// bytes each, signed or not) that is valid (bit validOff+i of valid set,
// or valid nil) and lies outside a dictionary of size values, or -1.
// Signed indices are read as unsigned, with the limit cut to the largest
// positive value, so that negative ones are out of range too. One scan
// for the largest index passes the usual case.
func firstBadIndex(b []byte, width int, signed bool, size int, valid []byte, validOff int) int {
	limit := indexLimit(width, signed, size)
	var hi uint64
	switch width {
	case 1:
		hi = uint64(arrowpack.MaxUint8(b))
	case 2:
		hi = uint64(arrowpack.MaxUint16(view[uint16](b)))
	case 4:
		hi = uint64(arrowpack.MaxUint32(view[uint32](b)))
	default:
		hi = arrowpack.MaxUint64(view[uint64](b))
	}
	if hi < limit {
		return -1
	}
	return firstBadIndexAbove(b, width, limit, valid, validOff)
}

// indexLimit returns the bound on indices of width bytes into a
// dictionary of size values, read as unsigned: signed indices that are
// negative read as at least it.
func indexLimit(width int, signed bool, size int) uint64 {
	limit := uint64(size)
	if signed {
		limit = min(limit, 1<<(8*width-1))
	}
	return limit
}

// firstBadIndexAbove is firstBadIndex once the largest index is known to
// reach limit: it looks for the valid row whose index does.
func firstBadIndexAbove(b []byte, width int, limit uint64, valid []byte, validOff int) int {
	// Some index is out of range; that is fine only in null rows, whose
	// indices may hold anything.
	n := len(b) / width
	for i := range n {
		var v uint64
		switch width {
		case 1:
			v = uint64(b[i])
		case 2:
			v = uint64(binary.LittleEndian.Uint16(b[2*i:]))
		case 4:
			v = uint64(binary.LittleEndian.Uint32(b[4*i:]))
		default:
			v = binary.LittleEndian.Uint64(b[8*i:])
		}
		if v >= limit && isValid(valid, validOff+i) {
			return i
		}
	}
	return -1
}

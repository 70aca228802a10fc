package arrowpack

import (
	"fmt"
	"unsafe"
)

// The scatter kernels of a partitioner: each row of a column goes to the
// end of its partition's buffer. Generic versions are in
// scatter_generic.go, vector glue in scatter_vec.go, the assembly in
// codec_amd64.s (from asm/scatter.go) and codec_arm64.s.

// Cursor is where the next value of one partition goes: At bytes past
// Base, the start of a buffer the caller has grown to hold every value the
// partition gets. A scatter advances At by the bytes it writes there.
type Cursor struct {
	Base unsafe.Pointer
	At   int
}

// Scatter32 stores src[r] at cur[q].Base+cur[q].At and advances cur[q].At
// by 4, for q = parts[r], for every row r < len(parts) in order: the
// values of each partition land one after the other, in the order of
// their rows.
//
// The kernel checks each partition: if parts[r] >= len(cur) it panics,
// the rows before r written. It costs one compare of a branch that is never
// taken, where a check by the caller would be a second pass over parts.
// What it cannot check is the room at each cursor: the caller guarantees
// that cur[q].Base+cur[q].At has room for 4 bytes for each row of q (a
// count the caller has as its histogram of parts) and that At is a
// multiple of 4 from a Base aligned to 4. It panics if len(src) <
// len(parts).
func Scatter32(cur []Cursor, src []uint32, parts []uint32) {
	active.scatter32(cur, src[:len(parts)], parts)
}

// Scatter64 is Scatter32 for 8-byte values: At advances by 8, and each
// destination is aligned to 8.
func Scatter64(cur []Cursor, src []uint64, parts []uint32) {
	active.scatter64(cur, src[:len(parts)], parts)
}

// badPartition panics for a row whose partition q is not below p, as an
// index out of range of cur does in the generic kernels.
func badPartition(q uint32, p int) {
	panic(fmt.Sprintf("arrowpack: scatter to partition %d of %d", q, p))
}

// cursorWords views cur as the words the assembly reads: Base, At, one
// pair a partition. The assembly writes only the At words, so no pointer
// is stored without the garbage collector seeing it.
func cursorWords(cur []Cursor) []uintptr {
	return unsafe.Slice((*uintptr)(unsafe.Pointer(unsafe.SliceData(cur))), 2*len(cur))
}

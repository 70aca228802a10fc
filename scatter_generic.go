package arrowpack

import "unsafe"

// scatterGeneric is the pure-Go scatter, part of genericImpl
// (codec_generic.go); len(src) == len(parts). The index of cur is Go's own
// bounds check: a partition out of range panics there, the rows before it
// written.
func scatterGeneric[T uint32 | uint64](cur []Cursor, src []T, parts []uint32) {
	src = src[:len(parts)]
	for r, q := range parts {
		c := &cur[q]
		*(*T)(unsafe.Add(c.Base, c.At)) = src[r]
		c.At += int(unsafe.Sizeof(src[r]))
	}
}

//go:build !purego

package arrowpack

import "unsafe"

// The write-combining scatter (asm/scatter.go), kept beside the plain one
// for the harness and the benchmark that compares them
// (docs/partition.md); the plain one is the kernel Scatter32/64 use.

// wcScratch is the write-combining state of one call: a 64-byte line and
// the start address of each partition.
type wcScratch struct {
	raw   []byte
	lines []byte // 64-byte aligned, 64 bytes a partition
	start []uintptr
}

func (s *wcScratch) size(p int) {
	if len(s.start) < p {
		s.raw = make([]byte, 64*p+64)
		skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(s.raw))) & 63)
		s.lines = s.raw[skip : skip+64*p]
		s.start = make([]uintptr, p)
	}
}

// scatterWC returns the write-combining scatter for values of type T. It
// records where each cursor starts, runs the routine, and then copies out
// of the lines the bytes of each partition's unfinished last line.
func scatterWC[T uint32 | uint64](asm func(cur []uintptr, src []T, parts []uint32, lines []byte, start []uintptr) int) func(cur []Cursor, src []T, parts []uint32, s *wcScratch) {
	return func(cur []Cursor, src []T, parts []uint32, s *wcScratch) {
		s.size(len(cur))
		for q, c := range cur {
			s.start[q] = uintptr(c.Base) + uintptr(c.At)
		}
		n := asm(cursorWords(cur), src, parts, s.lines, s.start)
		for q, c := range cur {
			a := uintptr(c.Base) + uintptr(c.At)
			off := a & 63
			from := max(a-off, s.start[q])
			if from == a {
				continue
			}
			k := int(a - from)
			copy(unsafe.Slice((*byte)(unsafe.Add(c.Base, c.At-k)), k), s.lines[64*q+int(from&63):64*q+int(off)])
		}
		if n < len(parts) {
			badPartition(parts[n], len(cur))
		}
	}
}

var (
	scatter32WC = scatterWC(scatter32WCVec)
	scatter64WC = scatterWC(scatter64WCVec)
)

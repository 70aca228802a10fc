//go:build !purego

package arrowpack

import "unsafe"

func init() {
	if !vecSupported {
		return
	}
	var s32, s64 wcScratch
	scatterExtra32 = append(scatterExtra32, scatterPath[uint32]{"avx2-wc", func(cur []Cursor, src, parts []uint32) { scatter32WC(cur, src, parts, &s32) }})
	scatterExtra64 = append(scatterExtra64, scatterPath[uint64]{"avx2-wc", func(cur []Cursor, src []uint64, parts []uint32) { scatter64WC(cur, src, parts, &s64) }})
}

// scatterBenchVariants are the assembly scatters BenchmarkScatterVariants
// measures: the plain one and the write-combining one.
func scatterBenchVariants() []struct {
	name string
	run  func(cur []Cursor, next []unsafe.Pointer, src []uint64, parts []uint32, w int)
} {
	if !vecSupported {
		return nil
	}
	var s wcScratch
	as32 := func(src []uint64, n int) []uint32 { return unsafe.Slice((*uint32)(unsafe.Pointer(&src[0])), n) }
	return []struct {
		name string
		run  func(cur []Cursor, next []unsafe.Pointer, src []uint64, parts []uint32, w int)
	}{
		{"asm-plain", func(cur []Cursor, _ []unsafe.Pointer, src []uint64, parts []uint32, w int) {
			if w == 8 {
				scatter64Vector(cur, src, parts)
			} else {
				scatter32Vector(cur, as32(src, len(parts)), parts)
			}
		}},
		{"asm-wc", func(cur []Cursor, _ []unsafe.Pointer, src []uint64, parts []uint32, w int) {
			if w == 8 {
				scatter64WC(cur, src, parts, &s)
			} else {
				scatter32WC(cur, as32(src, len(parts)), parts, &s)
			}
		}},
	}
}

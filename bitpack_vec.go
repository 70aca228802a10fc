//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector bit-packing kernels: the assembly does the whole blocks of 256
// values, the generic code the tail (see kernels_vec.go). Width 0 packs
// nothing.

func packVector[T word](asm func(dst []byte, src []T, base T, width int) int) func([]byte, []T, T, int) {
	return func(dst []byte, src []T, base T, width int) {
		if width == 0 {
			return
		}
		done := 0
		if len(src) >= packBlock {
			done = asm(dst, src, base, width)
		}
		packFrom(dst, src, base, width, done/packBlock)
	}
}

func unpackVector[T word](asm func(dst []T, src []byte, base T, width int) int) func([]T, []byte, T, int) {
	return func(dst []T, src []byte, base T, width int) {
		done := 0
		if len(dst) >= packBlock {
			done = asm(dst, src, base, width)
		}
		unpackFrom(dst, src, base, width, done/packBlock)
	}
}

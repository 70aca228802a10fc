//go:build !amd64 || purego

package arrowpack

import "unsafe"

// scatterBenchVariants: only amd64 has the assembly variants timed
// (arm64's plain scatter is tested under qemu, not timed).
func scatterBenchVariants() []struct {
	name string
	run  func(cur []Cursor, next []unsafe.Pointer, src []uint64, parts []uint32, w int)
} {
	return nil
}

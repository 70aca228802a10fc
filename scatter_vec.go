//go:build (amd64 || arm64) && !purego

package arrowpack

// scatterVector returns the plain assembly scatter for values of type T:
// the routine stops at a row whose partition is out of range, and the glue
// panics there as the generic kernel does.
func scatterVector[T uint32 | uint64](asm func(cur []uintptr, src []T, parts []uint32) int) func(cur []Cursor, src []T, parts []uint32) {
	return func(cur []Cursor, src []T, parts []uint32) {
		if n := asm(cursorWords(cur), src, parts); n < len(parts) {
			badPartition(parts[n], len(cur))
		}
	}
}

var (
	scatter32Vector = scatterVector(scatter32Vec)
	scatter64Vector = scatterVector(scatter64Vec)
)

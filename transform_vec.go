//go:build (amd64 || arm64) && !purego

package arrowpack

import "unsafe"

// The vector transform kernels: the assembly does whole blocks, Go the
// rest (see kernels_vec.go).

// The transpositions count values, n = len(src)/width of them: the
// assembly does whole blocks of values and returns how many values it did;
// transposeFrom and untransposeFrom do the rest, at the same plane stride.
//
// Transposing 16-byte values goes through a scratch buffer on the stack
// where the planes would collide in the cache, as in the generic version
// (transform_generic.go).
//
// The offsets-to-lengths kernels do a few elements in Go first, so that
// the stores of the assembly are aligned: a 32-byte store that straddles
// two cache lines, every other one for 8-byte-aligned 64-bit offsets,
// costs about as much as two, and LengthsToOffsets writes to dst[1:],
// never aligned when dst is. deltasVector and prefixSumVector let Go do the
// elements before dst's next 32-byte boundary.

// transposeVector repeats transposeGeneric's chunk loop rather than share
// one taking the direct transpose as a function value: through an indirect
// call the scratch buffer escapes, an 8 KiB heap allocation per call.
func transposeVector(dst, src []byte, width int) {
	n := len(src) / width
	if !transposeChunked(n, width) {
		transposeVectorDirect(dst, src, width)
		return
	}
	var buf [transposeScratch]byte
	c := len(buf) / width
	for i := 0; i < n; i += c {
		k := min(c, n-i)
		s := buf[:k*width]
		transposeVectorDirect(s, src[i*width:(i+k)*width], width)
		scatterPlanes(dst, s, n, i, width)
	}
}

func transposeVectorDirect(dst, src []byte, width int) {
	done := 0
	if len(src)/width >= minVec {
		switch width {
		case 2:
			done = transpose2Vec(dst, src)
		case 4:
			done = transpose4Vec(dst, src)
		case 8:
			done = transpose8Vec(dst, src)
		case 16:
			done = transpose16Vec(dst, src)
		}
	}
	transposeFrom(dst, src, width, done)
}

func untransposeVector(dst, src []byte, width int) {
	done := 0
	if len(src)/width >= minVec {
		switch width {
		case 2:
			done = untranspose2Vec(dst, src)
		case 4:
			done = untranspose4Vec(dst, src)
		case 8:
			done = untranspose8Vec(dst, src)
		case 16:
			done = untranspose16Vec(dst, src)
		}
	}
	untransposeFrom(dst, src, width, done)
}

// alignHead returns how many elements of size bytes from p on come before
// the next 32-byte boundary.
func alignHead(p unsafe.Pointer, size int) int {
	return int(-uintptr(p)&31) / size
}

func deltasVector[T offset](asm func(dst, x []T) int) func(dst, x []T) {
	return func(dst, x []T) {
		n := 0
		if len(dst) >= minVec {
			n = alignHead(unsafe.Pointer(&dst[0]), int(unsafe.Sizeof(T(0))))
			deltasGeneric(dst[:n], x[:n+1])
			n += asm(dst[n:], x[n:])
		}
		deltasGeneric(dst[n:], x[n:])
	}
}

// The prefix sums carry the total so far from the head into the assembly
// and from the assembly into the tail.
func prefixSumVector[T offset](asm func(dst, x []T, s T) (int, bool)) func(dst, x []T) bool {
	return func(dst, x []T) bool {
		if len(x) < minVec {
			return prefixSumGeneric(dst, x)
		}
		h := alignHead(unsafe.Pointer(&dst[0]), int(unsafe.Sizeof(T(0))))
		acc := prefixSumFrom(dst[:h], x[:h], 0)
		var s T
		if h > 0 {
			s = dst[h-1]
		}
		n, nonneg := asm(dst[h:], x[h:], s)
		n += h
		if n > 0 {
			s = dst[n-1]
		}
		acc |= prefixSumFrom(dst[n:], x[n:], s)
		return acc >= 0 && nonneg
	}
}

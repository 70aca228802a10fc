//go:build !purego

package arrowpack

// The NEON (ASIMD) kernels, in codec_arm64.s. Each works on whole 64-byte
// blocks (four Q registers) and returns how far it got; kernels_vec.go calls
// them only for inputs of at least minVec elements and finishes the tail in
// Go.

// rebase32Vec sets dst[i] = src[i] - base for every i < n and returns n, the
// largest multiple of 16 that is <= len(src). The caller guarantees len(dst)
// >= len(src); dst may be src itself. It reads and writes nothing at or past
// index n.
//
//go:noescape
func rebase32Vec(dst, src []int32, base int32) int

// rebase64Vec sets dst[i] = src[i] - base for every i < n and returns n, the
// largest multiple of 8 that is <= len(src). The caller guarantees len(dst) >=
// len(src); dst may be src itself. It reads and writes nothing at or past
// index n.
//
//go:noescape
func rebase64Vec(dst, src []int64, base int64) int

// nondecreasing32Vec checks x[i] <= x[i+1] (signed) for every i < n, where n
// is the largest multiple of 16 with n+1 <= len(x) (0 if len(x) < 17). It
// returns (n, true) if all hold, so x[:n+1] is nondecreasing and the caller
// checks x[n:] itself, and (_, false) if any x[i] > x[i+1]. It reads nothing
// past x[n].
//
//go:noescape
func nondecreasing32Vec(x []int32) (n int, ok bool)

// nondecreasing64Vec checks x[i] <= x[i+1] (signed) for every i < n, where n
// is the largest multiple of 8 with n+1 <= len(x) (0 if len(x) < 9). It
// returns (n, true) if all hold, so x[:n+1] is nondecreasing and the caller
// checks x[n:] itself, and (_, false) if any x[i] > x[i+1]. It reads nothing
// past x[n].
//
//go:noescape
func nondecreasing64Vec(x []int64) (n int, ok bool)

// shiftBitsVec sets dst[j] = src[j]>>k | src[j+1]<<(8-k) for every j < n and
// returns n, the largest multiple of 64 with n <= len(dst) and n+1 <=
// len(src). k must be in [1, 7]. It reads src[:n+1], writes dst[:n] and
// touches nothing else; dst may be src itself.
//
//go:noescape
func shiftBitsVec(dst, src []byte, k uint) int

// popcountVec returns the number of set bits in b[:n], where n is the largest
// multiple of 64 that is <= len(b). It reads nothing at or past b[n].
//
//go:noescape
func popcountVec(b []byte) (ones, n int)

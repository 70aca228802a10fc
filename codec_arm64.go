//go:build !purego

package arrowpack

// The NEON (ASIMD) kernels, in codec_arm64.s. Each works on whole blocks
// (64 bytes, four Q registers, for the offsets and bitmap kernels; 16 or 32
// values for the byte transpositions) and returns how far it got;
// kernels_vec.go calls them only for inputs of at least minVec elements (or
// values) and finishes the tail in Go.

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

// The transform kernels. The transpositions count values: n =
// len(src)/width, the length of a plane. Each routine does whole blocks of
// values and returns how many values it did, m; the caller guarantees
// len(dst) >= len(src) and that dst and src do not overlap.

// transpose2Vec sets dst[j*n+i] = src[i*2+j] for j < 2 and i < m, m = n
// rounded down to a multiple of 32, and returns m. It reads src[:2m] and
// writes dst[j*n:j*n+m] only.
//
//go:noescape
func transpose2Vec(dst, src []byte) int

// transpose4Vec is transpose2Vec for 4-byte values, blocks of 32 values.
//
//go:noescape
func transpose4Vec(dst, src []byte) int

// transpose8Vec is transpose2Vec for 8-byte values, blocks of 32 values.
//
//go:noescape
func transpose8Vec(dst, src []byte) int

// transpose16Vec is transpose2Vec for 16-byte values, blocks of 16
// values.
//
//go:noescape
func transpose16Vec(dst, src []byte) int

// untranspose2Vec sets dst[i*2+j] = src[j*n+i] for j < 2 and i < m, m = n
// rounded down to a multiple of 32, and returns m. It reads src[j*n:j*n+m]
// and writes dst[:2m] only.
//
//go:noescape
func untranspose2Vec(dst, src []byte) int

// untranspose4Vec is untranspose2Vec for 4-byte values, blocks of 32
// values.
//
//go:noescape
func untranspose4Vec(dst, src []byte) int

// untranspose8Vec is untranspose2Vec for 8-byte values, blocks of 32
// values.
//
//go:noescape
func untranspose8Vec(dst, src []byte) int

// untranspose16Vec is untranspose2Vec for 16-byte values, blocks of 16
// values.
//
//go:noescape
func untranspose16Vec(dst, src []byte) int

// deltas32Vec sets dst[i] = x[i+1] - x[i] (wrapping) for i < n and returns
// n: min(len(dst), len(x)-1) rounded down to a multiple of 16, 0 if x is
// empty. dst may start where x starts; otherwise they do not overlap. It
// reads x[:n+1] and writes dst[:n] only.
//
//go:noescape
func deltas32Vec(dst, x []int32) int

// deltas64Vec is deltas32Vec for 64-bit elements, in blocks of 8.
//
//go:noescape
func deltas64Vec(dst, x []int64) int

// prefixSum32Vec sets dst[i] = carry + x[0] + ... + x[i] (wrapping) for i
// < n and returns n, len(x) rounded down to a multiple of 16, and whether
// every x[i] and every dst[i] with i < n is >= 0. The caller guarantees
// len(dst) >= len(x); dst may be x itself. It reads and writes nothing at
// or past index n.
//
//go:noescape
func prefixSum32Vec(dst, x []int32, carry int32) (n int, nonneg bool)

// prefixSum64Vec is prefixSum32Vec for 64-bit elements, in blocks of 8.
//
//go:noescape
func prefixSum64Vec(dst, x []int64, carry int64) (n int, nonneg bool)

// The scans.

// asciiVec checks that every byte of b[:n] is below 0x80, where n is the
// largest multiple of 64 that is <= len(b), and returns (n, true) if so and
// (_, false) if it found a byte >= 0x80. It reads nothing at or past b[n].
//
//go:noescape
func asciiVec(b []byte) (n int, ok bool)

// max8Vec returns the largest of x[:n] (0 if n = 0), and n, the largest
// multiple of 64 that is <= len(x). It reads nothing at or past x[n].
//
//go:noescape
func max8Vec(x []uint8) (m uint8, n int)

// max16Vec returns the largest of x[:n] (0 if n = 0), and n, the largest
// multiple of 32 that is <= len(x). It reads nothing at or past x[n].
//
//go:noescape
func max16Vec(x []uint16) (m uint16, n int)

// max32Vec returns the largest of x[:n] (0 if n = 0), and n, the largest
// multiple of 16 that is <= len(x). It reads nothing at or past x[n].
//
//go:noescape
func max32Vec(x []uint32) (m uint32, n int)

// max64Vec returns the largest of x[:n] (0 if n = 0), and n, the largest
// multiple of 8 that is <= len(x). It reads nothing at or past x[n].
//
//go:noescape
func max64Vec(x []uint64) (m uint64, n int)

package arrowpack

// The min/max kernels that choose a frame of reference and a bit width for
// BitPack32 and BitPack64. The generic versions are in minmax_generic.go,
// the vector glue in minmax_vec.go, the assembly in codec_amd64.s (from asm/minmax.go) and
// codec_arm64.s.

// MinMax32 returns the smallest and the largest element of x, (0, 0) if x
// is empty. The width BitPack32 needs for x with base lo is
// bits.Len32(hi - lo).
func MinMax32(x []uint32) (lo, hi uint32) { return active.minmax32(x) }

// MinMax64 is MinMax32 for 64-bit values.
func MinMax64(x []uint64) (lo, hi uint64) { return active.minmax64(x) }

// MinMaxInt32 returns the smallest and the largest element of x in signed
// order, (0, 0) if x is empty. A signed column packs with BitPack32 as
// uint32 values with base uint32(lo) and width bits.Len32(uint32(hi -
// lo)): the wrapping differences are the same as the signed ones.
func MinMaxInt32(x []int32) (lo, hi int32) { return active.minmaxInt32(x) }

// MinMaxInt64 is MinMaxInt32 for 64-bit values.
func MinMaxInt64(x []int64) (lo, hi int64) { return active.minmaxInt64(x) }

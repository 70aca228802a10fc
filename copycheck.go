package arrowpack

// The fused copy-and-check kernels, which the encoder runs on every chunk
// it copies into a block: one pass that copies and checks instead of a
// check and then a copy, each reading the whole chunk. Generic versions are
// in copycheck_generic.go, vector glue in copycheck_vec.go, the assembly in
// codec_amd64.s (from asm/copycheck.go) and copycheck_arm64.s.
//
// In every kernel dst and src must not overlap; each writes dst[:len(src)]
// whatever the check finds, and panics if len(dst) < len(src).

// CopyASCII copies src into dst[:len(src)] and reports whether every byte
// of src is below 0x80: IsASCII and copy in one pass. dst and src must not
// overlap. It panics if len(dst) < len(src).
func CopyASCII(dst, src []byte) bool {
	return active.copyASCII(dst[:len(src)], src)
}

// CopyMaxUint8 copies src into dst[:len(src)] and returns the largest value
// of src, 0 if src is empty: MaxUint8 and copy in one pass. dst and src
// must not overlap. It panics if len(dst) < len(src).
func CopyMaxUint8(dst, src []uint8) uint8 { return active.copyMax8(dst[:len(src)], src) }

// CopyMaxUint16 is CopyMaxUint8 for uint16 values.
func CopyMaxUint16(dst, src []uint16) uint16 { return active.copyMax16(dst[:len(src)], src) }

// CopyMaxUint32 is CopyMaxUint8 for uint32 values.
func CopyMaxUint32(dst, src []uint32) uint32 { return active.copyMax32(dst[:len(src)], src) }

// CopyMaxUint64 is CopyMaxUint8 for uint64 values.
func CopyMaxUint64(dst, src []uint64) uint64 { return active.copyMax64(dst[:len(src)], src) }

// RebaseNondecreasing32 sets dst[i] = src[i] - base (wrapping) for every
// i < len(src) and reports whether src never decreases: src[i] <= src[i+1]
// (signed) for every i < len(src)-1. It is RebaseOffsets32 and the order
// check of ValidOffsets32 in one pass. dst and src must not overlap. It
// panics if len(dst) < len(src).
func RebaseNondecreasing32(dst, src []int32, base int32) bool {
	return active.rebaseNondecreasing32(dst[:len(src)], src, base)
}

// RebaseNondecreasing64 is RebaseNondecreasing32 for 64-bit offsets.
func RebaseNondecreasing64(dst, src []int64, base int64) bool {
	return active.rebaseNondecreasing64(dst[:len(src)], src, base)
}

// CopyCountOnes copies src into dst[:len(src)] and returns the number of
// bits set in src: CountOnes of whole bytes and copy in one pass. dst and
// src must not overlap. It panics if len(dst) < len(src).
func CopyCountOnes(dst, src []byte) int {
	return active.copyCountOnes(dst[:len(src)], src)
}

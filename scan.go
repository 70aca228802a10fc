package arrowpack

// The scan kernels, which the decoder runs before trusting a buffer:
// IsASCII and the maxima. Generic versions are in scan_generic.go, vector
// glue in scan_vec.go, the assembly in codec_amd64.s (from asm/scan.go) and
// codec_arm64.s.

// IsASCII reports whether every byte of b is below 0x80. The codec uses it
// to skip UTF-8 validation of string data that is plain ASCII.
func IsASCII(b []byte) bool {
	return active.isASCII(b)
}

// MaxUint8/16/32/64 return the largest value in x, or 0 if x is empty. The
// codec checks dictionary indices with them: one scan for the largest index
// instead of a bounds check per value.
func MaxUint8(x []uint8) uint8 { return active.max8(x) }

// MaxUint16 returns the largest value in x, or 0 if x is empty.
func MaxUint16(x []uint16) uint16 { return active.max16(x) }

// MaxUint32 returns the largest value in x, or 0 if x is empty.
func MaxUint32(x []uint32) uint32 { return active.max32(x) }

// MaxUint64 returns the largest value in x, or 0 if x is empty.
func MaxUint64(x []uint64) uint64 { return active.max64(x) }

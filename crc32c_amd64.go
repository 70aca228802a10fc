//go:build !purego

package arrowpack

import "golang.org/x/sys/cpu"

// The folding paths of UpdateCRC32C (crc32cFoldYMM and crc32cFoldXMM in
// codec_amd64.s, from asm/crc32c.go) take the whole vectors of inputs of
// at least minFoldYMM or minFoldXMM bytes; hash/crc32 takes shorter inputs
// and the tail, fewer than 32 or 16 bytes.
//
// The thresholds are where folding starts to beat hash/crc32, measured
// with BenchmarkCRC32C on an AMD EPYC (Zen 3).
const (
	minFoldYMM = 256
	minFoldXMM = 256
)

var (
	crcYMM = crcImpl{name: "vpclmulqdq", update: foldFrom(crc32cFoldYMM, 32, minFoldYMM)}
	crcXMM = crcImpl{name: "pclmulqdq", update: foldFrom(crc32cFoldXMM, 16, minFoldXMM)}
)

// cpuidVPCLMULQDQ is the VPCLMULQDQ bit of ECX of CPUID leaf 7: the
// instruction on 256-bit vectors with a VEX encoding. x/sys/cpu reports it
// only with AVX-512 (HasAVX512VPCLMULQDQ).
const cpuidVPCLMULQDQ = 1 << 10

func init() {
	// The folds end with the CRC32 instruction (SSE4.2) and the XMM one
	// uses PEXTRQ (SSE4.1).
	if !cpu.X86.HasPCLMULQDQ || !cpu.X86.HasSSE41 || !cpu.X86.HasSSE42 {
		return
	}
	crcImpls = append(crcImpls, &crcXMM)
	activeCRC = &crcXMM
	// HasAVX2 says that the OS saves the 256-bit registers and that CPUID
	// has leaf 7.
	if cpu.X86.HasAVX2 && cpuid7ECX()&cpuidVPCLMULQDQ != 0 {
		crcImpls = append(crcImpls, &crcYMM)
		activeCRC = &crcYMM
	}
}

// foldFrom returns the UpdateCRC32C of a folding kernel that takes whole
// vectors of vec bytes, at least min bytes: the whole vectors of inputs
// of min bytes or more go to fold, the rest to hash/crc32.
func foldFrom(fold func(crc uint32, b []byte) uint32, vec, min int) func(crc uint32, b []byte) uint32 {
	return func(crc uint32, b []byte) uint32 {
		if len(b) < min {
			return updateCRC32CGeneric(crc, b)
		}
		n := len(b) &^ (vec - 1)
		crc = fold(crc, b[:n])
		if n == len(b) {
			return crc
		}
		return updateCRC32CGeneric(crc, b[n:])
	}
}

//go:build !purego

package arrowpack

import "golang.org/x/sys/cpu"

// The folding paths of UpdateCRC32C (crc32cFoldYMM and crc32cFoldXMM in
// codec_amd64.s, from asm/crc32c.go, which explains them) take the whole
// vectors of inputs of at least minFold bytes; hash/crc32 takes shorter
// inputs and the tail, fewer than 32 or 16 bytes.
//
// UpdateCRC32C takes the YMM path (VPCLMULQDQ) where the CPU has it. The
// XMM path (PCLMULQDQ on 128-bit vectors, beside CRC32 streams as the YMM
// one) is tested and fuzzed like every path but not chosen: on the AMD
// EPYC (Zen 3) it was measured on, where the YMM path runs at 1.38-1.55x
// hash/crc32's speed from 1 KiB to 4 MiB (BenchmarkCRC32CInterleaved,
// medians of 10 runs), it is no faster than hash/crc32 (0.73x at 1 KiB,
// 0.99x at 4 MiB) and it could not be timed on a CPU without VPCLMULQDQ,
// the only kind that would take it.
//
// minFold is where the YMM fold starts to beat hash/crc32 there, measured
// with BenchmarkCRC32C (its "-min" paths fold from the kernels' smallest
// input, 128 bytes).
const minFold = 256

var (
	crcYMM = crcImpl{name: "vpclmulqdq", update: foldFrom(crc32cFoldYMM, 32, minFold)}
	crcXMM = crcImpl{name: "pclmulqdq", update: foldFrom(crc32cFoldXMM, 16, minFold)}
)

// cpuidVPCLMULQDQ is the VPCLMULQDQ bit of ECX of CPUID leaf 7: the
// instruction on 256-bit vectors with a VEX encoding. x/sys/cpu reports it
// only with AVX-512 (HasAVX512VPCLMULQDQ).
const cpuidVPCLMULQDQ = 1 << 10

func init() {
	// Both folds run CRC32 (SSE4.2) beside the multiplications, in VEX
	// encodings (AVX).
	if !cpu.X86.HasPCLMULQDQ || !cpu.X86.HasSSE42 || !cpu.X86.HasAVX {
		return
	}
	crcImpls = append(crcImpls, &crcXMM)
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

//go:build !purego

#include "textflag.h"

// NEON copy-and-check kernels. Their contracts are those of their amd64
// namesakes (codec_amd64.go, generated from asm/copycheck.go): each does
// the whole input, given at least 32 bytes of it (the rebase one element
// more than 32 bytes), and reads and writes nothing outside src and
// dst[:len(src)].
//
// Every routine walks the bytes the same way, with R0 = dst, R1 = src and
// R2 = the bytes to do: whole 64-byte blocks (four Q registers, V0-V3),
// then whole 16-byte vectors (V0), then, if bytes remain, the last 16
// bytes once more, overlapping what came before: copying them again writes
// the same bytes, an OR or a maximum does not mind a value seen twice, and
// the popcount masks off the bytes it has counted. Each copies a register
// before folding it into its check.
//
// Go's assembler lacks CMGT and CMHI (and UMAXV); these encode them (Q=1),
// operands in the ARM order, destination first, as in codec_arm64.s, whose
// macros this file cannot use:
//	CMGT Vd.T, Vn.T, Vm.T: signed Vn > Vm, lane by lane
//	CMHI Vd.T, Vn.T, Vm.T: unsigned Vn > Vm, lane by lane
//	UMAXV Vd, Vn.T: the largest lane of Vn, into lane 0 of Vd
#define CC_CMGT(SIZE, d, n, m) WORD $(0x4e203400 | (SIZE)<<22 | (m)<<16 | (n)<<5 | (d))
#define CC_CMHI(SIZE, d, n, m) WORD $(0x6e203400 | (SIZE)<<22 | (m)<<16 | (n)<<5 | (d))
#define CC_UMAXV(SIZE, d, n) WORD $(0x6e30a800 | (SIZE)<<22 | (n)<<5 | (d))

// CC_ANYSET(v) sets R4 to the OR of the two halves of v (and clobbers R3).
#define CC_ANYSET(v) \
	VMOV v.D[0], R3 \
	VMOV v.D[1], R4 \
	ORR  R3, R4

// CC_BLOCK copies the 64-byte block at R1 to R0 through V0-V3, moving both
// on; CC_ONE does one 16-byte vector through V0.
#define CC_BLOCK \
	VLD1.P 64(R1), [V0.B16, V1.B16, V2.B16, V3.B16] \
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(R0)

#define CC_ONE \
	VLD1.P 16(R1), [V0.B16] \
	VST1.P [V0.B16], 16(R0)

// CC_LAST copies the last 16 bytes through V0, of which R3 (1..15) are new:
// R0 and R1 move back by 16-R3 first.
#define CC_LAST \
	SUB  $16, R3, R4    \
	ADD  R4, R1         \
	ADD  R4, R0         \
	VLD1 (R1), [V0.B16] \
	VST1 [V0.B16], (R0)

// CC_WALK(BLOCK, ONE, LAST) is the walk, with the folds of a block
// (V0-V3), a vector (V0) and the last vector (V0, R3 new bytes) given as
// the names of macros without arguments.
#define CC_WALK(BLOCK, ONE, LAST) \
	AND  $~63, R2, R3   \
	CBZ  R3, single     \
block:                      \
	CC_BLOCK            \
	BLOCK               \
	SUBS $64, R3        \
	BNE  block          \
single:                     \
	AND  $48, R2, R3    \
	CBZ  R3, last       \
one:                        \
	CC_ONE              \
	ONE                 \
	SUBS $16, R3        \
	BNE  one            \
last:                       \
	ANDS $15, R2, R3    \
	BEQ  end            \
	CC_LAST             \
	LAST                \
end:

#define CC_ASCII_BLOCK \
	VORR V1.B16, V0.B16, V0.B16 \
	VORR V3.B16, V2.B16, V2.B16 \
	VORR V2.B16, V0.B16, V0.B16 \
	VORR V0.B16, V8.B16, V8.B16

#define CC_ASCII_ONE \
	VORR V0.B16, V8.B16, V8.B16

// func copyASCIIVec(dst, src []byte) bool
//
// ORs every vector into V8 and tests its sign bits at the end.
TEXT ·copyASCIIVec(SB), NOSPLIT, $0-49
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	VEOR V8.B16, V8.B16, V8.B16
	CC_WALK(CC_ASCII_BLOCK, CC_ASCII_ONE, CC_ASCII_ONE)
	CC_ANYSET(V8)
	TST  $0x8080808080808080, R4
	CSET EQ, R5
	MOVB R5, ret+48(FP)
	RET

// The folds of CC_UMAX, for the arrangement CC_T defined before each use.
#define CC_UMAX_BLOCK \
	VUMAX V0.CC_T, V4.CC_T, V4.CC_T \
	VUMAX V1.CC_T, V5.CC_T, V5.CC_T \
	VUMAX V2.CC_T, V6.CC_T, V6.CC_T \
	VUMAX V3.CC_T, V7.CC_T, V7.CC_T

#define CC_UMAX_ONE \
	VUMAX V0.CC_T, V4.CC_T, V4.CC_T

// CC_UMAX(T) is the walk of copyMax8/16/32Vec: four maxima V4-V7, one per
// register of a block, folded together at the end.
#define CC_UMAX(T) \
	VEOR V4.B16, V4.B16, V4.B16 \
	VEOR V5.B16, V5.B16, V5.B16 \
	VEOR V6.B16, V6.B16, V6.B16 \
	VEOR V7.B16, V7.B16, V7.B16 \
	CC_WALK(CC_UMAX_BLOCK, CC_UMAX_ONE, CC_UMAX_ONE) \
	VUMAX V5.T, V4.T, V4.T \
	VUMAX V7.T, V6.T, V6.T \
	VUMAX V6.T, V4.T, V4.T

// func copyMax8Vec(dst, src []uint8) uint8
TEXT ·copyMax8Vec(SB), NOSPLIT, $0-49
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
#define CC_T B16
	CC_UMAX(B16)
#undef CC_T
	CC_UMAXV(0, 0, 4)
	VMOV V0.B[0], R3
	MOVB R3, ret+48(FP)
	RET

// func copyMax16Vec(dst, src []uint16) uint16
TEXT ·copyMax16Vec(SB), NOSPLIT, $0-50
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	LSL  $1, R2
#define CC_T H8
	CC_UMAX(H8)
#undef CC_T
	CC_UMAXV(1, 0, 4)
	VMOV V0.H[0], R3
	MOVH R3, ret+48(FP)
	RET

// func copyMax32Vec(dst, src []uint32) uint32
TEXT ·copyMax32Vec(SB), NOSPLIT, $0-52
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	LSL  $2, R2
#define CC_T S4
	CC_UMAX(S4)
#undef CC_T
	CC_UMAXV(2, 0, 4)
	VMOV V0.S[0], R3
	MOVW R3, ret+48(FP)
	RET

#define CC_MAX64_BLOCK \
	CC_CMHI(3, 16, 0, 4)         \
	CC_CMHI(3, 17, 1, 5)         \
	CC_CMHI(3, 18, 2, 6)         \
	CC_CMHI(3, 19, 3, 7)         \
	VBIT V16.B16, V0.B16, V4.B16 \
	VBIT V17.B16, V1.B16, V5.B16 \
	VBIT V18.B16, V2.B16, V6.B16 \
	VBIT V19.B16, V3.B16, V7.B16

#define CC_MAX64_ONE \
	CC_CMHI(3, 16, 0, 4) \
	VBIT V16.B16, V0.B16, V4.B16

// func copyMax64Vec(dst, src []uint64) uint64
//
// NEON has no 64-bit UMAX: CMHI marks the lanes where the new value is
// larger (V16-V19) and BIT takes them into the maxima V4-V7; the two lanes
// of the folded maximum are compared in general registers.
TEXT ·copyMax64Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	LSL  $3, R2
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	CC_WALK(CC_MAX64_BLOCK, CC_MAX64_ONE, CC_MAX64_ONE)
	CC_CMHI(3, 16, 5, 4)
	CC_CMHI(3, 17, 7, 6)
	VBIT V16.B16, V5.B16, V4.B16
	VBIT V17.B16, V7.B16, V6.B16
	CC_CMHI(3, 16, 6, 4)
	VBIT V16.B16, V6.B16, V4.B16
	VMOV V4.D[0], R3
	VMOV V4.D[1], R4
	CMP  R4, R3
	CSEL HI, R3, R4, R3   // unsigned R3 > R4 ? R3 : R4
	MOVD R3, ret+48(FP)
	RET

#define CC_ONES_BLOCK \
	VCNT    V0.B16, V0.B16         \
	VCNT    V1.B16, V1.B16         \
	VCNT    V2.B16, V2.B16         \
	VCNT    V3.B16, V3.B16         \
	VADD    V1.B16, V0.B16, V0.B16 \
	VADD    V3.B16, V2.B16, V2.B16 \
	VADD    V2.B16, V0.B16, V0.B16 \
	VUADDLV V0.B16, V0             \
	VADD    V0.D2, V8.D2, V8.D2

#define CC_ONES_ONE \
	VCNT    V0.B16, V0.B16 \
	VUADDLV V0.B16, V0     \
	VADD    V0.D2, V8.D2, V8.D2

#define CC_ONES_LAST \
	ADD  R3, R5                 \
	VLD1 (R5), [V9.B16]         \
	VAND V9.B16, V0.B16, V0.B16 \
	CC_ONES_ONE

// func copyCountOnesVec(dst, src []byte) int
//
// VCNT counts the bits of each byte (<= 8); the four registers of a block
// summed bytewise stay <= 32, VUADDLV adds 16 bytes into one halfword and
// V8.D[0] accumulates. The last vector is ANDed first with 16 bytes of
// copycheck_tail at R3, zero but for its last R3 bytes.
TEXT ·copyCountOnesVec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	VEOR V8.B16, V8.B16, V8.B16
	MOVD $copycheck_tail<>(SB), R5
	CC_WALK(CC_ONES_BLOCK, CC_ONES_ONE, CC_ONES_LAST)
	VMOV V8.D[0], R2
	MOVD R2, ret+48(FP)
	RET

// 16 zero bytes, then 16 bytes of ones.
DATA copycheck_tail<>+0(SB)/8, $0
DATA copycheck_tail<>+8(SB)/8, $0
DATA copycheck_tail<>+16(SB)/8, $-1
DATA copycheck_tail<>+24(SB)/8, $-1
GLOBL copycheck_tail<>(SB), RODATA|NOPTR, $32

// CC_REBASE(T, W, SIZE) is rebaseNondecreasing32/64Vec after the arguments
// are loaded (R0 = dst, R1 = src, R2 = the bytes of the len(src)-1 pairs
// of neighbours, base in every lane of V9). The vectors at src[i:]
// (V0-V3, R1) and src[i+1:] (V4-V7, R6) are compared lane by lane
// (CMGT, src[i] > src[i+1]) and the masks ORed into V8; src[i:] less base
// is stored at dst[i:]. The walk covers the pairs; the last vector of
// pairs, src[len-1-16/W:len-1] and src[len-16/W:], is always done, as it
// stores the last 16 bytes of dst. R5 = 1 if no mask lane was set.
#define CC_REBASE(T, W, SIZE) \
	VEOR V8.B16, V8.B16, V8.B16                      \
	ADD  $W, R1, R6                                  \
	AND  $~63, R2, R3                                \
	CBZ  R3, single                                  \
block:                                                   \
	VLD1.P 64(R1), [V0.T, V1.T, V2.T, V3.T]          \
	VLD1.P 64(R6), [V4.T, V5.T, V6.T, V7.T]          \
	CC_CMGT(SIZE, 4, 0, 4)                           \
	CC_CMGT(SIZE, 5, 1, 5)                           \
	CC_CMGT(SIZE, 6, 2, 6)                           \
	CC_CMGT(SIZE, 7, 3, 7)                           \
	VORR   V5.B16, V4.B16, V4.B16                    \
	VORR   V7.B16, V6.B16, V6.B16                    \
	VORR   V6.B16, V4.B16, V4.B16                    \
	VORR   V4.B16, V8.B16, V8.B16                    \
	VSUB   V9.T, V0.T, V0.T                          \
	VSUB   V9.T, V1.T, V1.T                          \
	VSUB   V9.T, V2.T, V2.T                          \
	VSUB   V9.T, V3.T, V3.T                          \
	VST1.P [V0.T, V1.T, V2.T, V3.T], 64(R0)          \
	SUBS   $64, R3                                   \
	BNE    block                                     \
single:                                                  \
	AND    $48, R2, R3                               \
	CBZ    R3, last                                  \
one:                                                     \
	VLD1.P 16(R1), [V0.T]                            \
	VLD1.P 16(R6), [V4.T]                            \
	CC_CMGT(SIZE, 4, 0, 4)                           \
	VORR   V4.B16, V8.B16, V8.B16                    \
	VSUB   V9.T, V0.T, V0.T                          \
	VST1.P [V0.T], 16(R0)                            \
	SUBS   $16, R3                                   \
	BNE    one                                       \
last:                                                    \
	AND    $15, R2, R3                               \
	SUB    $16, R3, R4                               \
	ADD    R4, R1                                    \
	ADD    R4, R6                                    \
	ADD    R4, R0                                    \
	VLD1   (R1), [V0.T]                              \
	VLD1   (R6), [V4.T]                              \
	CC_CMGT(SIZE, 5, 0, 4)                           \
	VORR   V5.B16, V8.B16, V8.B16                    \
	VSUB   V9.T, V4.T, V4.T                          \
	ADD    $W, R0                                    \
	VST1   [V4.T], (R0)                              \
	CC_ANYSET(V8)                                    \
	CMP    $0, R4                                    \
	CSET   EQ, R5

// func rebaseNondecreasing32Vec(dst, src []int32, base int32) bool
TEXT ·rebaseNondecreasing32Vec(SB), NOSPLIT, $0-57
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	MOVW base+48(FP), R3
	VDUP R3, V9.S4
	SUB  $1, R2
	LSL  $2, R2
	CC_REBASE(S4, 4, 2)
	MOVB R5, ret+56(FP)
	RET

// func rebaseNondecreasing64Vec(dst, src []int64, base int64) bool
TEXT ·rebaseNondecreasing64Vec(SB), NOSPLIT, $0-57
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	MOVD base+48(FP), R3
	VDUP R3, V9.D2
	SUB  $1, R2
	LSL  $3, R2
	CC_REBASE(D2, 8, 3)
	MOVB R5, ret+56(FP)
	RET

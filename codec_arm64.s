//go:build !purego

#include "textflag.h"

// NEON kernels. Their contracts are those of their amd64 namesakes
// (codec_amd64.go, generated from asm/); only the block sizes differ, and
// codec_arm64.go lists them. Every loop handles one 64-byte block (four Q
// registers) per iteration, except the 16-byte transpositions (16 values,
// 256 bytes), and the count a routine returns is always a whole number of
// blocks, so no load or store goes past it.
//
// Routines of one shape share their body through the macros below,
// parameterised on the arrangement (T: B16, H8, S4 or D2), the elements a
// block holds (N) and, where it matters, the element size in bytes (W) or
// its encoding (SIZE: 0 for bytes, 1 for halfwords, 2 for words, 3 for
// doublewords). The macros hold no argument or result access: those stay
// in the TEXT bodies, where go vet's asmdecl checks them against the Go
// declarations. Labels (loop, done) inside a macro are local to the TEXT
// that uses it, and each TEXT uses at most one macro with labels.

// Go's assembler lacks CMGT, CMHI, USHL and UMAXV; these encode them
// (Q=1), operands in the ARM order, destination first; the encodings were
// checked against aarch64-linux-gnu-as.
//	CMGT Vd.T, Vn.T, Vm.T: signed Vn > Vm, lane by lane
//	CMHI Vd.T, Vn.T, Vm.T: unsigned Vn > Vm, lane by lane
//	USHL Vd.T, Vn.T, Vm.T: Vn shifted left by Vm (right if negative)
//	UMAXV Vd, Vn.T: the largest lane of Vn, into lane 0 of Vd
#define CMGT(SIZE, d, n, m) WORD $(0x4e203400 | (SIZE)<<22 | (m)<<16 | (n)<<5 | (d))
#define CMHI(SIZE, d, n, m) WORD $(0x6e203400 | (SIZE)<<22 | (m)<<16 | (n)<<5 | (d))
#define USHL(SIZE, d, n, m) WORD $(0x6e204400 | (SIZE)<<22 | (m)<<16 | (n)<<5 | (d))
#define UMAXV(SIZE, d, n) WORD $(0x6e30a800 | (SIZE)<<22 | (n)<<5 | (d))

// PAIRS(r) sets r = max(r-1, 0): the number of pairs x[i], x[i+1] among r
// elements.
#define PAIRS(r) \
	SUBS $1, r          \
	CSEL LT, ZR, r, r

// ANYSET(v) sets R4 to the OR of the two halves of v (and clobbers R3).
#define ANYSET(v) \
	VMOV v.D[0], R3 \
	VMOV v.D[1], R4 \
	ORR  R3, R4

// ZERO4 clears the accumulators V4-V7.
#define ZERO4 \
	VEOR V4.B16, V4.B16, V4.B16 \
	VEOR V5.B16, V5.B16, V5.B16 \
	VEOR V6.B16, V6.B16, V6.B16 \
	VEOR V7.B16, V7.B16, V7.B16

// REBASE(T, N): rebase32Vec and rebase64Vec after the arguments are loaded
// (R0 = dst, R1 = src, R2 = n, R3 = base): subtracts base, in every lane of
// V4, from each block.
#define REBASE(T, N) \
	CBZ  R2, done                               \
	VDUP R3, V4.T                               \
loop:                                               \
	VLD1.P 64(R1), [V0.T, V1.T, V2.T, V3.T]     \
	VSUB   V4.T, V0.T, V0.T                     \
	VSUB   V4.T, V1.T, V1.T                     \
	VSUB   V4.T, V2.T, V2.T                     \
	VSUB   V4.T, V3.T, V3.T                     \
	VST1.P [V0.T, V1.T, V2.T, V3.T], 64(R0)     \
	SUBS   $N, R2                               \
	BNE    loop                                 \
done:

// NONDECREASING(T, N, W, SIZE): nondecreasing32Vec and nondecreasing64Vec
// after the arguments are loaded (R0 = x, R2 = n). Compares the block at
// x[i:] with the one at x[i+1:], lane by lane, and ORs the x[i] > x[i+1]
// masks into V8; checked once at the end (valid offsets, the common case,
// are scanned to the end anyway): R5 = 1 if no lane was set, else 0.
#define NONDECREASING(T, N, W, SIZE) \
	ADD  $W, R0, R1                                  /* R1 = &x[1] */ \
	VEOR V8.B16, V8.B16, V8.B16                      \
	CBZ  R2, done                                    \
loop:                                                    \
	VLD1.P 64(R0), [V0.T, V1.T, V2.T, V3.T]          /* x[i:i+N] */ \
	VLD1.P 64(R1), [V4.T, V5.T, V6.T, V7.T]          /* x[i+1:i+N+1] */ \
	CMGT(SIZE, 0, 0, 4)                              \
	CMGT(SIZE, 1, 1, 5)                              \
	CMGT(SIZE, 2, 2, 6)                              \
	CMGT(SIZE, 3, 3, 7)                              \
	VORR   V1.B16, V0.B16, V0.B16                    \
	VORR   V3.B16, V2.B16, V2.B16                    \
	VORR   V2.B16, V0.B16, V0.B16                    \
	VORR   V0.B16, V8.B16, V8.B16                    \
	SUBS   $N, R2                                    \
	BNE    loop                                      \
done:                                                    \
	ANYSET(V8)                                       \
	CMP  $0, R4                                      \
	CSET EQ, R5

// PLANES4(p), PLANES8(p), PLANES16(p) set the pointers to planes 1-3, 1-7
// and 1-15 of the transpositions from p, the pointer to plane 0, with the
// length of a plane in R3: R5-R7, then R8-R15, then R19-R22. R16 and R17
// (which a linker veneer may clobber), R18 (the platform register) and
// R26-R30 stay untouched.
#define PLANES4(p) \
	ADD R3, p, R5   \
	ADD R3, R5, R6  \
	ADD R3, R6, R7

#define PLANES8(p) \
	PLANES4(p)      \
	ADD R3, R7, R8  \
	ADD R3, R8, R9  \
	ADD R3, R9, R10 \
	ADD R3, R10, R11

#define PLANES16(p) \
	PLANES8(p)        \
	ADD R3, R11, R12  \
	ADD R3, R12, R13  \
	ADD R3, R13, R14  \
	ADD R3, R14, R15  \
	ADD R3, R15, R19  \
	ADD R3, R19, R20  \
	ADD R3, R20, R21  \
	ADD R3, R21, R22

// DELTAS(T, N, W): deltas32Vec and deltas64Vec after the arguments are
// loaded (R0 = dst, R1 = x, R2 = n). The block at x[i:] is subtracted from
// the one at x[i+1:]; both are loaded before the block of dst is stored,
// so dst may start where x starts.
#define DELTAS(T, N, W) \
	CBZ  R2, done                                         \
	ADD  $W, R1, R4                                       /* R4 = &x[1] */ \
loop:                                                         \
	VLD1.P 64(R1), [V0.T, V1.T, V2.T, V3.T]               /* x[i:] */ \
	VLD1.P 64(R4), [V4.T, V5.T, V6.T, V7.T]               /* x[i+1:] */ \
	VSUB   V0.T, V4.T, V0.T                               \
	VSUB   V1.T, V5.T, V1.T                               \
	VSUB   V2.T, V6.T, V2.T                               \
	VSUB   V3.T, V7.T, V3.T                               \
	VST1.P [V0.T, V1.T, V2.T, V3.T], 64(R0)               \
	SUBS   $N, R2                                         \
	BNE    loop                                           \
done:

// SCAN_S4(v, t) and SCAN_D2(v, t) turn the lanes of v into their running
// sums: v plus v shifted up by one lane, then (S4) plus that shifted up by
// two lanes; the shifts are EXT with the zero register V30, t is scratch.
#define SCAN_S4(v, t) \
	VEXT $12, v.B16, V30.B16, t.B16 \
	VADD t.S4, v.S4, v.S4           \
	VEXT $8, v.B16, V30.B16, t.B16  \
	VADD t.S4, v.S4, v.S4

#define SCAN_D2(v, t) \
	VEXT $8, v.B16, V30.B16, t.B16 \
	VADD t.D2, v.D2, v.D2

// PREFIXSUM(T, N, SCAN, L, LAST): prefixSum32Vec and prefixSum64Vec after
// the arguments are loaded (R0 = dst, R1 = x, R2 = n, R3 = carry); lane
// LAST of arrangement L is the last lane of a register.
//
// Each register's running sums come from SCAN. The carry V31, the total of
// everything before, in every lane, grows by each register's total (DUP of
// its last running sum), which does not depend on the carry: the
// loop-carried chain is one addition per register. It starts as the carry
// argument. The inputs and outputs are ORed into V29, whose sign bits the
// caller tests in R4 at the end.
#define PREFIXSUM(T, N, SCAN, L, LAST) \
	VEOR V29.B16, V29.B16, V29.B16              \
	VEOR V30.B16, V30.B16, V30.B16              \
	VDUP R3, V31.T                              \
	CBZ  R2, done                               \
loop:                                               \
	VLD1.P 64(R1), [V0.T, V1.T, V2.T, V3.T]     \
	VORR   V0.B16, V1.B16, V16.B16              \
	VORR   V2.B16, V3.B16, V17.B16              \
	SCAN(V0, V4)                                \
	SCAN(V1, V5)                                \
	SCAN(V2, V6)                                \
	SCAN(V3, V7)                                \
	VDUP   V0.L[LAST], V8.T                     \
	VDUP   V1.L[LAST], V9.T                     \
	VDUP   V2.L[LAST], V10.T                    \
	VDUP   V3.L[LAST], V11.T                    \
	VADD   V31.T, V0.T, V0.T                    \
	VADD   V8.T, V31.T, V31.T                   \
	VADD   V31.T, V1.T, V1.T                    \
	VADD   V9.T, V31.T, V31.T                   \
	VADD   V31.T, V2.T, V2.T                    \
	VADD   V10.T, V31.T, V31.T                  \
	VADD   V31.T, V3.T, V3.T                    \
	VADD   V11.T, V31.T, V31.T                  \
	VORR   V0.B16, V16.B16, V16.B16             \
	VORR   V1.B16, V17.B16, V17.B16             \
	VORR   V2.B16, V16.B16, V16.B16             \
	VORR   V3.B16, V17.B16, V17.B16             \
	VORR   V16.B16, V17.B16, V16.B16            \
	VORR   V16.B16, V29.B16, V29.B16            \
	VST1.P [V0.T, V1.T, V2.T, V3.T], 64(R0)     \
	SUBS   $N, R2                               \
	BNE    loop                                 \
done:                                               \
	ANYSET(V29)

// UMAX4(T, N, SIZE): max8Vec, max16Vec and max32Vec after the arguments
// are loaded (R0 = x, R1 = n). Four accumulators V4-V7, one per register
// of a block, folded together with UMAX and across lanes with UMAXV into
// lane 0 of V0 at the end.
#define UMAX4(T, N, SIZE) \
	ZERO4                                       \
	CBZ  R1, done                               \
loop:                                               \
	VLD1.P 64(R0), [V0.T, V1.T, V2.T, V3.T]     \
	VUMAX  V0.T, V4.T, V4.T                     \
	VUMAX  V1.T, V5.T, V5.T                     \
	VUMAX  V2.T, V6.T, V6.T                     \
	VUMAX  V3.T, V7.T, V7.T                     \
	SUBS   $N, R1                               \
	BNE    loop                                 \
done:                                               \
	VUMAX V5.T, V4.T, V4.T                      \
	VUMAX V7.T, V6.T, V6.T                      \
	VUMAX V6.T, V4.T, V4.T                      \
	UMAXV(SIZE, 0, 4)

// The offsets kernels.

// func rebase32Vec(dst, src []int32, base int32) int
TEXT ·rebase32Vec(SB), NOSPLIT, $0-64
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	MOVW base+48(FP), R3
	AND  $~15, R2         // n: whole blocks of 16 elements
	MOVD R2, ret+56(FP)
	REBASE(S4, 16)
	RET

// func rebase64Vec(dst, src []int64, base int64) int
TEXT ·rebase64Vec(SB), NOSPLIT, $0-64
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	MOVD base+48(FP), R3
	AND  $~7, R2          // n: whole blocks of 8 elements
	MOVD R2, ret+56(FP)
	REBASE(D2, 8)
	RET

// func nondecreasing32Vec(x []int32) (n int, ok bool)
TEXT ·nondecreasing32Vec(SB), NOSPLIT, $0-33
	LDP  x_base+0(FP), (R0, R2)
	PAIRS(R2)             // pairs x[i], x[i+1] with i < len(x)-1
	AND  $~15, R2         // n: whole blocks of 16 pairs
	MOVD R2, n+24(FP)
	NONDECREASING(S4, 16, 4, 2)
	MOVB R5, ok+32(FP)
	RET

// func nondecreasing64Vec(x []int64) (n int, ok bool)
TEXT ·nondecreasing64Vec(SB), NOSPLIT, $0-33
	LDP  x_base+0(FP), (R0, R2)
	PAIRS(R2)             // pairs x[i], x[i+1] with i < len(x)-1
	AND  $~7, R2          // n: whole blocks of 8 pairs
	MOVD R2, n+24(FP)
	NONDECREASING(D2, 8, 8, 3)
	MOVB R5, ok+32(FP)
	RET

// The bitmap kernels.

// func shiftBitsVec(dst, src []byte, k uint) int
//
// Byte lanes: USHL shifts each byte of src[j:] right by k (a shift count of
// -k) and each byte of src[j+1:] left by 8-k, dropping the bits that leave
// the byte; the OR of the two is dst[j:].
TEXT ·shiftBitsVec(SB), NOSPLIT, $0-64
	LDP  dst_base+0(FP), (R0, R2)
	LDP  src_base+24(FP), (R1, R3)
	MOVD k+48(FP), R4

	PAIRS(R3)             // src[j+1] must exist: j < len(src)-1
	CMP  R3, R2
	CSEL GT, R3, R2, R2   // min(len(dst), len(src)-1)
	AND  $~63, R2         // n: whole blocks of 64 bytes
	MOVD R2, ret+56(FP)
	CBZ  R2, done

	NEG  R4, R5
	VDUP R5, V16.B16      // -k: right shift by k
	MOVD $8, R6
	SUB  R4, R6
	VDUP R6, V17.B16      // 8-k: left shift by 8-k
	ADD  $1, R1, R7       // R7 = &src[1]

loop:
	VLD1.P 64(R1), [V0.B16, V1.B16, V2.B16, V3.B16] // src[j:j+64]
	VLD1.P 64(R7), [V4.B16, V5.B16, V6.B16, V7.B16] // src[j+1:j+65]
	USHL(0, 0, 0, 16)
	USHL(0, 1, 1, 16)
	USHL(0, 2, 2, 16)
	USHL(0, 3, 3, 16)
	USHL(0, 4, 4, 17)
	USHL(0, 5, 5, 17)
	USHL(0, 6, 6, 17)
	USHL(0, 7, 7, 17)
	VORR   V4.B16, V0.B16, V0.B16
	VORR   V5.B16, V1.B16, V1.B16
	VORR   V6.B16, V2.B16, V2.B16
	VORR   V7.B16, V3.B16, V3.B16
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(R0)
	SUBS   $64, R2
	BNE    loop

done:
	RET

// func popcountVec(b []byte) (ones, n int)
//
// VCNT counts the bits of each byte (<= 8); the four registers of a block
// summed bytewise stay <= 32, VUADDLV adds those 16 bytes into one halfword
// (<= 512, upper bits zeroed) and V8.D[0] accumulates the blocks.
TEXT ·popcountVec(SB), NOSPLIT, $0-40
	LDP b_base+0(FP), (R0, R1)

	AND  $~63, R1         // n: whole blocks of 64 bytes
	MOVD R1, n+32(FP)
	VEOR V8.B16, V8.B16, V8.B16
	CBZ  R1, done

loop:
	VLD1.P  64(R0), [V0.B16, V1.B16, V2.B16, V3.B16]
	VCNT    V0.B16, V0.B16
	VCNT    V1.B16, V1.B16
	VCNT    V2.B16, V2.B16
	VCNT    V3.B16, V3.B16
	VADD    V1.B16, V0.B16, V0.B16
	VADD    V3.B16, V2.B16, V2.B16
	VADD    V2.B16, V0.B16, V0.B16
	VUADDLV V0.B16, V0
	VADD    V0.D2, V8.D2, V8.D2
	SUBS    $64, R1
	BNE     loop

done:
	VMOV V8.D[0], R2
	MOVD R2, ones+24(FP)
	RET

// The transform kernels.
//
// The byte transpositions use the de-interleaving loads and interleaving
// stores: LD2/ST2 and LD4/ST4 split (join) 2 and 4 byte planes in one
// instruction; 8- and 16-byte values take one and two more steps of
// UZP1/UZP2 (ZIP1/ZIP2), which split (join) the even and odd bytes of a
// register pair. Every plane has a pointer of its own, moved on by post-
// indexed stores (loads); pairs of Q registers that are not consecutive,
// as LD1/ST1 lists must be, go through FLDPQ/FSTPQ (LDP/STP of Q
// registers), named by their F registers. The plane pointers are set by
// PLANES4/8/16. Every instruction here exists in Go's assembler; none is
// WORD-encoded.

// func transpose2Vec(dst, src []byte) int
//
// 32 values a block: two LD2 give planes 0 and 1 of values 0-15 (V0, V1)
// and of values 16-31 (V2, V3).
TEXT ·transpose2Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)

	LSR  $1, R2, R3       // n: values, the length of a plane
	AND  $~31, R3, R4     // m: whole blocks of 32 values
	MOVD R4, ret+48(FP)
	CBZ  R4, done
	ADD  R3, R0, R5       // plane 1

loop:
	VLD2.P  32(R1), [V0.B16, V1.B16]
	VLD2.P  32(R1), [V2.B16, V3.B16]
	FSTPQ.P (F0, F2), 32(R0)
	FSTPQ.P (F1, F3), 32(R5)
	SUBS    $32, R4
	BNE     loop

done:
	RET

// func transpose4Vec(dst, src []byte) int
//
// 32 values a block: two LD4 give planes 0-3 of values 0-15 (V0-V3) and of
// values 16-31 (V4-V7).
TEXT ·transpose4Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)

	LSR  $2, R2, R3       // n
	AND  $~31, R3, R4     // m: whole blocks of 32 values
	MOVD R4, ret+48(FP)
	CBZ  R4, done
	PLANES4(R0)

loop:
	VLD4.P  64(R1), [V0.B16, V1.B16, V2.B16, V3.B16]
	VLD4.P  64(R1), [V4.B16, V5.B16, V6.B16, V7.B16]
	FSTPQ.P (F0, F4), 32(R0)
	FSTPQ.P (F1, F5), 32(R5)
	FSTPQ.P (F2, F6), 32(R6)
	FSTPQ.P (F3, F7), 32(R7)
	SUBS    $32, R4
	BNE     loop

done:
	RET

// func transpose8Vec(dst, src []byte) int
//
// 32 values a block. LD4 of eight 8-byte values leaves in register r bytes
// r and r+4 of each value, alternately: [v0.r, v0.r+4, v1.r, ...]. UZP1 of
// the registers r of two such loads takes their even bytes, plane r of 16
// values, and UZP2 their odd bytes, plane r+4. Planes of values 0-15 go to
// V16-V23, of values 16-31 to V24-V31.
TEXT ·transpose8Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)

	LSR  $3, R2, R3       // n
	AND  $~31, R3, R4     // m: whole blocks of 32 values
	MOVD R4, ret+48(FP)
	CBZ  R4, done
	PLANES8(R0)

loop:
	VLD4.P 64(R1), [V0.B16, V1.B16, V2.B16, V3.B16]     // values 0-7
	VLD4.P 64(R1), [V4.B16, V5.B16, V6.B16, V7.B16]     // values 8-15
	VLD4.P 64(R1), [V8.B16, V9.B16, V10.B16, V11.B16]   // values 16-23
	VLD4.P 64(R1), [V12.B16, V13.B16, V14.B16, V15.B16] // values 24-31
	VUZP1  V4.B16, V0.B16, V16.B16
	VUZP2  V4.B16, V0.B16, V20.B16
	VUZP1  V5.B16, V1.B16, V17.B16
	VUZP2  V5.B16, V1.B16, V21.B16
	VUZP1  V6.B16, V2.B16, V18.B16
	VUZP2  V6.B16, V2.B16, V22.B16
	VUZP1  V7.B16, V3.B16, V19.B16
	VUZP2  V7.B16, V3.B16, V23.B16
	VUZP1  V12.B16, V8.B16, V24.B16
	VUZP2  V12.B16, V8.B16, V28.B16
	VUZP1  V13.B16, V9.B16, V25.B16
	VUZP2  V13.B16, V9.B16, V29.B16
	VUZP1  V14.B16, V10.B16, V26.B16
	VUZP2  V14.B16, V10.B16, V30.B16
	VUZP1  V15.B16, V11.B16, V27.B16
	VUZP2  V15.B16, V11.B16, V31.B16
	FSTPQ.P (F16, F24), 32(R0)
	FSTPQ.P (F17, F25), 32(R5)
	FSTPQ.P (F18, F26), 32(R6)
	FSTPQ.P (F19, F27), 32(R7)
	FSTPQ.P (F20, F28), 32(R8)
	FSTPQ.P (F21, F29), 32(R9)
	FSTPQ.P (F22, F30), 32(R10)
	FSTPQ.P (F23, F31), 32(R11)
	SUBS   $32, R4
	BNE    loop

done:
	RET

// func transpose16Vec(dst, src []byte) int
//
// 16 values a block. LD4 of four 16-byte values leaves in register r bytes
// r, r+4, r+8 and r+12 of each value in turn: A (values 0-3) in V0-V3, B
// (4-7) in V4-V7, C (8-11) in V8-V11, D (12-15) in V12-V15. UZP1 of A_r and
// B_r takes bytes r and r+8 of values 0-7 (to V16+r), UZP2 bytes r+4 and
// r+12 (V20+r); likewise C_r and D_r for values 8-15 (V24+r, V28+r). A
// second round of UZP1/UZP2 on those gives planes r, r+8, r+4 and r+12 of
// all 16 values, each in V<plane>.
TEXT ·transpose16Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)

	LSR  $4, R2, R3       // n
	AND  $~15, R3, R4     // m: whole blocks of 16 values
	MOVD R4, ret+48(FP)
	CBZ  R4, done
	PLANES16(R0)

loop:
	VLD4.P 64(R1), [V0.B16, V1.B16, V2.B16, V3.B16]
	VLD4.P 64(R1), [V4.B16, V5.B16, V6.B16, V7.B16]
	VLD4.P 64(R1), [V8.B16, V9.B16, V10.B16, V11.B16]
	VLD4.P 64(R1), [V12.B16, V13.B16, V14.B16, V15.B16]
	VUZP1  V4.B16, V0.B16, V16.B16
	VUZP2  V4.B16, V0.B16, V20.B16
	VUZP1  V12.B16, V8.B16, V24.B16
	VUZP2  V12.B16, V8.B16, V28.B16
	VUZP1  V5.B16, V1.B16, V17.B16
	VUZP2  V5.B16, V1.B16, V21.B16
	VUZP1  V13.B16, V9.B16, V25.B16
	VUZP2  V13.B16, V9.B16, V29.B16
	VUZP1  V6.B16, V2.B16, V18.B16
	VUZP2  V6.B16, V2.B16, V22.B16
	VUZP1  V14.B16, V10.B16, V26.B16
	VUZP2  V14.B16, V10.B16, V30.B16
	VUZP1  V7.B16, V3.B16, V19.B16
	VUZP2  V7.B16, V3.B16, V23.B16
	VUZP1  V15.B16, V11.B16, V27.B16
	VUZP2  V15.B16, V11.B16, V31.B16
	VUZP1  V24.B16, V16.B16, V0.B16
	VUZP2  V24.B16, V16.B16, V8.B16
	VUZP1  V28.B16, V20.B16, V4.B16
	VUZP2  V28.B16, V20.B16, V12.B16
	VUZP1  V25.B16, V17.B16, V1.B16
	VUZP2  V25.B16, V17.B16, V9.B16
	VUZP1  V29.B16, V21.B16, V5.B16
	VUZP2  V29.B16, V21.B16, V13.B16
	VUZP1  V26.B16, V18.B16, V2.B16
	VUZP2  V26.B16, V18.B16, V10.B16
	VUZP1  V30.B16, V22.B16, V6.B16
	VUZP2  V30.B16, V22.B16, V14.B16
	VUZP1  V27.B16, V19.B16, V3.B16
	VUZP2  V27.B16, V19.B16, V11.B16
	VUZP1  V31.B16, V23.B16, V7.B16
	VUZP2  V31.B16, V23.B16, V15.B16
	VST1.P [V0.B16], 16(R0)
	VST1.P [V1.B16], 16(R5)
	VST1.P [V2.B16], 16(R6)
	VST1.P [V3.B16], 16(R7)
	VST1.P [V4.B16], 16(R8)
	VST1.P [V5.B16], 16(R9)
	VST1.P [V6.B16], 16(R10)
	VST1.P [V7.B16], 16(R11)
	VST1.P [V8.B16], 16(R12)
	VST1.P [V9.B16], 16(R13)
	VST1.P [V10.B16], 16(R14)
	VST1.P [V11.B16], 16(R15)
	VST1.P [V12.B16], 16(R19)
	VST1.P [V13.B16], 16(R20)
	VST1.P [V14.B16], 16(R21)
	VST1.P [V15.B16], 16(R22)
	SUBS   $16, R4
	BNE    loop

done:
	RET

// func untranspose2Vec(dst, src []byte) int
//
// 32 values a block: planes 0 and 1 of values 0-15 in V0, V1 and of values
// 16-31 in V2, V3; ST2 interleaves them.
TEXT ·untranspose2Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)

	LSR  $1, R2, R3       // n
	AND  $~31, R3, R4     // m: whole blocks of 32 values
	MOVD R4, ret+48(FP)
	CBZ  R4, done
	ADD  R3, R1, R5       // plane 1

loop:
	FLDPQ.P 32(R1), (F0, F2)
	FLDPQ.P 32(R5), (F1, F3)
	VST2.P  [V0.B16, V1.B16], 32(R0)
	VST2.P  [V2.B16, V3.B16], 32(R0)
	SUBS    $32, R4
	BNE     loop

done:
	RET

// func untranspose4Vec(dst, src []byte) int
//
// 32 values a block: planes 0-3 of values 0-15 in V0-V3 and of values
// 16-31 in V4-V7; ST4 interleaves them.
TEXT ·untranspose4Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)

	LSR  $2, R2, R3       // n
	AND  $~31, R3, R4     // m: whole blocks of 32 values
	MOVD R4, ret+48(FP)
	CBZ  R4, done
	PLANES4(R1)

loop:
	FLDPQ.P 32(R1), (F0, F4)
	FLDPQ.P 32(R5), (F1, F5)
	FLDPQ.P 32(R6), (F2, F6)
	FLDPQ.P 32(R7), (F3, F7)
	VST4.P  [V0.B16, V1.B16, V2.B16, V3.B16], 64(R0)
	VST4.P  [V4.B16, V5.B16, V6.B16, V7.B16], 64(R0)
	SUBS    $32, R4
	BNE     loop

done:
	RET

// func untranspose8Vec(dst, src []byte) int
//
// 32 values a block, the inverse of transpose8Vec: plane j of values 0-15
// in Vj, of values 16-31 in V8+j. ZIP1 of planes r and r+4 interleaves
// bytes r and r+4 of values 0-7, ZIP2 of values 8-15: the registers ST4
// joins into eight whole values.
TEXT ·untranspose8Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)

	LSR  $3, R2, R3       // n
	AND  $~31, R3, R4     // m: whole blocks of 32 values
	MOVD R4, ret+48(FP)
	CBZ  R4, done
	PLANES8(R1)

loop:
	FLDPQ.P 32(R1), (F0, F8)
	FLDPQ.P 32(R5), (F1, F9)
	FLDPQ.P 32(R6), (F2, F10)
	FLDPQ.P 32(R7), (F3, F11)
	FLDPQ.P 32(R8), (F4, F12)
	FLDPQ.P 32(R9), (F5, F13)
	FLDPQ.P 32(R10), (F6, F14)
	FLDPQ.P 32(R11), (F7, F15)
	VZIP1   V4.B16, V0.B16, V16.B16
	VZIP2   V4.B16, V0.B16, V20.B16
	VZIP1   V5.B16, V1.B16, V17.B16
	VZIP2   V5.B16, V1.B16, V21.B16
	VZIP1   V6.B16, V2.B16, V18.B16
	VZIP2   V6.B16, V2.B16, V22.B16
	VZIP1   V7.B16, V3.B16, V19.B16
	VZIP2   V7.B16, V3.B16, V23.B16
	VST4.P  [V16.B16, V17.B16, V18.B16, V19.B16], 64(R0)
	VST4.P  [V20.B16, V21.B16, V22.B16, V23.B16], 64(R0)
	VZIP1   V12.B16, V8.B16, V16.B16
	VZIP2   V12.B16, V8.B16, V20.B16
	VZIP1   V13.B16, V9.B16, V17.B16
	VZIP2   V13.B16, V9.B16, V21.B16
	VZIP1   V14.B16, V10.B16, V18.B16
	VZIP2   V14.B16, V10.B16, V22.B16
	VZIP1   V15.B16, V11.B16, V19.B16
	VZIP2   V15.B16, V11.B16, V23.B16
	VST4.P  [V16.B16, V17.B16, V18.B16, V19.B16], 64(R0)
	VST4.P  [V20.B16, V21.B16, V22.B16, V23.B16], 64(R0)
	SUBS    $32, R4
	BNE     loop

done:
	RET

// func untranspose16Vec(dst, src []byte) int
//
// 16 values a block, the inverse of transpose16Vec: plane p in Vp; ZIP1 and
// ZIP2 of planes r and r+8 give bytes r and r+8 of values 0-7 (V16+r) and
// 8-15 (V20+r), of planes r+4 and r+12 bytes r+4 and r+12 (V24+r, V28+r);
// a second round gives the four registers of each of the four groups of
// four values, V0-V3, V4-V7, V8-V11 and V12-V15, which ST4 joins.
TEXT ·untranspose16Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)

	LSR  $4, R2, R3       // n
	AND  $~15, R3, R4     // m: whole blocks of 16 values
	MOVD R4, ret+48(FP)
	CBZ  R4, done
	PLANES16(R1)

loop:
	VLD1.P 16(R1), [V0.B16]
	VLD1.P 16(R5), [V1.B16]
	VLD1.P 16(R6), [V2.B16]
	VLD1.P 16(R7), [V3.B16]
	VLD1.P 16(R8), [V4.B16]
	VLD1.P 16(R9), [V5.B16]
	VLD1.P 16(R10), [V6.B16]
	VLD1.P 16(R11), [V7.B16]
	VLD1.P 16(R12), [V8.B16]
	VLD1.P 16(R13), [V9.B16]
	VLD1.P 16(R14), [V10.B16]
	VLD1.P 16(R15), [V11.B16]
	VLD1.P 16(R19), [V12.B16]
	VLD1.P 16(R20), [V13.B16]
	VLD1.P 16(R21), [V14.B16]
	VLD1.P 16(R22), [V15.B16]
	VZIP1  V8.B16, V0.B16, V16.B16
	VZIP2  V8.B16, V0.B16, V20.B16
	VZIP1  V12.B16, V4.B16, V24.B16
	VZIP2  V12.B16, V4.B16, V28.B16
	VZIP1  V9.B16, V1.B16, V17.B16
	VZIP2  V9.B16, V1.B16, V21.B16
	VZIP1  V13.B16, V5.B16, V25.B16
	VZIP2  V13.B16, V5.B16, V29.B16
	VZIP1  V10.B16, V2.B16, V18.B16
	VZIP2  V10.B16, V2.B16, V22.B16
	VZIP1  V14.B16, V6.B16, V26.B16
	VZIP2  V14.B16, V6.B16, V30.B16
	VZIP1  V11.B16, V3.B16, V19.B16
	VZIP2  V11.B16, V3.B16, V23.B16
	VZIP1  V15.B16, V7.B16, V27.B16
	VZIP2  V15.B16, V7.B16, V31.B16
	VZIP1  V24.B16, V16.B16, V0.B16
	VZIP2  V24.B16, V16.B16, V4.B16
	VZIP1  V28.B16, V20.B16, V8.B16
	VZIP2  V28.B16, V20.B16, V12.B16
	VZIP1  V25.B16, V17.B16, V1.B16
	VZIP2  V25.B16, V17.B16, V5.B16
	VZIP1  V29.B16, V21.B16, V9.B16
	VZIP2  V29.B16, V21.B16, V13.B16
	VZIP1  V26.B16, V18.B16, V2.B16
	VZIP2  V26.B16, V18.B16, V6.B16
	VZIP1  V30.B16, V22.B16, V10.B16
	VZIP2  V30.B16, V22.B16, V14.B16
	VZIP1  V27.B16, V19.B16, V3.B16
	VZIP2  V27.B16, V19.B16, V7.B16
	VZIP1  V31.B16, V23.B16, V11.B16
	VZIP2  V31.B16, V23.B16, V15.B16
	VST4.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(R0)
	VST4.P [V4.B16, V5.B16, V6.B16, V7.B16], 64(R0)
	VST4.P [V8.B16, V9.B16, V10.B16, V11.B16], 64(R0)
	VST4.P [V12.B16, V13.B16, V14.B16, V15.B16], 64(R0)
	SUBS   $16, R4
	BNE    loop

done:
	RET

// func deltas32Vec(dst, x []int32) int
TEXT ·deltas32Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	MOVD dst_len+8(FP), R2
	LDP  x_base+24(FP), (R1, R3)
	PAIRS(R3)             // len(x)-1, at least 0
	CMP  R3, R2
	CSEL GT, R3, R2, R2   // min(len(dst), len(x)-1)
	AND  $~15, R2         // n: whole blocks of 16 elements
	MOVD R2, ret+48(FP)
	DELTAS(S4, 16, 4)
	RET

// func deltas64Vec(dst, x []int64) int
TEXT ·deltas64Vec(SB), NOSPLIT, $0-56
	MOVD dst_base+0(FP), R0
	MOVD dst_len+8(FP), R2
	LDP  x_base+24(FP), (R1, R3)
	PAIRS(R3)             // len(x)-1, at least 0
	CMP  R3, R2
	CSEL GT, R3, R2, R2   // min(len(dst), len(x)-1)
	AND  $~7, R2          // n: whole blocks of 8 elements
	MOVD R2, ret+48(FP)
	DELTAS(D2, 8, 8)
	RET

// func prefixSum32Vec(dst, x []int32, carry int32) (n int, nonneg bool)
TEXT ·prefixSum32Vec(SB), NOSPLIT, $0-65
	MOVD dst_base+0(FP), R0
	LDP  x_base+24(FP), (R1, R2)
	MOVW carry+48(FP), R3
	AND  $~15, R2         // n: whole blocks of 16 elements
	MOVD R2, n+56(FP)
	PREFIXSUM(S4, 16, SCAN_S4, S, 3)
	TST  $0x8000000080000000, R4 // the sign bits of both 32-bit halves
	CSET EQ, R5
	MOVB R5, nonneg+64(FP)
	RET

// func prefixSum64Vec(dst, x []int64, carry int64) (n int, nonneg bool)
TEXT ·prefixSum64Vec(SB), NOSPLIT, $0-65
	MOVD dst_base+0(FP), R0
	LDP  x_base+24(FP), (R1, R2)
	MOVD carry+48(FP), R3
	AND  $~7, R2          // n: whole blocks of 8 elements
	MOVD R2, n+56(FP)
	PREFIXSUM(D2, 8, SCAN_D2, D, 1)
	TST  $0x8000000000000000, R4
	CSET EQ, R5
	MOVB R5, nonneg+64(FP)
	RET

// The scans.

// func asciiVec(b []byte) (n int, ok bool)
//
// ORs the four registers of a block together and tests the sign bits of
// the result through two general registers; leaves at the first block with
// a high bit.
TEXT ·asciiVec(SB), NOSPLIT, $0-33
	LDP b_base+0(FP), (R0, R1)

	AND  $~63, R1         // n: whole blocks of 64 bytes
	MOVD R1, n+24(FP)
	MOVD R1, R2
	CBZ  R2, yes

loop:
	VLD1.P 64(R0), [V0.B16, V1.B16, V2.B16, V3.B16]
	VORR   V1.B16, V0.B16, V0.B16
	VORR   V3.B16, V2.B16, V2.B16
	VORR   V2.B16, V0.B16, V0.B16
	VMOV   V0.D[0], R3
	VMOV   V0.D[1], R4
	ORR    R4, R3
	TST    $0x8080808080808080, R3
	BNE    no
	SUBS   $64, R2
	BNE    loop

yes:
	MOVD $1, R5
	MOVB R5, ok+32(FP)
	RET

no:
	MOVB ZR, ok+32(FP)
	RET

// func max8Vec(x []uint8) (m uint8, n int)
TEXT ·max8Vec(SB), NOSPLIT, $0-40
	LDP  x_base+0(FP), (R0, R1)
	AND  $~63, R1         // n: whole blocks of 64 elements
	MOVD R1, n+32(FP)
	UMAX4(B16, 64, 0)
	VMOV V0.B[0], R3
	MOVB R3, m+24(FP)
	RET

// func max16Vec(x []uint16) (m uint16, n int)
TEXT ·max16Vec(SB), NOSPLIT, $0-40
	LDP  x_base+0(FP), (R0, R1)
	AND  $~31, R1         // n: whole blocks of 32 elements
	MOVD R1, n+32(FP)
	UMAX4(H8, 32, 1)
	VMOV V0.H[0], R3
	MOVH R3, m+24(FP)
	RET

// func max32Vec(x []uint32) (m uint32, n int)
TEXT ·max32Vec(SB), NOSPLIT, $0-40
	LDP  x_base+0(FP), (R0, R1)
	AND  $~15, R1         // n: whole blocks of 16 elements
	MOVD R1, n+32(FP)
	UMAX4(S4, 16, 2)
	VMOV V0.S[0], R3
	MOVW R3, m+24(FP)
	RET

// func max64Vec(x []uint64) (m uint64, n int)
//
// NEON has no 64-bit UMAX: CMHI marks the lanes where the new value is
// larger (V16-V19) and BIT takes them into the accumulators V4-V7. The two
// lanes of the folded accumulator are compared in general registers.
TEXT ·max64Vec(SB), NOSPLIT, $0-40
	LDP  x_base+0(FP), (R0, R1)
	AND  $~7, R1          // n: whole blocks of 8 elements
	MOVD R1, n+32(FP)
	ZERO4
	CBZ  R1, done

loop:
	VLD1.P 64(R0), [V0.D2, V1.D2, V2.D2, V3.D2]
	CMHI(3, 16, 0, 4)
	CMHI(3, 17, 1, 5)
	CMHI(3, 18, 2, 6)
	CMHI(3, 19, 3, 7)
	VBIT   V16.B16, V0.B16, V4.B16 // bit v4.16b, v0.16b, v16.16b
	VBIT   V17.B16, V1.B16, V5.B16
	VBIT   V18.B16, V2.B16, V6.B16
	VBIT   V19.B16, V3.B16, V7.B16
	SUBS   $8, R1
	BNE    loop

done:
	CMHI(3, 16, 5, 4)
	CMHI(3, 17, 7, 6)
	VBIT V16.B16, V5.B16, V4.B16
	VBIT V17.B16, V7.B16, V6.B16
	CMHI(3, 16, 6, 4)
	VBIT V16.B16, V6.B16, V4.B16
	VMOV V4.D[0], R3
	VMOV V4.D[1], R4
	CMP  R4, R3
	CSEL HI, R3, R4, R3   // unsigned R3 > R4 ? R3 : R4
	MOVD R3, m+24(FP)
	RET


// func histogramVec(counts *[256]uint32, src []byte) int
//
// Eight bytes per load into a general register; each byte, extracted with
// UBFX, increments its count in memory. NEON has no scatter, so a vector
// histogram would cost more than it saves on the 64- to 256-byte samples
// the estimate reads.
TEXT ·histogramVec(SB), NOSPLIT, $0-40
	MOVD counts+0(FP), R0
	MOVD src_base+8(FP), R1
	MOVD src_len+16(FP), R2
	AND  $~31, R2, R2
	MOVD $0, R3
	CBZ  R2, done

loop:
	MOVD.P 8(R1), R4
#define COUNT(lsb) \
	UBFX  $lsb, R4, $8, R5; \
	MOVWU (R0)(R5<<2), R6; \
	ADDW  $1, R6, R6; \
	MOVW  R6, (R0)(R5<<2)
#define COUNT8 \
	COUNT(0); COUNT(8); COUNT(16); COUNT(24); COUNT(32); COUNT(40); COUNT(48); COUNT(56)
	COUNT8
	MOVD.P 8(R1), R4
	COUNT8
	MOVD.P 8(R1), R4
	COUNT8
	MOVD.P 8(R1), R4
	COUNT8
	ADD  $32, R3, R3
	CMP  R2, R3
	BLO  loop

done:
	MOVD R2, ret+32(FP)
	RET

// The bit-packing kernels (layout in bitpack.go). A block of 256 values is
// rows of 32 bytes (two Q registers), row j holding word j of every lane;
// value k of every lane (values k*L .. k*L+L-1, consecutive) comes from
// rows j = k*w/B and j+1 at bit sh = k*w%B. Unlike the AVX2 code, which
// unrolls every width, one loop serves all widths: the shifts are vectors
// of counts for USHL (negative: right), which also gives 0 for a count of
// B or more, so a value that does not straddle two words needs no branch.
// The row after the last is never read: j+1 is clamped to w-1, whose bits
// the shift then moves to B-sh or above, where the mask drops them.
//
// SCVTF and FMUL (vector) are WORD-encoded too (Q=1), checked against
// aarch64-linux-gnu-as:
//	SCVTF Vd.T, Vn.T: signed integers to floats, rounding to nearest
//	FMUL Vd.T, Vn.T, Vm.T: lane-wise product, rounded
#define SCVTF_D2(d, n) WORD $(0x4e61d800 | (n)<<5 | (d))
#define SCVTF_S4(d, n) WORD $(0x4e21d800 | (n)<<5 | (d))
#define FMUL_D2(d, n, m) WORD $(0x6e60dc00 | (m)<<16 | (n)<<5 | (d))
#define FMUL_S4(d, n, m) WORD $(0x6e20dc00 | (m)<<16 | (n)<<5 | (d))

// WIDTHMASK(ALL, B) sets R5 to the low R4 bits (1 <= R4 <= B) of ALL, all
// ones in B bits, and V17 to it in every lane (clobbers R6).
#define WIDTHMASK(T, ALL, B) \
	MOVD $ALL, R5        \
	MOVD $B, R6          \
	SUB  R4, R6, R6      \
	LSR  R6, R5, R5      \
	VDUP R5, V17.T

// UNPACK(T, SIZE, B, LOG, ALL): unpack32Vec and unpack64Vec after the
// arguments are loaded (R0 = dst, R1 = src, R2 = blocks > 0, R3 = base,
// R4 = width, 1..B); 2^LOG = B.
#define UNPACK(T, SIZE, B, LOG, ALL) \
	VDUP R3, V16.T                       \
	WIDTHMASK(T, ALL, B)                 \
	LSL  $5, R4, R7                      /* bytes per block */ \
	SUB  $1, R4, R8                      /* the last row */ \
block:                                       \
	MOVD ZR, R9                          /* o = k*w */ \
	MOVD $B, R10                         \
value:                                       \
	LSR  $LOG, R9, R11                   /* j */ \
	AND  $(B-1), R9, R12                 /* sh */ \
	ADD  R11<<5, R1, R13                 \
	VLD1 (R13), [V0.T, V1.T]             \
	ADD  $1, R11, R14                    \
	CMP  R8, R14                         \
	CSEL GT, R8, R14, R14                /* min(j+1, w-1) */ \
	ADD  R14<<5, R1, R13                 \
	VLD1 (R13), [V2.T, V3.T]             \
	NEG  R12, R15                        \
	VDUP R15, V4.T                       /* -sh: right by sh */ \
	MOVD $B, R15                         \
	SUB  R12, R15, R15                   \
	VDUP R15, V5.T                       /* B-sh: left */ \
	USHL(SIZE, 0, 0, 4)                  \
	USHL(SIZE, 1, 1, 4)                  \
	USHL(SIZE, 2, 2, 5)                  \
	USHL(SIZE, 3, 3, 5)                  \
	VORR V2.B16, V0.B16, V0.B16          \
	VORR V3.B16, V1.B16, V1.B16          \
	VAND V17.B16, V0.B16, V0.B16         \
	VAND V17.B16, V1.B16, V1.B16         \
	VADD V16.T, V0.T, V0.T               \
	VADD V16.T, V1.T, V1.T               \
	VST1.P [V0.T, V1.T], 32(R0)          \
	ADD  R4, R9, R9                      \
	SUBS $1, R10                         \
	BNE  value                           \
	ADD  R7, R1, R1                      \
	SUBS $1, R2                          \
	BNE  block

// PACK(T, SIZE, B, LOG, ALL): pack32Vec and pack64Vec after the arguments
// are loaded (R0 = dst, R1 = src, R2 = blocks > 0, R3 = base, R4 = width,
// 1..B). Each value, less base and masked, is shifted left by sh into the
// accumulator V6:V7; where it reaches the end of a word, the row is stored
// and its bits past the word start the next (a right shift by B-sh, 0 for
// a value that ends the word exactly).
#define PACK(T, SIZE, B, LOG, ALL) \
	VDUP R3, V16.T                       \
	WIDTHMASK(T, ALL, B)                 \
block:                                       \
	VEOR V6.B16, V6.B16, V6.B16          \
	VEOR V7.B16, V7.B16, V7.B16          \
	MOVD ZR, R9                          \
	MOVD $B, R10                         \
value:                                       \
	VLD1.P 32(R1), [V0.T, V1.T]          \
	VSUB V16.T, V0.T, V0.T               \
	VSUB V16.T, V1.T, V1.T               \
	VAND V17.B16, V0.B16, V0.B16         \
	VAND V17.B16, V1.B16, V1.B16         \
	AND  $(B-1), R9, R12                 /* sh */ \
	VDUP R12, V4.T                       \
	USHL(SIZE, 2, 0, 4)                  \
	USHL(SIZE, 3, 1, 4)                  \
	VORR V2.B16, V6.B16, V6.B16          \
	VORR V3.B16, V7.B16, V7.B16          \
	ADD  R4, R9, R9                      \
	ADD  R4, R12, R13                    \
	CMP  $B, R13                         \
	BLT  next                            \
	VST1.P [V6.T, V7.T], 32(R0)          \
	SUB  $B, R12, R15                    \
	VDUP R15, V5.T                       /* sh-B: right by B-sh */ \
	USHL(SIZE, 6, 0, 5)                  \
	USHL(SIZE, 7, 1, 5)                  \
next:                                        \
	SUBS $1, R10                         \
	BNE  value                           \
	SUBS $1, R2                          \
	BNE  block

// func unpack32Vec(dst []uint32, src []byte, base uint32, width int) int
TEXT ·unpack32Vec(SB), NOSPLIT, $0-72
	LDP   dst_base+0(FP), (R0, R2)
	MOVD  src_base+24(FP), R1
	MOVWU base+48(FP), R3
	MOVD  width+56(FP), R4
	LSR   $8, R2, R2      // whole blocks of 256 values
	CBZ   R4, none        // width 0: Go fills in base
	CBZ   R2, none
	LSL   $8, R2, R5
	MOVD  R5, ret+64(FP)
	UNPACK(S4, 2, 32, 5, 0xffffffff)
	RET
none:
	MOVD ZR, ret+64(FP)
	RET

// func unpack64Vec(dst []uint64, src []byte, base uint64, width int) int
TEXT ·unpack64Vec(SB), NOSPLIT, $0-72
	LDP  dst_base+0(FP), (R0, R2)
	MOVD src_base+24(FP), R1
	MOVD base+48(FP), R3
	MOVD width+56(FP), R4
	LSR  $8, R2, R2
	CBZ  R4, none
	CBZ  R2, none
	LSL  $8, R2, R5
	MOVD R5, ret+64(FP)
	UNPACK(D2, 3, 64, 6, -1)
	RET
none:
	MOVD ZR, ret+64(FP)
	RET

// func pack32Vec(dst []byte, src []uint32, base uint32, width int) int
TEXT ·pack32Vec(SB), NOSPLIT, $0-72
	MOVD  dst_base+0(FP), R0
	LDP   src_base+24(FP), (R1, R2)
	MOVWU base+48(FP), R3
	MOVD  width+56(FP), R4
	LSR   $8, R2, R2
	CBZ   R4, none
	CBZ   R2, none
	LSL   $8, R2, R5
	MOVD  R5, ret+64(FP)
	PACK(S4, 2, 32, 5, 0xffffffff)
	RET
none:
	MOVD ZR, ret+64(FP)
	RET

// func pack64Vec(dst []byte, src []uint64, base uint64, width int) int
TEXT ·pack64Vec(SB), NOSPLIT, $0-72
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	MOVD base+48(FP), R3
	MOVD width+56(FP), R4
	LSR  $8, R2, R2
	CBZ  R4, none
	CBZ  R2, none
	LSL  $8, R2, R5
	MOVD R5, ret+64(FP)
	PACK(D2, 3, 64, 6, -1)
	RET
none:
	MOVD ZR, ret+64(FP)
	RET

// The min/max kernels.

// MINMAX(T, CMP, SIZE, N): the minmax kernels after the arguments are
// loaded (R0 = x, R1 = n > 0, a multiple of N, the elements of two Q
// registers). CMP is CMGT (signed) or CMHI (unsigned): lo takes v where lo
// > v, hi where v > hi (BIT inserts the lanes of v the mask selects). Two
// pairs of accumulators, V4/V5 (lo) and V6/V7 (hi), start from the first
// two registers and are folded together and across lanes at the end, into
// lane 0 of V4 and V6.
#define MINMAX(T, CMP, SIZE, N) \
	VLD1.P 32(R0), [V4.T, V5.T]          \
	VMOV V4.B16, V6.B16                  \
	VMOV V5.B16, V7.B16                  \
	SUBS $N, R1                          \
	BEQ  fold                            \
loop:                                        \
	VLD1.P 32(R0), [V0.T, V1.T]          \
	CMP(SIZE, 18, 4, 0)                  \
	CMP(SIZE, 19, 0, 6)                  \
	CMP(SIZE, 20, 5, 1)                  \
	CMP(SIZE, 21, 1, 7)                  \
	VBIT V18.B16, V0.B16, V4.B16         \
	VBIT V19.B16, V0.B16, V6.B16         \
	VBIT V20.B16, V1.B16, V5.B16         \
	VBIT V21.B16, V1.B16, V7.B16         \
	SUBS $N, R1                          \
	BNE  loop                            \
fold:                                        \
	CMP(SIZE, 18, 4, 5)                  \
	CMP(SIZE, 19, 7, 6)                  \
	VBIT V18.B16, V5.B16, V4.B16         \
	VBIT V19.B16, V7.B16, V6.B16         \
	VEXT $8, V4.B16, V4.B16, V0.B16      \
	VEXT $8, V6.B16, V6.B16, V1.B16      \
	CMP(SIZE, 18, 4, 0)                  \
	CMP(SIZE, 19, 1, 6)                  \
	VBIT V18.B16, V0.B16, V4.B16         \
	VBIT V19.B16, V1.B16, V6.B16

// MINMAX4(CMP) folds the last two 32-bit lanes, after MINMAX(S4, ...).
#define MINMAX4(CMP) \
	VEXT $4, V4.B16, V4.B16, V0.B16      \
	VEXT $4, V6.B16, V6.B16, V1.B16      \
	CMP(2, 18, 4, 0)                     \
	CMP(2, 19, 1, 6)                     \
	VBIT V18.B16, V0.B16, V4.B16         \
	VBIT V19.B16, V1.B16, V6.B16

// func minmaxU32Vec(x []uint32) (lo uint32, hi uint32, n int)
TEXT ·minmaxU32Vec(SB), NOSPLIT, $0-40
	LDP  x_base+0(FP), (R0, R1)
	AND  $~7, R1          // n: whole blocks of 8 elements
	MOVD R1, n+32(FP)
	CBZ  R1, done
	MINMAX(S4, CMHI, 2, 8)
	MINMAX4(CMHI)
	VMOV V4.S[0], R3
	MOVW R3, lo+24(FP)
	VMOV V6.S[0], R3
	MOVW R3, hi+28(FP)
done:
	RET

// func minmaxI32Vec(x []int32) (lo int32, hi int32, n int)
TEXT ·minmaxI32Vec(SB), NOSPLIT, $0-40
	LDP  x_base+0(FP), (R0, R1)
	AND  $~7, R1
	MOVD R1, n+32(FP)
	CBZ  R1, done
	MINMAX(S4, CMGT, 2, 8)
	MINMAX4(CMGT)
	VMOV V4.S[0], R3
	MOVW R3, lo+24(FP)
	VMOV V6.S[0], R3
	MOVW R3, hi+28(FP)
done:
	RET

// func minmaxU64Vec(x []uint64) (lo uint64, hi uint64, n int)
TEXT ·minmaxU64Vec(SB), NOSPLIT, $0-48
	LDP  x_base+0(FP), (R0, R1)
	AND  $~3, R1          // n: whole blocks of 4 elements
	MOVD R1, n+40(FP)
	CBZ  R1, done
	MINMAX(D2, CMHI, 3, 4)
	VMOV V4.D[0], R3
	MOVD R3, lo+24(FP)
	VMOV V6.D[0], R3
	MOVD R3, hi+32(FP)
done:
	RET

// func minmaxI64Vec(x []int64) (lo int64, hi int64, n int)
TEXT ·minmaxI64Vec(SB), NOSPLIT, $0-48
	LDP  x_base+0(FP), (R0, R1)
	AND  $~3, R1
	MOVD R1, n+40(FP)
	CBZ  R1, done
	MINMAX(D2, CMGT, 3, 4)
	VMOV V4.D[0], R3
	MOVD R3, lo+24(FP)
	VMOV V6.D[0], R3
	MOVD R3, hi+32(FP)
done:
	RET

// The ALP kernels: SCVTF converts every integer as Go does (all of int64,
// no domain limit here), then the two products.

// func alp64Vec(dst []float64, src []int64, f float64, e float64) int
TEXT ·alp64Vec(SB), NOSPLIT, $0-72
	MOVD  dst_base+0(FP), R0
	LDP   src_base+24(FP), (R1, R2)
	FMOVD f+48(FP), F20
	FMOVD e+56(FP), F21
	AND   $~3, R2         // n: whole blocks of 4 elements
	MOVD  R2, ret+64(FP)
	CBZ   R2, done
	VDUP  V20.D[0], V20.D2
	VDUP  V21.D[0], V21.D2
loop:
	VLD1.P 32(R1), [V0.D2, V1.D2]
	SCVTF_D2(0, 0)
	SCVTF_D2(1, 1)
	FMUL_D2(0, 0, 20)
	FMUL_D2(1, 1, 20)
	FMUL_D2(0, 0, 21)
	FMUL_D2(1, 1, 21)
	VST1.P [V0.D2, V1.D2], 32(R0)
	SUBS   $4, R2
	BNE    loop
done:
	RET

// func alp32Vec(dst []float32, src []int32, f float32, e float32) int
TEXT ·alp32Vec(SB), NOSPLIT, $0-64
	MOVD  dst_base+0(FP), R0
	LDP   src_base+24(FP), (R1, R2)
	FMOVS f+48(FP), F20
	FMOVS e+52(FP), F21
	AND   $~7, R2         // n: whole blocks of 8 elements
	MOVD  R2, ret+56(FP)
	CBZ   R2, done
	VDUP  V20.S[0], V20.S4
	VDUP  V21.S[0], V21.S4
loop:
	VLD1.P 32(R1), [V0.S4, V1.S4]
	SCVTF_S4(0, 0)
	SCVTF_S4(1, 1)
	FMUL_S4(0, 0, 20)
	FMUL_S4(1, 1, 20)
	FMUL_S4(0, 0, 21)
	FMUL_S4(1, 1, 21)
	VST1.P [V0.S4, V1.S4], 32(R0)
	SUBS   $8, R2
	BNE    loop
done:
	RET

// scatterWordsVec is the plain scatter of scatter32Vec and scatter64Vec
// (asm/scatter.go has the contract), scalar as on amd64: a scatter has
// nothing for vectors to do. R0 = cur (Base, At pairs), R1 = the number of
// partitions, R2 = src, R3 = parts, R4 = len(parts), R5 = the row; it
// stops at the first row whose partition is out of range. shift is 2 for
// 4-byte values, 3 for 8-byte ones.
//
// func scatterWordsVec(cur []uintptr, src unsafe.Pointer, parts []uint32, shift int) int
TEXT ·scatterWordsVec(SB), NOSPLIT, $0-72
	MOVD cur_base+0(FP), R0
	MOVD cur_len+8(FP), R1
	LSR  $1, R1
	MOVD src+24(FP), R2
	MOVD parts_base+32(FP), R3
	MOVD parts_len+40(FP), R4
	MOVD shift+56(FP), R11
	MOVD $1, R12
	LSL  R11, R12 // the width in bytes
	MOVD $0, R5

loop:
	CMP   R4, R5
	BHS   done
	MOVWU (R3)(R5<<2), R6
	CMP   R1, R6
	BHS   done
	ADD   R6<<4, R0, R7
	LDP   (R7), (R8, R9)
	ADD   R9, R8
	CMP   $2, R11
	BNE   wide
	MOVWU (R2)(R5<<2), R10
	MOVW  R10, (R8)
	B     next

wide:
	MOVD (R2)(R5<<3), R10
	MOVD R10, (R8)

next:
	ADD  R12, R9
	MOVD R9, 8(R7)
	ADD  $1, R5
	B    loop

done:
	MOVD R5, ret+64(FP)
	RET

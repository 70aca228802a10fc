//go:build !purego

#include "textflag.h"

// NEON kernels; contracts in codec_arm64.go. Every loop handles one 64-byte
// block (four Q registers) per iteration and the count it returns is always
// a whole number of blocks, so no load or store goes past it.
//
// Go's assembler has no CMGT or USHL, so those are WORD-encoded; the
// comment on each names the exact instruction. Encodings (Q=1):
//	CMGT Vd.T, Vn.T, Vm.T = 0x4e203400 | size<<22 | m<<16 | n<<5 | d (signed Vn > Vm)
//	USHL Vd.T, Vn.T, Vm.T = 0x6e204400 | size<<22 | m<<16 | n<<5 | d
// with size 0 for 16B, 2 for 4S and 3 for 2D.

// func rebase32Vec(dst, src []int32, base int32) int
TEXT ·rebase32Vec(SB), NOSPLIT, $0-64
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	MOVW base+48(FP), R3

	AND  $~15, R2   // n: whole blocks of 16 elements
	MOVD R2, ret+56(FP)
	CBZ  R2, done
	VDUP R3, V4.S4

loop:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VSUB   V4.S4, V0.S4, V0.S4
	VSUB   V4.S4, V1.S4, V1.S4
	VSUB   V4.S4, V2.S4, V2.S4
	VSUB   V4.S4, V3.S4, V3.S4
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUBS   $16, R2
	BNE    loop

done:
	RET

// func rebase64Vec(dst, src []int64, base int64) int
TEXT ·rebase64Vec(SB), NOSPLIT, $0-64
	MOVD dst_base+0(FP), R0
	LDP  src_base+24(FP), (R1, R2)
	MOVD base+48(FP), R3

	AND  $~7, R2    // n: whole blocks of 8 elements
	MOVD R2, ret+56(FP)
	CBZ  R2, done
	VDUP R3, V4.D2

loop:
	VLD1.P 64(R1), [V0.D2, V1.D2, V2.D2, V3.D2]
	VSUB   V4.D2, V0.D2, V0.D2
	VSUB   V4.D2, V1.D2, V1.D2
	VSUB   V4.D2, V2.D2, V2.D2
	VSUB   V4.D2, V3.D2, V3.D2
	VST1.P [V0.D2, V1.D2, V2.D2, V3.D2], 64(R0)
	SUBS   $8, R2
	BNE    loop

done:
	RET

// func nondecreasing32Vec(x []int32) (n int, ok bool)
//
// Compares the block at x[i:] with the one at x[i+1:], lane by lane, and ORs
// the x[i] > x[i+1] masks into V8; checked once at the end (valid offsets,
// the common case, are scanned to the end anyway).
TEXT ·nondecreasing32Vec(SB), NOSPLIT, $0-33
	LDP x_base+0(FP), (R0, R2)

	SUBS $1, R2           // pairs x[i], x[i+1] with i < len(x)-1
	CSEL LT, ZR, R2, R2   // len(x) == 0: none
	AND  $~15, R2         // n: whole blocks of 16 pairs
	MOVD R2, n+24(FP)
	ADD  $4, R0, R1       // R1 = &x[1]
	VEOR V8.B16, V8.B16, V8.B16
	CBZ  R2, done

loop:
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4] // x[i:i+16]
	VLD1.P 64(R1), [V4.S4, V5.S4, V6.S4, V7.S4] // x[i+1:i+17]
	WORD   $0x4ea43400                          // cmgt v0.4s, v0.4s, v4.4s
	WORD   $0x4ea53421                          // cmgt v1.4s, v1.4s, v5.4s
	WORD   $0x4ea63442                          // cmgt v2.4s, v2.4s, v6.4s
	WORD   $0x4ea73463                          // cmgt v3.4s, v3.4s, v7.4s
	VORR   V1.B16, V0.B16, V0.B16
	VORR   V3.B16, V2.B16, V2.B16
	VORR   V2.B16, V0.B16, V0.B16
	VORR   V0.B16, V8.B16, V8.B16
	SUBS   $16, R2
	BNE    loop

done:
	VMOV V8.D[0], R3
	VMOV V8.D[1], R4
	ORR  R3, R4
	CMP  $0, R4
	CSET EQ, R5
	MOVB R5, ok+32(FP)
	RET

// func nondecreasing64Vec(x []int64) (n int, ok bool)
//
// As nondecreasing32Vec, with blocks of 8 pairs.
TEXT ·nondecreasing64Vec(SB), NOSPLIT, $0-33
	LDP x_base+0(FP), (R0, R2)

	SUBS $1, R2           // pairs x[i], x[i+1] with i < len(x)-1
	CSEL LT, ZR, R2, R2   // len(x) == 0: none
	AND  $~7, R2          // n: whole blocks of 8 pairs
	MOVD R2, n+24(FP)
	ADD  $8, R0, R1       // R1 = &x[1]
	VEOR V8.B16, V8.B16, V8.B16
	CBZ  R2, done

loop:
	VLD1.P 64(R0), [V0.D2, V1.D2, V2.D2, V3.D2] // x[i:i+8]
	VLD1.P 64(R1), [V4.D2, V5.D2, V6.D2, V7.D2] // x[i+1:i+9]
	WORD   $0x4ee43400                          // cmgt v0.2d, v0.2d, v4.2d
	WORD   $0x4ee53421                          // cmgt v1.2d, v1.2d, v5.2d
	WORD   $0x4ee63442                          // cmgt v2.2d, v2.2d, v6.2d
	WORD   $0x4ee73463                          // cmgt v3.2d, v3.2d, v7.2d
	VORR   V1.B16, V0.B16, V0.B16
	VORR   V3.B16, V2.B16, V2.B16
	VORR   V2.B16, V0.B16, V0.B16
	VORR   V0.B16, V8.B16, V8.B16
	SUBS   $8, R2
	BNE    loop

done:
	VMOV V8.D[0], R3
	VMOV V8.D[1], R4
	ORR  R3, R4
	CMP  $0, R4
	CSET EQ, R5
	MOVB R5, ok+32(FP)
	RET

// func shiftBitsVec(dst, src []byte, k uint) int
//
// Byte lanes: USHL shifts each byte of src[j:] right by k (a shift count of
// -k) and each byte of src[j+1:] left by 8-k, dropping the bits that leave
// the byte; the OR of the two is dst[j:].
TEXT ·shiftBitsVec(SB), NOSPLIT, $0-64
	LDP  dst_base+0(FP), (R0, R2)
	LDP  src_base+24(FP), (R1, R3)
	MOVD k+48(FP), R4

	SUBS $1, R3           // src[j+1] must exist: j < len(src)-1
	CSEL LT, ZR, R3, R3
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
	WORD   $0x6e304400                              // ushl v0.16b, v0.16b, v16.16b
	WORD   $0x6e304421                              // ushl v1.16b, v1.16b, v16.16b
	WORD   $0x6e304442                              // ushl v2.16b, v2.16b, v16.16b
	WORD   $0x6e304463                              // ushl v3.16b, v3.16b, v16.16b
	WORD   $0x6e314484                              // ushl v4.16b, v4.16b, v17.16b
	WORD   $0x6e3144a5                              // ushl v5.16b, v5.16b, v17.16b
	WORD   $0x6e3144c6                              // ushl v6.16b, v6.16b, v17.16b
	WORD   $0x6e3144e7                              // ushl v7.16b, v7.16b, v17.16b
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

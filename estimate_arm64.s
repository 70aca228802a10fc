//go:build !purego

#include "textflag.h"

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

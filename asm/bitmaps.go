package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// shiftBits generates shiftBitsVec, which moves a bitmap down by k bits.
//
// In 64-bit lanes, out = load64(src[j:])>>k | load64(src[j+1:])<<(8-k):
// every byte of the first term holds src[j]>>k (exact but for the missing
// high bits of the lane's top byte), every byte of the second holds
// src[j+1]<<(8-k) (exact but for the missing low bits of the lane's bottom
// byte), and each of those missing parts is what the other term supplies.
// So a 32-byte block of dst needs src[j:j+32] and src[j+1:j+33], two
// unaligned loads, and no lane crossing.
func shiftBits() {
	const name = "shiftBitsVec"
	kernel(name, "func(dst, src []byte, k uint) int",
		name+" sets dst[j] = src[j]>>k | src[j+1]<<(8-k) for j < n",
		"and returns n, a multiple of 32 with n <= len(dst) and n+1 <= len(src)",
		"(n = 0 if src is empty); 1 <= k <= 7. Equivalently, in 64-bit lanes:",
		"load64(src[j:])>>k | load64(src[j+1:])<<(8-k). It reads src[:n+1] and",
		"writes dst[:n] only; dst may be src itself.",
	)

	dst, src, n := neighbourVectors("dst", "src", 32)

	// Shift counts k and 8-k, in the low quadwords of two XMM registers.
	k := Load(Param("k"), GP64())
	rk := GP64()
	MOVQ(U32(8), rk)
	SUBQ(k, rk)
	xk, xrk := XMM(), XMM()
	VMOVQ(k, xk)
	VMOVQ(rk, xrk)

	i := GP64()
	XORQ(i, i)
	at := func(base Register, v, extra int) Mem {
		return Mem{Base: base, Index: i, Scale: 1, Disp: 32*v + extra}
	}
	// block shifts one 32-byte block, using registers a and b; the block is
	// stored before the next one is loaded, so dst may be src.
	block := func(v int, a, b VecVirtual) {
		VMOVDQU(at(src, v, 0), a)
		VMOVDQU(at(src, v, 1), b)
		VPSRLQ(xk, a, a)
		VPSLLQ(xrk, b, b)
		VPOR(b, a, a)
		VMOVDQU(a, at(dst, v, 0))
	}

	vectorLoops(name, i, n, 32, func() {
		for v := 0; v < unroll; v++ {
			block(v, YMM(), YMM())
		}
	}, func() {
		block(0, YMM(), YMM())
	})

	Label(name + "_done")
	Store(n, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// popcount generates popcountVec with Muła's method: the low and high
// nibble of every byte index a 16-entry table of bit counts (VPSHUFB), the
// two counts are added per byte, and VPSADBW against zero sums the bytes of
// each 64-bit lane into that lane. The main loop adds the byte counts of
// two vectors (at most 16 per byte) before each VPSADBW and keeps two
// independent 64-bit accumulators.
func popcount() {
	const name = "popcountVec"
	// The nibble table, twice (VPSHUFB looks up within each 128-bit half),
	// then the low-nibble mask.
	tab := GLOBL("popcount_nibbles", RODATA|NOPTR)
	for h := 0; h < 2; h++ {
		DATA(16*h, U64(0x0302020102010100))
		DATA(16*h+8, U64(0x0403030203020201))
	}
	for q := 0; q < 4; q++ {
		DATA(32+8*q, U64(0x0f0f0f0f0f0f0f0f))
	}

	kernel(name, "func(b []byte) (ones, n int)",
		name+" returns the number of set bits in b[:n], and n: len(b)",
		"rounded down to a multiple of 32 (whole vectors), so n <= len(b). It",
		"reads nothing at or past b[n].",
	)

	p, n := wholeVectors("b", 32)

	lut, mask, zero := YMM(), YMM(), YMM()
	VMOVDQU(tab, lut)
	VMOVDQU(tab.Offset(32), mask)
	VPXOR(zero, zero, zero)
	acc := []VecVirtual{YMM(), YMM()}
	for _, a := range acc {
		VPXOR(a, a, a)
	}

	i := GP64()
	XORQ(i, i)
	at := func(v int) Mem { return Mem{Base: p, Index: i, Scale: 1, Disp: 32 * v} }
	// count leaves in lo the bit count of each byte of the vector at v,
	// using hi as scratch.
	count := func(v int, lo, hi VecVirtual) {
		VMOVDQU(at(v), lo)
		VPSRLW(U8(4), lo, hi)
		VPAND(mask, lo, lo)
		VPAND(mask, hi, hi)
		VPSHUFB(lo, lut, lo)
		VPSHUFB(hi, lut, hi)
		VPADDB(hi, lo, lo)
	}

	vectorLoops(name, i, n, 32, func() {
		c := make([]VecVirtual, unroll)
		for v := range c {
			c[v] = YMM()
			count(v, c[v], YMM())
		}
		for v := 0; v < unroll; v += 2 {
			a := acc[v/2%len(acc)]
			VPADDB(c[v+1], c[v], c[v])
			VPSADBW(zero, c[v], c[v])
			VPADDQ(c[v], a, a)
		}
	}, func() {
		w := YMM()
		count(0, w, YMM())
		VPSADBW(zero, w, w)
		VPADDQ(w, acc[0], acc[0])
	})

	// Sum the four 64-bit lanes of both accumulators.
	Label(name + "_done")
	VPADDQ(acc[1], acc[0], acc[0])
	sum, hi := acc[0].AsX(), XMM()
	VEXTRACTI128(U8(1), acc[0], hi)
	VPADDQ(hi, sum, sum)
	VPSHUFD(U8(0x4e), sum, hi) // swap the two quadwords
	VPADDQ(hi, sum, sum)
	ones := GP64()
	VMOVQ(sum, ones)
	Store(ones, Return("ones"))
	Store(n, Return("n"))
	VZEROUPPER()
	RET()
}

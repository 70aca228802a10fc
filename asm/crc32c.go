package main

import (
	"fmt"
	"math/bits"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The CRC32C (Castagnoli) kernels: carry-less multiplication folding, after
// Gopal et al., "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ Instruction" (Intel, 2009), for the bit-reflected polynomial
// of CRC32C, P = 0x1EDC6F41 (0x82F63B78 reflected).
//
// # The arithmetic
//
// A CRC of a message M of n bits with the register r is
// r' = (r·x^n + M·x^32) mod P over GF(2), where the first bit of M (the
// lowest bit of its first byte: the CRC is reflected) is the coefficient of
// the highest power. So M can be replaced by any polynomial congruent to it
// mod P, of any degree, as long as the total length n counts the same: r is
// XORed into the first 32 bits of M, and then M is folded, from its start,
// into a 128-bit remainder X ≡ M mod P in the place of its last 128 bits;
// the CRC is then that of the 16 bytes of X with a zero register, which the
// SSE4.2 CRC32 instruction computes in two steps.
//
// Folding: in the reflected order, bit t of a 128-bit vector loaded from
// memory holds the coefficient of x^(127-t); its low quadword is the high
// half H (times x^64), its high quadword the low half L. Moving X forward
// by D bits, onto the vector D bits later in the message, is
//
//	X·x^D = H·x^(64+D) + L·x^D ≡ H·(x^(64+D) mod P) + L·(x^D mod P)
//
// and each product of a 64-bit half and a 32-bit constant has at most 95
// bits, so the sum fits in the 128 bits it is XORed into. PCLMULQDQ of a
// 64-bit reflected a (bit i: x^(63-i)) and a 32-bit reflected k (bit j:
// x^(31-j)) sets bit i+j, which stands for x^(94-i-j), while the vector it
// is XORed into reads bit t as x^(127-t): the product lands multiplied by
// x^33. So the constant stored for the factor x^e is x^(e-33) mod P,
// bit-reversed in 32 bits (foldConst). A fold of D bits takes the quadword
// pair (x^(D+31), x^(D-33)) mod P; foldPair computes them here, so the
// generated data are derived, not pasted, and the tests of the root package
// compare every path with hash/crc32.
//
// # The kernels
//
// crc32cFoldYMM (AVX2 and VPCLMULQDQ on 256-bit vectors) keeps four
// accumulators of 32 bytes, each two 128-bit lanes, over 128 bytes a
// round: each lane folds 1024 bits forward. Then the four fold into one
// (256 bits at a time), which takes any further whole 32-byte vectors,
// and its two lanes fold into one 128-bit remainder. crc32cFoldXMM is the
// same with PCLMULQDQ on 128-bit vectors (SSE encodings, for CPUs without
// AVX): four accumulators of 16 bytes, 64 bytes a round. Each takes and
// returns the CRC as hash/crc32's Update does (inverted at both ends), and
// needs at least one round of input and a whole number of vectors; the Go
// glue gives the tail to hash/crc32.

// castagnoli is P in the normal bit order, x^32 included.
const castagnoli = 1<<32 | 0x1EDC6F41

// xPowMod returns x^e mod P, bit j holding the coefficient of x^j.
func xPowMod(e int) uint64 {
	r := uint64(1)
	for range e {
		r <<= 1
		if r&(1<<32) != 0 {
			r ^= castagnoli
		}
	}
	return r
}

// foldConst returns the constant that multiplies a 64-bit half by x^e
// through PCLMULQDQ (see the comment above): x^(e-33) mod P, reversed.
func foldConst(e int) uint64 {
	if e < 33 {
		panic(fmt.Sprintf("crc32c: fold exponent %d below 33", e))
	}
	return uint64(bits.Reverse32(uint32(xPowMod(e - 33))))
}

// foldPair emits 16 bytes at off of the table being defined: the constants that move a 128-bit
// vector d bits forward, for its low quadword (the high half, times
// x^(d+64)) and its high quadword (times x^d).
func foldPair(off, d int) {
	DATA(off, U64(foldConst(d+64)))
	DATA(off+8, U64(foldConst(d)))
}

// crc32cFolds are the fold distances, in bits, of the constant table, and
// crc32cAt their offsets in it: each pair is stored twice, once for each
// lane of a 256-bit vector.
var crc32cFolds = []int{128, 256, 512, 1024}

// crc32cJump is the offset of the pair that folds over a block's streams,
// crc32cInject that of the three stream constants.
var (
	crc32cJump   = 32 * len(crc32cFolds)
	crc32cInject = crc32cJump + 32
)

func crc32cAt(d int) int {
	for i, x := range crc32cFolds {
		if x == d {
			return 32 * i
		}
	}
	panic(fmt.Sprintf("crc32c: no fold constant for %d bits", d))
}

func crc32c() {
	tab := GLOBL("crc32c_folds", RODATA|NOPTR)
	for i, d := range crc32cFolds {
		foldPair(32*i, d)
		foldPair(32*i+16, d)
	}
	foldPair(crc32cJump, 8*(3*hybridStream+128))
	foldPair(crc32cJump+16, 8*(3*hybridStream+128))
	for s := range 3 {
		// 16 bytes each: PCLMULQDQ loads 16.
		DATA(crc32cInject+16*s, U64(hybridInject((2-s)*hybridStream+128*hybridIters)))
		DATA(crc32cInject+16*s+8, U64(0))
	}
	crc32cFoldYMM(tab)
	crc32cFoldXMM(tab)
	cpuid7()
}

// crc32cAccumulators is the number of vector accumulators of each kernel's
// main loop.
const crc32cAccumulators = 4

// The YMM kernel's blocks: inputs of hybridBlock bytes or more are done in
// blocks of three CRC32 instruction streams of hybridStream bytes each,
// then hybridIters rounds of the four accumulators; each round of 128
// bytes runs hybridU CRC32 instructions of each stream beside its folds,
// on the integer units the folds leave idle. A stream's CRC, of zero
// initial register, is r ≡ S·x^32 for its bytes S, which lie E bytes
// before the block's end; it is added to the low lane of the last
// accumulator (the block's bytes 32..16 from its end, whose bit t stands
// for x^(255-t)) as PCLMULQDQ(r, x^(8E-225) mod P): the product's bit t
// stands for x^(62-t), 193 degrees below the lane's, and S·x^(8E) =
// r·x^(8E-32). The first stream starts from the CRC given, which is so at
// the start of the message; the accumulators start at zero and fold over
// the streams between two blocks' rounds (3·hybridStream+128 bytes).
const (
	hybridIters  = 16
	hybridU      = 4
	hybridStream = hybridIters * 8 * hybridU
	hybridBlock  = 3*hybridStream + 128*hybridIters
)

// hybridInject returns the constant that adds the CRC of a stream ending
// e bytes before the end of the block: x^(8e-225) mod P, reversed.
func hybridInject(e int) uint64 {
	return uint64(bits.Reverse32(uint32(xPowMod(8*e - 225))))
}

// crc32cFoldYMM emits the VPCLMULQDQ kernel.
func crc32cFoldYMM(tab Mem) {
	const name = "crc32cFoldYMM"
	const acc = crc32cAccumulators
	kernel(name, "func(crc uint32, b []byte) uint32",
		name+" returns UpdateCRC32C(crc, b) for len(b) a multiple of 32, at least "+itoa(32*acc)+",",
		"with VPCLMULQDQ on 256-bit vectors (AVX2 and VPCLMULQDQ) and, in blocks of "+itoa(hybridBlock)+" bytes, CRC32.")
	p := Load(Param("b").Base(), GP64())
	n := Load(Param("b").Len(), GP64())
	crc := Load(Param("crc"), GP32())
	NOTL(crc)
	a := make([]VecVirtual, acc)
	for i := range a {
		a[i] = YMM()
	}
	k := YMM()
	VMOVDQU(tab.Offset(crc32cAt(256*acc)), k)

	CMPQ(n, U32(hybridBlock))
	JB(LabelRef(name + "_first"))
	for i := range a {
		VPXOR(a[i], a[i], a[i])
	}
	Label(name + "_block")
	c := []GPVirtual{GP64(), GP64(), GP64()}
	MOVL(crc, c[0].As32())
	XORL(crc, crc)
	XORL(c[1].As32(), c[1].As32())
	XORL(c[2].As32(), c[2].As32())
	pv := GP64()
	LEAQ(Mem{Base: p, Disp: 3 * hybridStream}, pv)
	round := func(kop Op) {
		// The CRC32 instructions, in the order of their words in each
		// stream, are spread over the folds.
		for i := range a {
			foldYMM(a[i], kop, Mem{Base: pv, Disp: 32 * i})
			for j := i * 3 * hybridU / acc; j < (i+1)*3*hybridU/acc; j++ {
				s, w := j%3, j/3
				CRC32Q(Mem{Base: p, Disp: s*hybridStream + 8*w}, c[s])
			}
		}
		ADDQ(U32(8*hybridU), p)
		ADDQ(U32(128), pv)
	}
	round(tab.Offset(crc32cJump))
	cnt := GP64()
	MOVL(U32(hybridIters-1), cnt.As32())
	Label(name + "_round")
	round(k)
	DECL(cnt.As32())
	JNZ(LabelRef(name + "_round"))
	// The streams' CRCs into the low lane of the last accumulator.
	inj := XMM()
	for s := range c {
		r := XMM()
		VMOVD(c[s].As32(), r)
		VPCLMULQDQ(U8(0), tab.Offset(crc32cInject+16*s), r, r)
		if s == 0 {
			inj = r
		} else {
			VPXOR(r, inj, inj)
		}
	}
	VPXOR(inj.AsY(), a[acc-1], a[acc-1])
	MOVQ(pv, p)
	SUBQ(U32(hybridBlock), n)
	CMPQ(n, U32(hybridBlock))
	JAE(LabelRef(name + "_block"))
	JMP(LabelRef(name + "_loop"))

	// No block: the first round loads the accumulators, the register
	// XORed into the first 32 bits.
	Label(name + "_first")
	for i := range a {
		VMOVDQU(Mem{Base: p, Disp: 32 * i}, a[i])
	}
	r := XMM()
	VMOVD(crc, r) // zeroes the rest of the vector
	VPXOR(r.AsY(), a[0], a[0])
	ADDQ(U32(32*acc), p)
	SUBQ(U32(32*acc), n)

	// Main loop: every accumulator moves 32·acc bytes forward and takes the
	// next vector at its place.
	Label(name + "_loop")
	CMPQ(n, U32(32*acc))
	JB(LabelRef(name + "_fold"))
	for i := range a {
		foldYMM(a[i], k, Mem{Base: p, Disp: 32 * i})
	}
	ADDQ(U32(32*acc), p)
	SUBQ(U32(32*acc), n)
	JMP(LabelRef(name + "_loop"))

	// Fold the accumulators into the last, 256 bits at a time, then take
	// the remaining whole vectors one by one.
	Label(name + "_fold")
	VMOVDQU(tab.Offset(crc32cAt(256)), k)
	for i := 1; i < acc; i++ {
		foldYMMInto(a[i-1], k, a[i])
	}
	x := a[acc-1]
	Label(name + "_single")
	TESTQ(n, n)
	JZ(LabelRef(name + "_lanes"))
	foldYMM(x, k, Mem{Base: p})
	ADDQ(U32(32), p)
	SUBQ(U32(32), n)
	JMP(LabelRef(name + "_single"))

	// The low lane (earlier bytes) folds 128 bits onto the high one.
	Label(name + "_lanes")
	hi := XMM()
	VEXTRACTI128(U8(1), x, hi)
	lo := x.AsX()
	k128 := XMM()
	VMOVDQU(tab.Offset(crc32cAt(128)), k128)
	t := XMM()
	VPCLMULQDQ(U8(0x11), k128, lo, t)
	VPCLMULQDQ(U8(0x00), k128, lo, lo)
	VPXOR(t, lo, lo)
	VPXOR(hi, lo, lo)
	q0, q1 := GP64(), GP64()
	VMOVQ(lo, q0)
	VPEXTRQ(U8(1), lo, q1)
	VZEROUPPER()
	crc32cFinish(q0, q1)
}

// foldYMM sets a to a moved forward by the constants in k (one pair per
// lane) XOR the 32 bytes at m.
func foldYMM(a VecVirtual, k Op, m Mem) {
	t := YMM()
	VPCLMULQDQ(U8(0x11), k, a, t)
	VPCLMULQDQ(U8(0x00), k, a, a)
	VPXOR(m, t, t)
	VPXOR(t, a, a)
}

// foldYMMInto sets b ^= a moved forward by the constants in k.
func foldYMMInto(a, k, b VecVirtual) {
	t := YMM()
	VPCLMULQDQ(U8(0x11), k, a, t)
	VPCLMULQDQ(U8(0x00), k, a, a)
	VPXOR(t, b, b)
	VPXOR(a, b, b)
}

// crc32cFinish returns the CRC of the 16-byte remainder whose quadwords are
// q0 (first) and q1: CRC32 from a zero register, inverted.
func crc32cFinish(q0, q1 Register) {
	c := GP64()
	XORQ(c, c)
	CRC32Q(q0, c)
	CRC32Q(q1, c)
	NOTL(c.As32())
	Store(c.As32(), ReturnIndex(0))
	RET()
}

// crc32cFoldXMM emits the PCLMULQDQ kernel, in SSE encodings.
func crc32cFoldXMM(tab Mem) {
	const name = "crc32cFoldXMM"
	const acc = crc32cAccumulators
	kernel(name, "func(crc uint32, b []byte) uint32",
		name+" returns UpdateCRC32C(crc, b) for len(b) a multiple of 16, at least "+itoa(16*acc)+",",
		"with PCLMULQDQ on 128-bit vectors (SSE4.2 and PCLMULQDQ).")
	p := Load(Param("b").Base(), GP64())
	n := Load(Param("b").Len(), GP64())
	crc := Load(Param("crc"), GP32())
	NOTL(crc)

	a := make([]VecVirtual, acc)
	for i := range a {
		a[i] = XMM()
		MOVOU(Mem{Base: p, Disp: 16 * i}, a[i])
	}
	r := XMM()
	MOVD(crc, r)
	PXOR(r, a[0])
	ADDQ(U32(16*acc), p)
	SUBQ(U32(16*acc), n)

	k := XMM()
	MOVOU(tab.Offset(crc32cAt(128*acc)), k)
	Label(name + "_loop")
	CMPQ(n, U32(16*acc))
	JB(LabelRef(name + "_fold"))
	for i := range a {
		foldXMM(a[i], k, Mem{Base: p, Disp: 16 * i})
	}
	ADDQ(U32(16*acc), p)
	SUBQ(U32(16*acc), n)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_fold")
	MOVOU(tab.Offset(crc32cAt(128)), k)
	for i := 1; i < acc; i++ {
		t := XMM()
		MOVOA(a[i-1], t)
		PCLMULQDQ(U8(0x11), k, t)
		PCLMULQDQ(U8(0x00), k, a[i-1])
		PXOR(t, a[i])
		PXOR(a[i-1], a[i])
	}
	x := a[acc-1]
	Label(name + "_single")
	TESTQ(n, n)
	JZ(LabelRef(name + "_done"))
	foldXMM(x, k, Mem{Base: p})
	ADDQ(U32(16), p)
	SUBQ(U32(16), n)
	JMP(LabelRef(name + "_single"))

	Label(name + "_done")
	q0, q1 := GP64(), GP64()
	MOVQ(x, q0)
	PEXTRQ(U8(1), x, q1)
	crc32cFinish(q0, q1)
}

// foldXMM sets a to a moved forward by the constants in k XOR the 16 bytes
// at m (loaded apart: SSE memory operands must be aligned).
func foldXMM(a, k VecVirtual, m Mem) {
	t, d := XMM(), XMM()
	MOVOU(m, d)
	MOVOA(a, t)
	PCLMULQDQ(U8(0x11), k, t)
	PCLMULQDQ(U8(0x00), k, a)
	PXOR(d, t)
	PXOR(t, a)
}

// cpuid7 emits cpuid7ECX, which x/sys/cpu does not answer for VPCLMULQDQ
// without AVX-512.
func cpuid7() {
	TEXT("cpuid7ECX", NOSPLIT, "func() uint32")
	Doc("cpuid7ECX returns ECX of CPUID leaf 7, subleaf 0; the caller checks that the leaf exists.")
	MOVL(U32(7), EAX)
	XORL(ECX, ECX)
	CPUID()
	Store(ECX, ReturnIndex(0))
	RET()
}

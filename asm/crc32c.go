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
// bit-reversed in 32 bits (reversed). A fold of D bits takes the quadword
// pair (x^(D+31), x^(D-33)) mod P; foldPair computes them here, so the
// generated data are derived, not pasted, and the tests of the root package
// compare every path with hash/crc32.
//
// # The kernels
//
// Both kernels keep four vector accumulators over a round of four vectors
// (the YMM one, crc32cFoldYMM, with VPCLMULQDQ on 256-bit vectors: two
// 128-bit lanes each, 128 bytes a round; the XMM one, crc32cFoldXMM, with
// the VEX encoding of PCLMULQDQ on 128-bit vectors, 64 bytes a round),
// each moving forward by a round a step. Inputs of a block or more are
// done in blocks that also feed three streams of the CRC32 instruction,
// which runs on the integer units while the multiplier folds (see
// crc32cBlock). After the last round, the accumulators fold into one, one
// vector at a time, which takes any further whole vectors, and the lanes
// of a 256-bit one into one 128-bit remainder. Each takes and returns the
// CRC as hash/crc32's Update does (inverted at both ends), and needs at
// least one round of input and a whole number of vectors; the Go glue
// gives the tail to hash/crc32.

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

// reversed returns x^e mod P bit-reversed in 32 bits, as PCLMULQDQ takes
// a constant in the reflected order.
func reversed(e int) uint64 {
	if e < 0 {
		panic(fmt.Sprintf("crc32c: negative exponent %d", e))
	}
	return uint64(bits.Reverse32(uint32(xPowMod(e))))
}

// foldPair emits, at off of the table being defined, the 16 bytes that
// move a 128-bit vector d bits forward: the constants for its low quadword
// (the high half, times x^(d+64)) and its high quadword (times x^d), each
// x^(e-33) for the factor x^e (see above). With twice, the pair is
// emitted again for the high lane of a 256-bit vector.
func foldPair(off, d int, twice bool) {
	DATA(off, U64(reversed(d+64-33)))
	DATA(off+8, U64(reversed(d-33)))
	if twice {
		foldPair(off+16, d, false)
	}
}

// crc32cAccumulators is the number of vector accumulators of each kernel.
const crc32cAccumulators = 4

// crc32cBlock describes the blocks of a kernel. Inputs of size() bytes
// or more are done in blocks of three CRC32 instruction streams of
// stream() bytes each, followed by iters rounds of the accumulators; each
// round runs u CRC32 instructions of each stream beside its folds, on the
// integer units that the folds leave idle.
//
// A stream's CRC, from a zero register, is r ≡ S·x^32 for its bytes S,
// which end e bytes before the block's end. It is added to the low lane of
// the last accumulator (the block's bytes w..w-16 from its end, w the
// vector width, whose bit t stands for x^(8w-1-t)) as PCLMULQDQ(r, k):
// the product's bit t stands for x^(62-t), so it is r·k·x^(8w-63), and
// S·x^(8e) = r·x^(8e-32) wants k = x^(8e-8w+31) mod P (inject). The first
// stream starts from the CRC given, which is so at the start of the
// message; the accumulators start at zero and jump over the streams from
// one block's last round to the next one's first (3·stream()+round bytes).
type crc32cBlock struct {
	width    int // bytes of a vector
	iters, u int
}

func (b crc32cBlock) round() int  { return crc32cAccumulators * b.width }
func (b crc32cBlock) stream() int { return b.iters * 8 * b.u }
func (b crc32cBlock) size() int   { return 3*b.stream() + b.iters*b.round() }

// inject returns the constant that adds the CRC of stream s (0, 1, 2).
func (b crc32cBlock) inject(s int) uint64 {
	e := (2-s)*b.stream() + b.iters*b.round()
	return reversed(8*e - 8*b.width + 31)
}

// The constant tables: crc32c_folds holds the pairs of crc32cFolds, each
// twice (for both lanes of a 256-bit vector), and each kernel's table its
// block's jump pair (twice) and inject constants (16 bytes each:
// PCLMULQDQ loads 16).
var crc32cFolds = []int{128, 256, 512, 1024}

func crc32cAt(d int) int {
	for i, x := range crc32cFolds {
		if x == d {
			return 32 * i
		}
	}
	panic(fmt.Sprintf("crc32c: no fold constant for %d bits", d))
}

const (
	crc32cJump   = 0
	crc32cInject = 32
)

func crc32c() {
	folds := GLOBL("crc32c_folds", RODATA|NOPTR)
	for i, d := range crc32cFolds {
		foldPair(32*i, d, true)
	}
	crc32cKernel("crc32cFoldYMM", folds, crc32cBlock{width: 32, iters: 16, u: 4})
	crc32cKernel("crc32cFoldXMM", folds, crc32cBlock{width: 16, iters: 32, u: 2})
	cpuid7()
}

// crc32cKernel emits the kernel name on vectors of blk.width bytes.
func crc32cKernel(name string, folds Mem, blk crc32cBlock) {
	tab := GLOBL(name+"_consts", RODATA|NOPTR)
	foldPair(crc32cJump, 8*(3*blk.stream()+blk.round()), true)
	for s := range 3 {
		DATA(crc32cInject+16*s, U64(blk.inject(s)))
		DATA(crc32cInject+16*s+8, U64(0))
	}

	const acc = crc32cAccumulators
	w := blk.width
	ymm := w == 32
	vec := XMM
	what := "PCLMULQDQ on 128-bit vectors (AVX and PCLMULQDQ)"
	if ymm {
		vec = YMM
		what = "VPCLMULQDQ on 256-bit vectors (AVX2 and VPCLMULQDQ)"
	}
	kernel(name, "func(crc uint32, b []byte) uint32",
		name+" returns UpdateCRC32C(crc, b) for len(b) a multiple of "+itoa(w)+", at least "+itoa(blk.round())+",",
		"with "+what+" and, in blocks of "+itoa(blk.size())+" bytes, CRC32.")
	p := Load(Param("b").Base(), GP64())
	n := Load(Param("b").Len(), GP64())
	crc := Load(Param("crc"), GP32())
	NOTL(crc)
	a := make([]VecVirtual, acc)
	for i := range a {
		a[i] = vec()
	}
	k := vec()
	VMOVDQU(folds.Offset(crc32cAt(8*blk.round())), k)

	CMPQ(n, U32(blk.size()))
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
	LEAQ(Mem{Base: p, Disp: 3 * blk.stream()}, pv)
	round := func(kop Op) {
		// The CRC32 instructions, in the order of their words in each
		// stream, are spread over the folds.
		for i := range a {
			fold(a[i], kop, Mem{Base: pv, Disp: w * i})
			for j := i * 3 * blk.u / acc; j < (i+1)*3*blk.u/acc; j++ {
				s, word := j%3, j/3
				CRC32Q(Mem{Base: p, Disp: s*blk.stream() + 8*word}, c[s])
			}
		}
		ADDQ(U32(8*blk.u), p)
		ADDQ(U32(blk.round()), pv)
	}
	round(tab.Offset(crc32cJump))
	cnt := GP64()
	MOVL(U32(blk.iters-1), cnt.As32())
	Label(name + "_round")
	round(k)
	DECL(cnt.As32())
	JNZ(LabelRef(name + "_round"))
	// The streams' CRCs into the low lane of the last accumulator.
	var inj VecVirtual
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
	var injv Register = inj
	if ymm {
		injv = inj.AsY() // the VEX-128 operations zeroed the high lane
	}
	VPXOR(injv, a[acc-1], a[acc-1])
	MOVQ(pv, p)
	SUBQ(U32(blk.size()), n)
	CMPQ(n, U32(blk.size()))
	JAE(LabelRef(name + "_block"))
	JMP(LabelRef(name + "_loop"))

	// No block: the first round loads the accumulators, the register
	// XORed into the first 32 bits.
	Label(name + "_first")
	for i := range a {
		VMOVDQU(Mem{Base: p, Disp: w * i}, a[i])
	}
	r := XMM()
	VMOVD(crc, r) // zeroes the rest of the vector
	if ymm {
		VPXOR(r.AsY(), a[0], a[0])
	} else {
		VPXOR(r, a[0], a[0])
	}
	ADDQ(U32(blk.round()), p)
	SUBQ(U32(blk.round()), n)

	// Rounds: every accumulator moves a round forward and takes the next
	// vector at its place.
	Label(name + "_loop")
	CMPQ(n, U32(blk.round()))
	JB(LabelRef(name + "_fold"))
	for i := range a {
		fold(a[i], k, Mem{Base: p, Disp: w * i})
	}
	ADDQ(U32(blk.round()), p)
	SUBQ(U32(blk.round()), n)
	JMP(LabelRef(name + "_loop"))

	// Fold the accumulators into the last, a vector at a time, then take
	// the remaining whole vectors one by one.
	Label(name + "_fold")
	VMOVDQU(folds.Offset(crc32cAt(8*w)), k)
	for i := 1; i < acc; i++ {
		foldInto(a[i-1], k, a[i])
	}
	x := a[acc-1]
	Label(name + "_single")
	TESTQ(n, n)
	JZ(LabelRef(name + "_lanes"))
	fold(x, k, Mem{Base: p})
	ADDQ(U32(w), p)
	SUBQ(U32(w), n)
	JMP(LabelRef(name + "_single"))

	// The low lane (earlier bytes) folds 128 bits onto the high one.
	Label(name + "_lanes")
	var lo Register = x
	if ymm {
		hi := XMM()
		VEXTRACTI128(U8(1), x, hi)
		lo = x.AsX()
		k128 := XMM()
		VMOVDQU(folds.Offset(crc32cAt(128)), k128)
		foldInto(lo, k128, hi)
		lo = hi
	}
	q0, q1 := GP64(), GP64()
	VMOVQ(lo, q0)
	VPEXTRQ(U8(1), lo, q1)
	VZEROUPPER()
	c0 := GP64()
	XORQ(c0, c0)
	CRC32Q(q0, c0)
	CRC32Q(q1, c0)
	NOTL(c0.As32())
	Store(c0.As32(), ReturnIndex(0))
	RET()
}

// fold sets a to a moved forward by the constants in k (a pair per lane)
// XOR the vector at m.
func fold(a Register, k Op, m Mem) {
	tmp := vecLike(a)
	VPCLMULQDQ(U8(0x11), k, a, tmp)
	VPCLMULQDQ(U8(0x00), k, a, a)
	VPXOR(m, tmp, tmp)
	VPXOR(tmp, a, a)
}

// vecLike returns a new virtual vector register of a's size.
func vecLike(a Register) VecVirtual {
	if a.Size() == 32 {
		return YMM()
	}
	return XMM()
}

// foldInto sets b ^= a moved forward by the constants in k.
func foldInto(a, k, b Register) {
	tmp := vecLike(a)
	VPCLMULQDQ(U8(0x11), k, a, tmp)
	VPCLMULQDQ(U8(0x00), k, a, a)
	VPXOR(tmp, b, b)
	VPXOR(a, b, b)
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

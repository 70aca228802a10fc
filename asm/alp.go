package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// alp64 generates alp64Vec: dst[i] = float64(src[i]) * f * e. AVX2 has no
// int64 to float64 conversion (VCVTQQ2PD is AVX-512DQ), so the integers go
// through the magic number 2^52 + 2^51: for |v| < 2^51, the bits of v
// added to its bits as integers are the double 2^52 + 2^51 + v exactly,
// and subtracting the magic as a double leaves float64(v), exactly. Each
// vector is first checked to be in that domain (v + 2^51 below 2^52); the
// routine stops at the first vector that is not, for Go to convert it.
func alp64() {
	const name = "alp64Vec"
	kernel(name, "func(dst []float64, src []int64, f, e float64) int",
		name+" sets dst[i] = float64(src[i]) * f * e, rounded as that Go",
		"expression is, for i < n and returns n: a multiple of 4 (one vector)",
		"up to len(src), less where it met a vector of src with an element",
		"outside -2^51 <= v < 2^51, which it stops before. The caller",
		"guarantees len(dst) >= len(src). It reads and writes nothing at or",
		"past index n (past the whole vectors of src where it stops).",
	)
	dst := Load(Param("dst").Base(), GP64())
	src, n := wholeVectors("src", 4)
	bcast := func(p string) VecVirtual {
		v := YMM()
		VBROADCASTSD(addr(Param(p)), v)
		return v
	}
	vf, ve := bcast("f"), bcast("e")
	magic, half := YMM(), YMM()
	g := GP64()
	MOVQ(U64(0x4338000000000000), g)
	VMOVQ(g, magic.AsX())
	VPBROADCASTQ(magic.AsX(), magic)
	MOVQ(U64(1<<51), g)
	VMOVQ(g, half.AsX())
	VPBROADCASTQ(half.AsX(), half)

	i := GP64()
	XORQ(i, i)
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	v, t := YMM(), YMM()
	VMOVDQU(Mem{Base: src, Index: i, Scale: 8}, v)
	VPADDQ(half, v, t)
	VPSRLQ(U8(52), t, t)
	VPTEST(t, t)
	JNZ(LabelRef(name + "_done"))
	VPADDQ(magic, v, v)
	VSUBPD(magic, v, v)
	VMULPD(vf, v, v)
	VMULPD(ve, v, v)
	VMOVUPD(v, Mem{Base: dst, Index: i, Scale: 8})
	ADDQ(U32(4), i)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_done")
	Store(i, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// alp32 generates alp32Vec: VCVTDQ2PS converts every int32 exactly as Go
// does (rounding to nearest), then the two products.
func alp32() {
	const name = "alp32Vec"
	kernel(name, "func(dst []float32, src []int32, f, e float32) int",
		name+" sets dst[i] = float32(src[i]) * f * e, rounded as that Go",
		"expression is, for i < n and returns n: len(src) rounded down to a",
		"multiple of 8 (one vector). The caller guarantees len(dst) >=",
		"len(src). It reads and writes nothing at or past index n.",
	)
	dst := Load(Param("dst").Base(), GP64())
	src, n := wholeVectors("src", 8)
	vf, ve := YMM(), YMM()
	VBROADCASTSS(addr(Param("f")), vf)
	VBROADCASTSS(addr(Param("e")), ve)
	i := GP64()
	XORQ(i, i)
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	v := YMM()
	VCVTDQ2PS(Mem{Base: src, Index: i, Scale: 4}, v)
	VMULPS(vf, v, v)
	VMULPS(ve, v, v)
	VMOVUPS(v, Mem{Base: dst, Index: i, Scale: 4})
	ADDQ(U32(8), i)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	Store(n, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// minmaxKind is one element type of the min/max kernels.
type minmaxKind struct {
	elemKind
	// vmin and vmax are the lane-wise minimum and maximum, nil for 64
	// bits (AVX-512 only), which compare with VPCMPGTQ, the unsigned ones
	// with the sign bit flipped.
	vmin, vmax func(ops ...Op)
	unsigned   bool
}

var (
	minmaxU32 = minmaxKind{elemKind{32, "uint32"}, VPMINUD, VPMAXUD, true}
	minmaxI32 = minmaxKind{elemKind{32, "int32"}, VPMINSD, VPMAXSD, false}
	minmaxU64 = minmaxKind{elemKind{64, "uint64"}, nil, nil, true}
	minmaxI64 = minmaxKind{elemKind{64, "int64"}, nil, nil, false}
)

// minmax generates minmax{U,I}{32,64}Vec: two accumulators per iteration,
// folded across lanes at the end.
func minmax(k minmaxKind) {
	s := "I"
	if k.unsigned {
		s = "U"
	}
	name := "minmax" + s + itoa(k.bits) + "Vec"
	kernel(name, "func(x []"+k.goTyp+") (lo, hi "+k.goTyp+", n int)",
		name+" returns the smallest and the largest of x[:n] (unspecified if",
		"n = 0), and n: len(x) rounded down to a multiple of "+itoa(2*k.lanes())+" (two",
		"vectors). It reads nothing at or past x[n].",
	)
	p, n := wholeVectors("x", 2*k.lanes())
	JZ(LabelRef(name + "_done"))
	var bias VecVirtual
	if k.vmin == nil && k.unsigned {
		bias = YMM()
		g := GP64()
		MOVQ(U64(1<<63), g)
		VMOVQ(g, bias.AsX())
		VPBROADCASTQ(bias.AsX(), bias)
	}
	load := func(m Mem) VecVirtual {
		v := YMM()
		if bias != nil {
			VPXOR(m, bias, v)
		} else {
			VMOVDQU(m, v)
		}
		return v
	}
	// fold sets lo and hi to the lane-wise extremes of themselves and v.
	fold := func(v, lo, hi Register) {
		if k.vmin != nil {
			k.vmin(v, lo, lo)
			k.vmax(v, hi, hi)
			return
		}
		gt := YMM()
		if lo.Size() == 16 {
			gt = XMM()
		}
		VPCMPGTQ(v, lo, gt) // lo > v
		VPBLENDVB(gt, v, lo, lo)
		VPCMPGTQ(hi, v, gt) // v > hi
		VPBLENDVB(gt, v, hi, hi)
	}
	lo0, lo1 := load(Mem{Base: p}), load(Mem{Base: p, Disp: 32})
	hi0, hi1 := YMM(), YMM()
	VMOVDQA(lo0, hi0)
	VMOVDQA(lo1, hi1)
	i := GP64()
	MOVQ(U32(2*k.lanes()), i)
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_fold"))
	fold(load(Mem{Base: p, Index: i, Scale: k.scale()}), lo0, hi0)
	fold(load(Mem{Base: p, Index: i, Scale: k.scale(), Disp: 32}), lo1, hi1)
	ADDQ(U32(2*k.lanes()), i)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_fold")
	fold(lo1, lo0, hi0)
	fold(hi1, lo0, hi0)
	// Across the lanes: the high half onto the low, then within 128 bits.
	lx, hx := XMM(), XMM()
	VEXTRACTI128(U8(1), lo0, lx)
	VEXTRACTI128(U8(1), hi0, hx)
	fold(lx, lo0.AsX(), hi0.AsX())
	fold(hx, lo0.AsX(), hi0.AsX())
	shuf := func(imm uint8) {
		a, b := XMM(), XMM()
		VPSHUFD(U8(imm), lo0.AsX(), a)
		VPSHUFD(U8(imm), hi0.AsX(), b)
		fold(a, lo0.AsX(), hi0.AsX())
		fold(b, lo0.AsX(), hi0.AsX())
	}
	shuf(0x4e) // swap the 64-bit halves
	if k.bits == 32 {
		shuf(0xb1) // swap the 32-bit neighbours
	}
	if bias != nil {
		VPXOR(bias.AsX(), lo0.AsX(), lo0.AsX())
		VPXOR(bias.AsX(), hi0.AsX(), hi0.AsX())
	}
	if k.bits == 32 {
		r := GP32()
		VMOVD(lo0.AsX(), r)
		Store(r, ReturnIndex(0))
		VMOVD(hi0.AsX(), r)
		Store(r, ReturnIndex(1))
	} else {
		r := GP64()
		VMOVQ(lo0.AsX(), r)
		Store(r, ReturnIndex(0))
		VMOVQ(hi0.AsX(), r)
		Store(r, ReturnIndex(1))
	}
	Label(name + "_done")
	Store(n, ReturnIndex(2))
	VZEROUPPER()
	RET()
}

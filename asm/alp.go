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

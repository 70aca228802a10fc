package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The min/max kernels that choose the frame of reference and the width of
// the bit-packing.

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

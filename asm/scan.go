package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The scans the decoder runs over whole buffers before trusting them: is a
// string buffer plain ASCII, and the largest dictionary index of a column.
// Both only read, at memory speed.

// ascii generates asciiVec: the OR of unroll vectors per iteration, whose
// sign bits VPMOVMSKB gathers; the loop leaves at the first iteration that
// saw a high bit.
func ascii() {
	const name = "asciiVec"
	kernel(name, "func(b []byte) (n int, ok bool)",
		name+" checks that every byte of b[:n] is below 0x80, where n is",
		"len(b) rounded down to a multiple of 32 (whole vectors), and returns",
		"(n, true) if so and (_, false) if it found a byte >= 0x80. It reads",
		"nothing at or past b[n].",
	)

	p, n := wholeVectors("b", 32)

	i := GP64()
	XORQ(i, i)
	at := func(v int) Mem { return Mem{Base: p, Index: i, Scale: 1, Disp: 32 * v} }
	mask := GP32()

	vectorLoops(name, i, n, 32, func() {
		a, b := YMM(), YMM()
		VMOVDQU(at(0), a)
		VMOVDQU(at(2), b)
		VPOR(at(1), a, a)
		VPOR(at(3), b, b)
		VPOR(b, a, a)
		VPMOVMSKB(a, mask)
		TESTL(mask, mask)
		JNZ(LabelRef(name + "_fail"))
	}, func() {
		w := YMM()
		VMOVDQU(at(0), w)
		VPMOVMSKB(w, mask)
		TESTL(mask, mask)
		JNZ(LabelRef(name + "_fail"))
	})

	returnNOK(name, n)
}

// maxKind describes one lane width of the max kernels.
type maxKind struct {
	elemKind
	// vmax sets its third operand to the lane-wise unsigned maximum of the
	// other two (VPMAXUB/UW/UD); nil for 64 bits, which AVX2 lacks.
	vmax func(ops ...Op)
}

// The max kernels' four lane widths.
var (
	max8  = maxKind{elemKind{8, "uint8"}, VPMAXUB}
	max16 = maxKind{elemKind{16, "uint16"}, VPMAXUW}
	max32 = maxKind{elemKind{32, "uint32"}, VPMAXUD}
	max64 = maxKind{elemKind{64, "uint64"}, nil}
)

// maxUint generates max{8,16,32,64}Vec: unroll independent accumulators,
// each taking the maximum with one vector per iteration, folded together
// and then across lanes at the end.
//
// AVX2 has no unsigned 64-bit maximum (VPMAXUQ is AVX-512), so the 64-bit
// kernel keeps its accumulators with the sign bit flipped, where unsigned
// order is signed order: VPCMPGTQ finds the lanes where the new value is
// larger and VPBLENDVB takes them.
func maxUint(k maxKind) {
	name := "max" + itoa(k.bits) + "Vec"
	kernel(name, "func(x []"+k.goTyp+") (m "+k.goTyp+", n int)",
		name+" returns the largest of x[:n] (0 if n = 0), and n: len(x)",
		"rounded down to a multiple of "+itoa(k.lanes())+" (one 32-byte vector). It reads nothing",
		"at or past x[n].",
	)

	p, n := wholeVectors("x", k.lanes())

	// fold sets acc to the lane-wise maximum of acc and v (a register or
	// memory); for 64 bits, v is unbiased if memory and biased if not.
	var bias VecVirtual
	fold := func(v Op, acc Register) {
		if k.vmax != nil {
			k.vmax(v, acc, acc)
			return
		}
		w, ok := v.(Register)
		if !ok {
			if acc.Size() == 16 {
				panic("fold: xmm from memory")
			}
			w = YMM()
			VPXOR(v, bias, w)
		}
		var gt Register = YMM()
		if acc.Size() == 16 {
			gt = XMM()
		}
		VPCMPGTQ(acc, w, gt) // gt = w > acc, signed
		VPBLENDVB(gt, w, acc, acc)
	}

	var acc []VecVirtual
	acc, bias = maxAccumulators(k, unroll)

	i := GP64()
	XORQ(i, i)
	at := func(v int) Mem { return Mem{Base: p, Index: i, Scale: k.scale(), Disp: 32 * v} }

	vectorLoops(name, i, n, k.lanes(), func() {
		for j := range acc {
			fold(at(j), acc[j])
		}
	}, func() {
		fold(at(0), acc[0])
	})

	// Fold the accumulators, then the two halves, then the lanes of one
	// half by byte shifts of 8, 4, 2 and 1 bytes down to the lane width.
	Label(name + "_done")
	fold(acc[1], acc[0])
	fold(acc[3], acc[2])
	fold(acc[2], acc[0])
	x, hi := acc[0].AsX(), XMM()
	VEXTRACTI128(U8(1), acc[0], hi)
	fold(hi, x)
	for s := 8; s >= k.size(); s /= 2 {
		if k.vmax == nil {
			VPSHUFD(U8(0x4e), x, hi) // swap the two quadwords
		} else {
			VPSRLDQ(U8(s), x, hi)
		}
		fold(hi, x)
	}
	if k.vmax == nil {
		VPXOR(bias.AsX(), x, x) // unbias
		m := GP64()
		VMOVQ(x, m)
		Store(m, Return("m"))
	} else {
		m := GP32()
		VMOVD(x, m)
		switch k.bits {
		case 8:
			Store(m.As8(), Return("m"))
		case 16:
			Store(m.As16(), Return("m"))
		default:
			Store(m, Return("m"))
		}
	}
	Store(n, Return("n"))
	VZEROUPPER()
	RET()
}

// maxAccumulators returns unroll accumulators of a maximum, all at the
// lowest value, and for 64 bits (no vector max) the bias that flips sign
// bits so that a signed compare orders unsigned values (nil otherwise).
func maxAccumulators(k maxKind, unroll int) (acc []VecVirtual, bias VecVirtual) {
	acc = make([]VecVirtual, unroll)
	if k.vmax == nil {
		bias = YMM()
		b := GP64()
		MOVQ(U64(1<<63), b)
		VMOVQ(b, bias.AsX())
		VPBROADCASTQ(bias.AsX(), bias)
		for j := range acc {
			acc[j] = YMM()
			VMOVDQA(bias, acc[j]) // 0, biased
		}
		return acc, bias
	}
	for j := range acc {
		acc[j] = YMM()
		VPXOR(acc[j], acc[j], acc[j])
	}
	return acc, nil
}

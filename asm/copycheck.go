package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The fused copy-and-check kernels, which the encoder runs on every chunk
// it copies into a block: each loads a vector of src once, stores it (or
// src - base) to dst and folds it into its check, so a chunk is read once
// instead of twice. The loop is a memmove's, one load and one store per
// vector; the checks are a few vector operations beside them.
//
// Unlike the other kernels these do the whole input, tail included, so that
// short chunks (the encoder's 64-row batches) pay no Go tail: after the
// whole vectors, the last vector of src, src[len-lanes:], is done once
// more, overlapping what came before. Copying it again writes the same
// bytes, and an OR or a maximum does not mind seeing a value twice; the
// popcount masks off the bytes it already counted. So each needs at least
// one vector of input (the rebase one more element), which the Go glue
// ensures, and reads and writes nothing outside src and dst[:len(src)].

// copyCheck generates every copy-and-check kernel.
func copyCheck() {
	copyASCII()
	copyMax(max8)
	copyMax(max16)
	copyMax(max32)
	copyMax(max64)
	rebaseNondecreasing(kind32)
	rebaseNondecreasing(kind64)
	copyCountOnes()
}

// copyWalk emits the loops of a copy-and-check kernel over the length
// elements at src, lanes to a 32-byte vector, length >= lanes: unroll
// vectors per iteration, then one at a time, then the last vector again
// at length-lanes if length is not a whole number of vectors. Each vector
// is loaded and stored to dst; then group gets the unroll vectors of an
// iteration, one the vector of the one-at-a-time loop, and last the
// overlapping last vector with the number of its elements not seen
// before in tail.
func copyWalk(name string, e elemKind, dst, src, length Register, group func(v []VecVirtual), one func(v VecVirtual), last func(v VecVirtual, tail Register)) {
	n := GP64()
	MOVQ(length, n)
	ANDQ(I32(-e.lanes()), n)
	i := GP64()
	XORQ(i, i)
	at := func(base Register, v int) Mem {
		return Mem{Base: base, Index: i, Scale: e.scale(), Disp: 32 * v}
	}
	vectorLoops(name, i, n, e.lanes(), func() {
		v := make([]VecVirtual, unroll)
		for j := range v {
			v[j] = YMM()
			VMOVDQU(at(src, j), v[j])
		}
		for j := range v {
			VMOVDQU(v[j], at(dst, j))
		}
		group(v)
	}, func() {
		v := YMM()
		VMOVDQU(at(src, 0), v)
		VMOVDQU(v, at(dst, 0))
		one(v)
	})

	// The last, partial vector: tail = length - n elements are new.
	Label(name + "_done")
	tail := GP64()
	MOVQ(length, tail)
	SUBQ(n, tail)
	JZ(LabelRef(name + "_end"))
	MOVQ(length, i)
	SUBQ(U32(e.lanes()), i)
	v := YMM()
	VMOVDQU(at(src, 0), v)
	VMOVDQU(v, at(dst, 0))
	last(v, tail)
	Label(name + "_end")
}

// copyASCII generates copyASCIIVec: the OR of every vector, unroll
// accumulators, whose sign bits are tested at the end. It cannot leave
// early, as asciiVec does, since it must copy everything anyway.
func copyASCII() {
	const name = "copyASCIIVec"
	kernel(name, "func(dst, src []byte) bool",
		name+" copies src into dst[:len(src)] and reports whether every",
		"byte of src is below 0x80. The caller guarantees len(src) >= 32 and",
		"len(dst) >= len(src), and that dst and src do not overlap. It reads",
		"and writes nothing outside src and dst[:len(src)].",
	)
	dst := Load(Param("dst").Base(), GP64())
	src := Load(Param("src").Base(), GP64())
	length := Load(Param("src").Len(), GP64())

	acc := make([]VecVirtual, unroll)
	for j := range acc {
		acc[j] = YMM()
		VPXOR(acc[j], acc[j], acc[j])
	}
	copyWalk(name, elemKind{8, "byte"}, dst, src, length, func(v []VecVirtual) {
		for j := range v {
			VPOR(v[j], acc[j], acc[j])
		}
	}, func(v VecVirtual) {
		VPOR(v, acc[0], acc[0])
	}, func(v VecVirtual, _ Register) {
		VPOR(v, acc[0], acc[0])
	})

	VPOR(acc[1], acc[0], acc[0])
	VPOR(acc[3], acc[2], acc[2])
	VPOR(acc[2], acc[0], acc[0])
	mask := GP32()
	VPMOVMSKB(acc[0], mask)
	TESTL(mask, mask)
	SETEQ(addr(ReturnIndex(0)))
	VZEROUPPER()
	RET()
}

// copyMax generates copyMax{8,16,32,64}Vec: unroll running maxima, one per
// vector of an iteration, folded together and across lanes at the end as
// maxUint does (and, for 64 bits, kept with the sign bit flipped, so that
// VPCMPGTQ compares them unsigned).
func copyMax(k maxKind) {
	name := "copyMax" + itoa(k.bits) + "Vec"
	kernel(name, "func(dst, src []"+k.goTyp+") "+k.goTyp,
		name+" copies src into dst[:len(src)] and returns the largest",
		"value of src. The caller guarantees len(src) >= "+itoa(k.lanes())+" (one 32-byte",
		"vector) and len(dst) >= len(src), and that dst and src do not overlap.",
		"It reads and writes nothing outside src and dst[:len(src)].",
	)
	dst := Load(Param("dst").Base(), GP64())
	src := Load(Param("src").Base(), GP64())
	length := Load(Param("src").Len(), GP64())

	var bias VecVirtual
	// fold sets acc to the lane-wise maximum of acc and v; biased says v
	// already has its sign bits flipped (64 bits only).
	fold := func(v, acc Register, biased bool) {
		if k.vmax != nil {
			k.vmax(v, acc, acc)
			return
		}
		w := v
		var gt Register
		if acc.Size() == 16 {
			gt = XMM()
		} else {
			gt = YMM()
		}
		if !biased {
			w = YMM()
			VPXOR(v, bias, w)
		}
		VPCMPGTQ(acc, w, gt) // gt = w > acc, signed
		VPBLENDVB(gt, w, acc, acc)
	}

	var acc []VecVirtual
	acc, bias = maxAccumulators(k, unroll)
	copyWalk(name, k.elemKind, dst, src, length, func(v []VecVirtual) {
		for j := range v {
			fold(v[j], acc[j], false)
		}
	}, func(v VecVirtual) {
		fold(v, acc[0], false)
	}, func(v VecVirtual, _ Register) {
		fold(v, acc[0], false)
	})

	fold(acc[1], acc[0], true)
	fold(acc[3], acc[2], true)
	fold(acc[2], acc[0], true)
	x, hi := acc[0].AsX(), XMM()
	VEXTRACTI128(U8(1), acc[0], hi)
	fold(hi, x, true)
	for s := 8; s >= k.size(); s /= 2 {
		if k.vmax == nil {
			VPSHUFD(U8(0x4e), x, hi) // swap the two quadwords
		} else {
			VPSRLDQ(U8(s), x, hi)
		}
		fold(hi, x, true)
	}
	if k.vmax == nil {
		VPXOR(bias.AsX(), x, x) // unbias
		m := GP64()
		VMOVQ(x, m)
		Store(m, ReturnIndex(0))
	} else {
		m := GP32()
		VMOVD(x, m)
		switch k.bits {
		case 8:
			Store(m.As8(), ReturnIndex(0))
		case 16:
			Store(m.As16(), ReturnIndex(0))
		default:
			Store(m, ReturnIndex(0))
		}
	}
	VZEROUPPER()
	RET()
}

// rebaseNondecreasing generates rebaseNondecreasing{32,64}Vec: each vector
// v = src[i:i+lanes] is stored as v - base and compared with its
// neighbours w = src[i+1:i+lanes+1], a second, overlapping load (VPCMPGTD/Q:
// v > w, signed); the masks are ORed into unroll accumulators, tested once
// at the end. The vectors cover src[:m], m = len(src)-1 rounded down to
// whole vectors, so that w stays inside src; the last vector is then
// v = src[len-1-lanes:len-1], w = src[len-lanes:], and it is w that is
// stored, completing dst.
func rebaseNondecreasing(e elemKind) {
	name := "rebaseNondecreasing" + itoa(e.bits) + "Vec"
	kernel(name, "func(dst, src []"+e.goTyp+", base "+e.goTyp+") bool",
		name+" sets dst[i] = src[i] - base (wrapping) for i < len(src) and",
		"reports whether src[i] <= src[i+1] (signed) for every i < len(src)-1.",
		"The caller guarantees len(src) > "+itoa(e.lanes())+" (one 32-byte vector) and",
		"len(dst) >= len(src), and that dst and src do not overlap. It reads and",
		"writes nothing outside src and dst[:len(src)].",
	)
	dst := Load(Param("dst").Base(), GP64())
	src := Load(Param("src").Base(), GP64())
	length := Load(Param("src").Len(), GP64())

	vbase, xbase := YMM(), XMM()
	sub, cmpgt := VPSUBD, VPCMPGTD
	if e.bits == 32 {
		VMOVD(Load(Param("base"), GP32()), xbase)
		VPBROADCASTD(xbase, vbase)
	} else {
		VMOVQ(Load(Param("base"), GP64()), xbase)
		VPBROADCASTQ(xbase, vbase)
		sub, cmpgt = VPSUBQ, VPCMPGTQ
	}
	acc := make([]VecVirtual, unroll)
	for j := range acc {
		acc[j] = YMM()
		VPXOR(acc[j], acc[j], acc[j])
	}

	pairs := GP64()
	MOVQ(length, pairs)
	DECQ(pairs)
	n := GP64()
	MOVQ(pairs, n)
	ANDQ(I32(-e.lanes()), n)
	i := GP64()
	XORQ(i, i)
	at := func(base Register, v, extra int) Mem {
		return Mem{Base: base, Index: i, Scale: e.scale(), Disp: 32*v + extra}
	}
	// steps does vectors 0..k-1 of the iteration, vector j into
	// accumulator j: every load first, then the stores, so that no load
	// follows a store to an address that may look the same to the
	// memory disambiguation (dst and src often agree modulo 4 KiB, and
	// the loads of neighbours are one element off).
	steps := func(k int) {
		x, gt := make([]VecVirtual, k), make([]VecVirtual, k)
		for j := range k {
			x[j], gt[j] = YMM(), YMM()
			VMOVDQU(at(src, j, 0), x[j])
			cmpgt(at(src, j, e.size()), x[j], gt[j]) // gt = x > next
		}
		for j := range k {
			sub(vbase, x[j], x[j])
			VMOVDQU(x[j], at(dst, j, 0))
			VPOR(gt[j], acc[j], acc[j])
		}
	}
	vectorLoops(name, i, n, e.lanes(), func() { steps(unroll) }, func() { steps(1) })

	// Always, as it writes the last element of dst.
	Label(name + "_done")
	MOVQ(pairs, i)
	SUBQ(U32(e.lanes()), i)
	x, w := YMM(), YMM()
	VMOVDQU(at(src, 0, 0), x)
	VMOVDQU(at(src, 0, e.size()), w)
	cmpgt(w, x, x)
	VPOR(x, acc[0], acc[0])
	sub(vbase, w, w)
	VMOVDQU(w, at(dst, 0, e.size()))

	VPOR(acc[1], acc[0], acc[0])
	VPOR(acc[3], acc[2], acc[2])
	VPOR(acc[2], acc[0], acc[0])
	VPTEST(acc[0], acc[0])
	SETEQ(addr(ReturnIndex(0)))
	VZEROUPPER()
	RET()
}

// copyCountOnes generates copyCountOnesVec. Counting each vector with
// Muła's method, as popcount does (the bit counts of the low and high
// nibble of every byte from a 16-entry table, VPSHUFB, added per byte,
// then VPSADBW against zero sums bytes into 64-bit lanes), takes about
// seven vector operations a vector, twice the time of the copy. So the
// main loop adds its four vectors with carry-save adders (Harley-Seal)
// into running ones and twos, and counts only the fours that carry out:
// about four and a half operations a vector. The other vectors are
// counted directly. The overlapping last
// vector is ANDed first with a mask that clears the bytes counted before:
// 32 bytes read from copycheck_consts+64+tail, where 32 zeros are followed
// by 32 ones.
func copyCountOnes() {
	const name = "copyCountOnesVec"
	tab := GLOBL("copycheck_consts", RODATA|NOPTR)
	for h := 0; h < 2; h++ {
		DATA(16*h, U64(0x0302020102010100))
		DATA(16*h+8, U64(0x0403030203020201))
	}
	for q := 0; q < 4; q++ {
		DATA(32+8*q, U64(0x0f0f0f0f0f0f0f0f))
	}
	for q := 0; q < 8; q++ {
		v := uint64(0)
		if q >= 4 {
			v = ^v
		}
		DATA(64+8*q, U64(v))
	}

	kernel(name, "func(dst, src []byte) int",
		name+" copies src into dst[:len(src)] and returns the number of",
		"bits set in src. The caller guarantees len(src) >= 32 and len(dst) >=",
		"len(src), and that dst and src do not overlap. It reads and writes",
		"nothing outside src and dst[:len(src)].",
	)
	dst := Load(Param("dst").Base(), GP64())
	src := Load(Param("src").Base(), GP64())
	length := Load(Param("src").Len(), GP64())

	lut, mask, zero, acc := YMM(), YMM(), YMM(), YMM()
	VMOVDQU(tab, lut)
	VMOVDQU(tab.Offset(32), mask)
	VPXOR(zero, zero, zero)
	VPXOR(acc, acc, acc)
	// The Harley-Seal state: ones and twos hold, bit by bit, the low
	// two bits of the count of the group vectors seen; acc4 the counts
	// of the carries out of them, each worth 4.
	ones, twos, acc4 := YMM(), YMM(), YMM()
	VPXOR(ones, ones, ones)
	VPXOR(twos, twos, twos)
	VPXOR(acc4, acc4, acc4)

	// count returns the bit count of each byte of v, in a new register.
	count := func(v VecVirtual) VecVirtual {
		lo, hi := YMM(), YMM()
		VPSRLW(U8(4), v, hi)
		VPAND(mask, v, lo)
		VPAND(mask, hi, hi)
		VPSHUFB(lo, lut, lo)
		VPSHUFB(hi, lut, hi)
		VPADDB(hi, lo, lo)
		return lo
	}
	// add adds the byte counts c into the 64-bit lanes of to.
	add := func(c, to VecVirtual) {
		VPSADBW(zero, c, c)
		VPADDQ(c, to, to)
	}
	// csa is a carry-save adder of the bits of s, b and c: it leaves
	// the sum bits in s and returns the carries.
	csa := func(s, b, c VecVirtual) VecVirtual {
		u, h := YMM(), YMM()
		VPXOR(b, s, u)
		VPAND(b, s, h)
		VPXOR(c, u, s)
		VPAND(c, u, u)
		VPOR(u, h, h)
		return h
	}
	tabp := GP64()
	LEAQ(tab, tabp)
	copyWalk(name, elemKind{8, "byte"}, dst, src, length, func(v []VecVirtual) {
		// Harley-Seal over the four vectors of an iteration: three
		// carry-save adders and one byte count (of the fours) instead
		// of four.
		a := csa(ones, v[0], v[1])
		b := csa(ones, v[2], v[3])
		add(count(csa(twos, a, b)), acc4)
	}, func(v VecVirtual) {
		add(count(v), acc)
	}, func(v VecVirtual, tail Register) {
		m := YMM()
		VMOVDQU(Mem{Base: tabp, Index: tail, Scale: 1, Disp: 64}, m)
		VPAND(m, v, v)
		add(count(v), acc)
	})
	// acc += 4*acc4 + 2*count(twos) + count(ones).
	VPSLLQ(U8(2), acc4, acc4)
	VPADDQ(acc4, acc, acc)
	t := count(twos)
	VPSADBW(zero, t, t)
	VPSLLQ(U8(1), t, t)
	VPADDQ(t, acc, acc)
	add(count(ones), acc)
	s, hi := acc.AsX(), XMM()
	VEXTRACTI128(U8(1), acc, hi)
	VPADDQ(hi, s, s)
	VPSHUFD(U8(0x4e), s, hi) // swap the two quadwords
	VPADDQ(hi, s, s)
	r := GP64()
	VMOVQ(s, r)
	Store(r, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

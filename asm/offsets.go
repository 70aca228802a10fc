package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// unroll is the number of 32-byte vectors the main loops handle per
// iteration. After the main loop a one-vector loop does the remaining whole
// vectors, so the block size a routine returns a multiple of is one vector.
const unroll = 4

// The offset and transform kernels' two lane widths.
var (
	kind32 = elemKind{bits: 32, goTyp: "int32"}
	kind64 = elemKind{bits: 64, goTyp: "int64"}
)

// rebase generates rebase{32,64}Vec: dst[i] = src[i] - base, one vector of
// lanes at a time, unroll vectors per iteration.
func rebase(e elemKind) {
	name := "rebase" + itoa(e.bits) + "Vec"
	kernel(name, "func(dst, src []"+e.goTyp+", base "+e.goTyp+") int",
		name+" sets dst[i] = src[i] - base for i < n and returns n,",
		"a multiple of its block size of "+itoa(e.lanes())+" (one 32-byte vector) with",
		"n <= len(src). The caller guarantees len(dst) >= len(src); dst may be",
		"src itself. It reads and writes nothing at or past index n.",
	)

	dst := Load(Param("dst").Base(), GP64())
	src, n := wholeVectors("src", e.lanes())

	// Broadcast base into every lane. (Through a general register: go vet
	// rejects a VPBROADCASTD straight from an int32 argument.)
	vbase, xbase := YMM(), XMM()
	if e.bits == 32 {
		VMOVD(Load(Param("base"), GP32()), xbase)
		VPBROADCASTD(xbase, vbase)
	} else {
		VMOVQ(Load(Param("base"), GP64()), xbase)
		VPBROADCASTQ(xbase, vbase)
	}
	sub := VPSUBD
	if e.bits == 64 {
		sub = VPSUBQ
	}

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
			sub(vbase, v[j], v[j])
		}
		for j := range v {
			VMOVDQU(v[j], at(dst, j))
		}
	}, func() {
		w := YMM()
		VMOVDQU(at(src, 0), w)
		sub(vbase, w, w)
		VMOVDQU(w, at(dst, 0))
	})

	Label(name + "_done")
	Store(n, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// nondecreasing generates nondecreasing{32,64}Vec. A vector of x[i:i+lanes]
// is compared with the overlapping vector x[i+1:i+lanes+1] (VPCMPGTD/Q:
// signed x[i] > x[i+1]); the masks of an iteration are ORed together and
// tested once, so the loop leaves at the first iteration with a decrease.
func nondecreasing(e elemKind) {
	name := "nondecreasing" + itoa(e.bits) + "Vec"
	kernel(name, "func(x []"+e.goTyp+") (n int, ok bool)",
		name+" checks x[i] <= x[i+1] (signed) for i < n and",
		"returns (n, true) if all hold, where n is a multiple of "+itoa(e.lanes()),
		"(one 32-byte vector) and n+1 <= len(x) for a non-empty x: x[:n+1] is",
		"known nondecreasing and the caller checks x[n:] itself. It returns",
		"(_, false) if it found any x[i] > x[i+1]. It reads nothing past",
		"x[len(x)-1].",
	)

	x := Load(Param("x").Base(), GP64())
	n := Load(Param("x").Len(), GP64())
	// n = (len(x)-1) rounded down to whole vectors: the comparisons for
	// i < n read x[:n+1]. An empty x gives n = 0.
	decToZero(n)
	ANDQ(I32(-e.lanes()), n)

	cmpgt := VPCMPGTD
	if e.bits == 64 {
		cmpgt = VPCMPGTQ
	}
	i := GP64()
	XORQ(i, i)
	at := func(v, extra int) Mem {
		return Mem{Base: x, Index: i, Scale: e.scale(), Disp: 32*v + extra}
	}

	vectorLoops(name, i, n, e.lanes(), func() {
		v := make([]VecVirtual, unroll)
		for j := range v {
			v[j] = YMM()
			VMOVDQU(at(j, 0), v[j])
		}
		for j := range v {
			// v[j] = x[i+..] > x[i+1+..], lane by lane, all ones where so.
			cmpgt(at(j, e.size()), v[j], v[j])
		}
		for s := 1; s < unroll; s *= 2 {
			for j := 0; j+s < unroll; j += 2 * s {
				VPOR(v[j+s], v[j], v[j])
			}
		}
		VPTEST(v[0], v[0])
		JNZ(LabelRef(name + "_fail"))
	}, func() {
		w := YMM()
		VMOVDQU(at(0, 0), w)
		cmpgt(at(0, e.size()), w, w)
		VPTEST(w, w)
		JNZ(LabelRef(name + "_fail"))
	})

	returnNOK(name, n)
}

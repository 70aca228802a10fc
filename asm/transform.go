package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The transform kernels: byte transposition of fixed-width values into
// planes and back, and offsets turned into lengths and back.
//
// The transpositions work on blocks of 16 or 32 values. Every step but the
// loads and stores stays within the two 128-bit lanes of a YMM register
// (VPSHUFB and the VPUNPCK family), so the loads put the first half of a
// block's values in the low lanes and the second half in the high lanes
// (VINSERTI128 from memory), or the stores take them apart (VPERM2I128,
// VPERMQ, VEXTRACTI128). Within a lane the work is a classic SSE byte
// transpose: unpacking pairs of registers at one width after another.

// planeSet addresses the planes of a transposed buffer, plane p starting
// p*n bytes after plane 0, with as few registers as x86 addressing allows:
// base registers for planes 0 and 8 and index registers holding n, 3n, 5n
// and 7n (scaled by 1, 2, 4 or 8). Only the bases move along the planes.
type planeSet struct {
	base          [2]GPVirtual // planes 0 and 8
	n, n3, n5, n7 GPVirtual
}

func newPlaneSet(p0, n Register, planes int) *planeSet {
	s := &planeSet{}
	s.base[0] = GP64()
	MOVQ(p0, s.base[0])
	s.n = GP64()
	MOVQ(n, s.n)
	mul := func(k int) GPVirtual {
		r := GP64()
		IMUL3Q(U8(k), n, r)
		return r
	}
	if planes > 2 {
		s.n3 = mul(3)
	}
	if planes > 4 {
		s.n5, s.n7 = mul(5), mul(7)
	}
	if planes > 8 {
		s.base[1] = GP64()
		LEAQ(Mem{Base: s.base[0], Index: s.n, Scale: 8}, s.base[1])
	}
	return s
}

// at is the address disp bytes into plane p.
func (s *planeSet) at(p, disp int) Mem {
	m := Mem{Base: s.base[p/8], Disp: disp}
	switch q := p % 8; q {
	case 0:
	case 1, 2, 4:
		m.Index, m.Scale = s.n, uint8(q)
	case 3, 6:
		m.Index, m.Scale = s.n3, uint8(q/3)
	case 5:
		m.Index, m.Scale = s.n5, 1
	case 7:
		m.Index, m.Scale = s.n7, 1
	}
	return m
}

// advance moves every plane on by k bytes.
func (s *planeSet) advance(k int) {
	for _, b := range s.base {
		if b != nil {
			ADDQ(U32(k), b)
		}
	}
}

// laneMask returns a 32-byte read-only global holding the 16-byte VPSHUFB
// pattern twice, once for each lane.
func laneMask(name string, pattern [16]byte) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for h := 0; h < 2; h++ {
		for i, b := range pattern {
			DATA(16*h+i, U8(b))
		}
	}
	return m
}

// Block sizes, in values, of the transposition routines.
var transposeBlock = map[int]int{2: 32, 4: 32, 8: 32, 16: 16}

func log2(x int) int {
	k := 0
	for 1<<k < x {
		k++
	}
	return k
}

// transposeFrame emits what every transposition routine shares: it loads
// the arguments, computes n = len(src)/width and the number of values it
// does, m, stores m as the result and runs body once per block over
// src/dst pointers and the planes (of dst for a transpose, of src for an
// untranspose); body's values are at the given pointer, its planes at the
// planeSet's current position.
func transposeFrame(name string, width int, untranspose bool, body func(vals Register, planes *planeSet)) {
	block := transposeBlock[width]
	w := itoa(width)
	formula, reads := "dst[j*n+i] = src[i*"+w+"+j]", "src[:m*"+w+"] and writes dst[j*n:j*n+m]"
	if untranspose {
		formula, reads = "dst[i*"+w+"+j] = src[j*n+i]", "src[j*n:j*n+m] and writes dst[:m*"+w+"]"
	}
	kernel(name, "func(dst, src []byte) int",
		name+" sets "+formula+" for j < "+w+" and i < m, where",
		"n = len(src)/"+w+", and returns m: n rounded down to a multiple of "+itoa(block)+".",
		"The caller guarantees len(dst) >= len(src) and that dst and src do",
		"not overlap. It reads "+reads+" only.",
	)

	dst := Load(Param("dst").Base(), GP64())
	src := Load(Param("src").Base(), GP64())
	n := Load(Param("src").Len(), GP64())
	SHRQ(U8(log2(width)), n)
	count := GP64()
	MOVQ(n, count)
	ANDQ(I32(-block), count)
	Store(count, ReturnIndex(0))
	SHRQ(U8(log2(block)), count)
	JZ(LabelRef(name + "_done"))

	vals, planes := src, dst
	if untranspose {
		vals, planes = dst, src
	}
	ps := newPlaneSet(planes, n, width)

	Label(name + "_loop")
	vregs = [16]bool{}
	body(vals, ps)
	for i, used := range vregs {
		if used {
			panic(name + " leaves " + ys[i].Asm() + " in use")
		}
	}
	ADDQ(U32(block*width), vals)
	ps.advance(block)
	DECQ(count)
	JNZ(LabelRef(name + "_loop"))

	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// The transposition routines allocate their vector registers themselves,
// from Y0-Y15 in program order, rather than leaving it to avo: avo's
// allocator colours with all 32 vector registers and, even where 16 would
// do, reaches for Y16 and up, which only AVX-512 encodes. Each routine's
// register networks keep at most 11 registers live.
var ys = [16]VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}

// vregs is the set of vector registers in use by the routine being
// generated.
var vregs [16]bool

// vget returns the lowest free vector register and marks it in use.
func vget() VecPhysical {
	for i, used := range vregs {
		if !used {
			vregs[i] = true
			return ys[i]
		}
	}
	panic("out of vector registers")
}

// storePair stores a and b as planes j and j+1 of the block and frees them.
func (ps *planeSet) storePair(j int, a, b VecPhysical) {
	VMOVDQU(a, ps.at(j, 0))
	VMOVDQU(b, ps.at(j+1, 0))
	vput(a, b)
}

// vput frees vector registers.
func vput(vs ...VecPhysical) {
	for _, v := range vs {
		for i, y := range ys {
			if y == v {
				if !vregs[i] {
					panic("vector register " + y.Asm() + " freed twice")
				}
				vregs[i] = false
			}
		}
	}
}

// loadSplit loads the 16 bytes at lo into the low lane of a new register
// and the 16 bytes at hi into its high lane.
func loadSplit(lo, hi Mem) VecPhysical {
	y := vget()
	VMOVDQU(lo, y.AsX())
	VINSERTI128(U8(1), hi, y, y)
	return y
}

// unpack returns the low and high unpacks of a and b at one width: in each
// lane, the low one interleaves the low halves of a and b (a's element
// first), the high one the high halves. a and b are consumed: the high
// unpack goes into a's register and b's is freed.
func unpack(lo, hi func(ops ...Op), a, b VecPhysical) (VecPhysical, VecPhysical) {
	l := vget()
	lo(b, a, l)
	hi(b, a, a)
	vput(b)
	return l, a
}

func vpunpckbw(ops ...Op)  { VPUNPCKLBW(ops[0], ops[1], ops[2]) }
func vpunpckhbw(ops ...Op) { VPUNPCKHBW(ops[0], ops[1], ops[2]) }
func vpunpcklwd(ops ...Op) { VPUNPCKLWD(ops[0], ops[1], ops[2]) }
func vpunpckhwd(ops ...Op) { VPUNPCKHWD(ops[0], ops[1], ops[2]) }
func vpunpckldq(ops ...Op) { VPUNPCKLDQ(ops[0], ops[1], ops[2]) }
func vpunpckhdq(ops ...Op) { VPUNPCKHDQ(ops[0], ops[1], ops[2]) }
func vpunpcklqdq(ops ...Op) {
	VPUNPCKLQDQ(ops[0], ops[1], ops[2])
}
func vpunpckhqdq(ops ...Op) {
	VPUNPCKHQDQ(ops[0], ops[1], ops[2])
}

// transpose2 works on 32 values (64 bytes) a block. The low lanes get
// values 0-7 and 8-15, the high lanes 16-23 and 24-31. VPSHUFB gathers
// each lane's even bytes into its low quadword and its odd bytes into its
// high quadword; unpacking quadwords then joins the planes.
func transpose2() {
	mask := laneMask("transpose2_mask", [16]byte{0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15})
	transposeFrame("transpose2Vec", 2, false, func(src Register, ps *planeSet) {
		a := loadSplit(Mem{Base: src}, Mem{Base: src, Disp: 32})
		b := loadSplit(Mem{Base: src, Disp: 16}, Mem{Base: src, Disp: 48})
		VPSHUFB(mask, a, a)
		VPSHUFB(mask, b, b)
		p0, p1 := unpack(vpunpcklqdq, vpunpckhqdq, a, b)
		ps.storePair(0, p0, p1)
	})
}

// transpose4 works on 32 values (128 bytes) a block; register k gets
// values 4k-4k+3 in its low lane and 16+4k-16+4k+3 in its high lane.
// VPSHUFB transposes each lane's 4x4 bytes, so that doubleword j is plane j
// of the lane's four values; unpacking doublewords and then quadwords of
// the four registers joins each plane's pieces.
func transpose4() {
	mask := laneMask("transpose4_mask", [16]byte{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15})
	transposeFrame("transpose4Vec", 4, false, func(src Register, ps *planeSet) {
		var x [4]VecPhysical
		for k := range x {
			x[k] = loadSplit(Mem{Base: src, Disp: 16 * k}, Mem{Base: src, Disp: 64 + 16*k})
			VPSHUFB(mask, x[k], x[k])
		}
		abLo, abHi := unpack(vpunpckldq, vpunpckhdq, x[0], x[1])
		cdLo, cdHi := unpack(vpunpckldq, vpunpckhdq, x[2], x[3])
		p0, p1 := unpack(vpunpcklqdq, vpunpckhqdq, abLo, cdLo)
		ps.storePair(0, p0, p1)
		p2, p3 := unpack(vpunpcklqdq, vpunpckhqdq, abHi, cdHi)
		ps.storePair(2, p2, p3)
	})
}

// transpose8 works on 32 values (256 bytes) a block; register r gets
// values 2r and 2r+1 in its low lane and 16+2r and 17+2r in its high
// lane. VPSHUFB interleaves the two values of each lane so that word j
// holds their bytes j, then three unpack stages (words, doublewords,
// quadwords) transpose the 8x8 words of each lane: plane j of 16 values.
func transpose8() {
	mask := laneMask("transpose8_mask", [16]byte{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15})
	transposeFrame("transpose8Vec", 8, false, func(src Register, ps *planeSet) {
		// After the word stage, registers hold planes 0-3 and 4-7
		// (doubleword j: plane j or 4+j) of four values each; after the
		// doubleword stage, u[q] holds two planes (quadwords) of eight
		// values, values 0-7 for q < 4 and 8-15 for q >= 4: planes 0-1,
		// 2-3, 4-5, 6-7 in turn.
		u := twoStages(func(r int) VecPhysical {
			x := loadSplit(Mem{Base: src, Disp: 16 * r}, Mem{Base: src, Disp: 128 + 16*r})
			VPSHUFB(mask, x, x)
			return x
		}, vpunpcklwd, vpunpckhwd, vpunpckldq, vpunpckhdq)
		for q := 0; q < 4; q++ {
			lo, hi := unpack(vpunpcklqdq, vpunpckhqdq, u[q], u[q+4])
			ps.storePair(2*q, lo, hi)
		}
	})
}

// transpose16 works on 16 values (256 bytes) a block; register r gets
// value r in its low lane and value 8+r in its high lane. Three unpack
// stages (bytes, words, doublewords) transpose each lane's 8x16 bytes into
// registers holding planes 2k and 2k+1 of eight values (quadwords), and
// VPERMQ puts each plane's two quadwords into one lane.
func transpose16() {
	transposeFrame("transpose16Vec", 16, false, func(src Register, ps *planeSet) {
		// After the byte stage, registers hold planes 0-7 and 8-15
		// (words) of two values each; after the word stage, u holds
		// planes 0-3, 4-7, 8-11, 12-15 (doublewords) of values 0-3, then
		// of 4-7.
		u := twoStages(func(r int) VecPhysical {
			return loadSplit(Mem{Base: src, Disp: 16 * r}, Mem{Base: src, Disp: 128 + 16*r})
		}, vpunpckbw, vpunpckhbw, vpunpcklwd, vpunpckhwd)
		for q := 0; q < 4; q++ {
			// Planes 4q, 4q+1 and 4q+2, 4q+3 of values 0-7.
			lo, hi := unpack(vpunpckldq, vpunpckhdq, u[q], u[q+4])
			for h, v := range []VecPhysical{lo, hi} {
				p := 4*q + 2*h
				VPERMQ(U8(0xd8), v, v)
				VMOVDQU(v.AsX(), ps.at(p, 0))
				VEXTRACTI128(U8(1), v, ps.at(p+1, 0))
				vput(v)
			}
		}
	})
}

// twoStages runs the first two unpack stages of the eight-register
// transpositions (transpose8, transpose16 and their inverses) one half at
// a time, so that no more than 16 registers are live: load(r) gives
// register r, for r = 0..3 and then 4..7; in each half, registers 0 and 1,
// 2 and 3 are unpacked with lo1/hi1 into t0, t1 and t2, t3, and then t0
// with t2 and t1 with t3 with lo2/hi2. It returns those results, the
// first half's in u[0:4] and the second's in u[4:8]: u[q] and u[q+4] are
// what the last stage joins.
func twoStages(load func(r int) VecPhysical, lo1, hi1, lo2, hi2 func(ops ...Op)) [8]VecPhysical {
	var u [8]VecPhysical
	for half := 0; half < 2; half++ {
		var x [4]VecPhysical
		for k := range x {
			x[k] = load(4*half + k)
		}
		var t [4]VecPhysical
		t[0], t[1] = unpack(lo1, hi1, x[0], x[1])
		t[2], t[3] = unpack(lo1, hi1, x[2], x[3])
		u[4*half], u[4*half+1] = unpack(lo2, hi2, t[0], t[2])
		u[4*half+2], u[4*half+3] = unpack(lo2, hi2, t[1], t[3])
	}
	return u
}

// untranspose2 works on 32 values a block: unpacking the bytes of the two
// planes gives values 0-7 and 16-23 (low unpack) and 8-15 and 24-31 (high
// unpack); VPERM2I128 puts the lanes in order.
func untranspose2() {
	transposeFrame("untranspose2Vec", 2, true, func(dst Register, ps *planeSet) {
		p0, p1 := vget(), vget()
		VMOVDQU(ps.at(0, 0), p0)
		VMOVDQU(ps.at(1, 0), p1)
		lo, hi := unpack(vpunpckbw, vpunpckhbw, p0, p1)
		storeLanePairs(dst, 0, 32, lo, hi)
	})
}

// storeLanePairs stores the low lanes of a and b (in that order) at
// dst+disp and their high lanes at dst+disp+half, and frees a and b.
func storeLanePairs(dst Register, disp, half int, a, b VecPhysical) {
	lo := vget()
	VPERM2I128(U8(0x20), b, a, lo)
	VPERM2I128(U8(0x31), b, a, a)
	VMOVDQU(lo, Mem{Base: dst, Disp: disp})
	VMOVDQU(a, Mem{Base: dst, Disp: disp + half})
	vput(lo, a, b)
}

// untranspose4 works on 32 values a block: unpacking bytes of planes 0, 1
// and of planes 2, 3, then words, gives whole values, 0-3, 4-7, 8-11 and
// 12-15 in the low lanes and 16-19 ... 28-31 in the high lanes.
func untranspose4() {
	transposeFrame("untranspose4Vec", 4, true, func(dst Register, ps *planeSet) {
		var p [4]VecPhysical
		for j := range p {
			p[j] = vget()
			VMOVDQU(ps.at(j, 0), p[j])
		}
		l01, h01 := unpack(vpunpckbw, vpunpckhbw, p[0], p[1])
		l23, h23 := unpack(vpunpckbw, vpunpckhbw, p[2], p[3])
		y0, y1 := unpack(vpunpcklwd, vpunpckhwd, l01, l23)
		storeLanePairs(dst, 0, 64, y0, y1)
		y2, y3 := unpack(vpunpcklwd, vpunpckhwd, h01, h23)
		storeLanePairs(dst, 32, 64, y2, y3)
	})
}

// untranspose8 works on 32 values a block: three unpack stages (bytes,
// words, doublewords) of the eight planes give registers z[k] holding
// values 2k, 2k+1 in the low lane and 16+2k, 17+2k in the high lane.
func untranspose8() {
	transposeFrame("untranspose8Vec", 8, true, func(dst Register, ps *planeSet) {
		// Register r is plane r. In the half of planes 4m to 4m+3, the
		// byte stage gives bytes 4m+2k, 4m+2k+1 (words; k = 0, 1) of
		// values 0-7 and 8-15 (in the low lanes); after the word stage,
		// w[q] and w[q+4] hold bytes 0-3 and 4-7 (doublewords) of values
		// 4q-4q+3.
		w := twoStages(func(r int) VecPhysical {
			p := vget()
			VMOVDQU(ps.at(r, 0), p)
			return p
		}, vpunpckbw, vpunpckhbw, vpunpcklwd, vpunpckhwd)
		for q := 0; q < 4; q++ {
			// Values 4q, 4q+1 and 4q+2, 4q+3.
			z0, z1 := unpack(vpunpckldq, vpunpckhdq, w[q], w[q+4])
			storeLanePairs(dst, 32*q, 128, z0, z1)
		}
	})
}

// untranspose16 works on 16 values a block; register k gets plane k in
// its low lane and plane 8+k in its high lane. Three unpack stages (bytes,
// words, doublewords) give registers holding planes 0-7 (low lane) and
// 8-15 (high lane) of values 2k and 2k+1, and VPERMQ puts each value's two
// quadwords together.
func untranspose16() {
	transposeFrame("untranspose16Vec", 16, true, func(dst Register, ps *planeSet) {
		// Register r holds plane r (low lane) and 8+r (high lane). After
		// the word stage, w[q] and w[q+4] hold planes 0-3 and 4-7 (low
		// lane) and 8-11 and 12-15 (high lane), doublewords, of values 4q
		// to 4q+3.
		w := twoStages(func(r int) VecPhysical {
			return loadSplit(ps.at(r, 0), ps.at(8+r, 0))
		}, vpunpckbw, vpunpckhbw, vpunpcklwd, vpunpckhwd)
		for q := 0; q < 4; q++ {
			z0, z1 := unpack(vpunpckldq, vpunpckhdq, w[q], w[q+4])
			for k, z := range []VecPhysical{z0, z1} {
				VPERMQ(U8(0xd8), z, z)
				VMOVDQU(z, Mem{Base: dst, Disp: 64*q + 32*k})
				vput(z)
			}
		}
	})
}

// deltas generates deltas{32,64}Vec: dst[i] = x[i+1] - x[i], from the
// vector at x[i:] and the overlapping one at x[i+1:], unroll vectors per
// iteration. Each vector of dst is stored after the loads that read the
// same elements of x, so dst may start where x starts.
func deltas(e elemKind) {
	name := "deltas" + itoa(e.bits) + "Vec"
	kernel(name, "func(dst, x []"+e.goTyp+") int",
		name+" sets dst[i] = x[i+1] - x[i] (wrapping) for i < n and returns n:",
		"min(len(dst), len(x)-1) rounded down to a multiple of "+itoa(e.lanes())+" (one 32-byte",
		"vector), 0 if x is empty. dst may start where x starts; otherwise they",
		"do not overlap. It reads x[:n+1] and writes dst[:n] only.",
	)

	dst, x, n := neighbourVectors("dst", "x", e.lanes())
	Store(n, ReturnIndex(0))

	sub := VPSUBD
	if e.bits == 64 {
		sub = VPSUBQ
	}
	i := GP64()
	XORQ(i, i)
	at := func(base Register, v, extra int) Mem {
		return Mem{Base: base, Index: i, Scale: e.scale(), Disp: 32*v + extra}
	}

	vectorLoops(name, i, n, e.lanes(), func() {
		v := make([]VecVirtual, unroll)
		for j := range v {
			v[j] = YMM()
			VMOVDQU(at(x, j, e.size()), v[j])
		}
		for j := range v {
			sub(at(x, j, 0), v[j], v[j])
		}
		for j := range v {
			VMOVDQU(v[j], at(dst, j, 0))
		}
	}, func() {
		w := YMM()
		VMOVDQU(at(x, 0, e.size()), w)
		sub(at(x, 0, 0), w, w)
		VMOVDQU(w, at(dst, 0, 0))
	})

	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// prefixSum generates prefixSum{32,64}Vec, an inclusive scan one vector at
// a time. Within each 128-bit lane, adding the vector shifted up by one
// and then by two elements (VPSLLDQ; one shift of one element for 64-bit
// lanes) gives the lane's running sums; the low lane's total, broadcast
// (VPSHUFD) and moved to the high lane (VPERM2I128 with a zeroed low
// lane), completes the vector's. The carry, the total of everything
// before, is broadcast in every element; it grows by the vector's total
// (its last running sum, broadcast by VPERMD or VPERMQ), which does not
// depend on the carry, so the loop-carried chain is one addition per
// vector.
//
// The sign bits of every input and every running total are ORed into two
// accumulators and tested once at the end.
func prefixSum(e elemKind) {
	name := "prefixSum" + itoa(e.bits) + "Vec"
	kernel(name, "func(dst, x []"+e.goTyp+", carry "+e.goTyp+") (n int, nonneg bool)",
		name+" sets dst[i] = carry + x[0] + ... + x[i] (wrapping) for",
		"i < n and returns n, len(x) rounded down to a multiple of "+itoa(e.lanes())+" (one",
		"32-byte vector), and whether every x[i] and every dst[i] with i < n is",
		">= 0. The caller guarantees len(dst) >= len(x); dst may be x itself.",
		"It reads and writes nothing at or past index n.",
	)

	dst := Load(Param("dst").Base(), GP64())
	x, n := wholeVectors("x", e.lanes())
	Store(n, Return("n"))

	add, shift, lastOfLane := VPADDD, 4, U8(0xff)
	if e.bits == 64 {
		add, shift, lastOfLane = VPADDQ, 8, U8(0xee)
	}
	// carry: the total so far in every element; signsIn, signsOut: the
	// ORs of the inputs and of the running totals.
	carry, signsIn, signsOut := YMM(), YMM(), YMM()
	if e.bits == 32 {
		VMOVD(Load(Param("carry"), GP32()), carry.AsX())
		VPBROADCASTD(carry.AsX(), carry)
	} else {
		VMOVQ(Load(Param("carry"), GP64()), carry.AsX())
		VPBROADCASTQ(carry.AsX(), carry)
	}
	VPXOR(signsIn, signsIn, signsIn)
	VPXOR(signsOut, signsOut, signsOut)
	// last: the index of the last element, in every element (VPERMD).
	var last VecVirtual
	if e.bits == 32 {
		last = YMM()
		seven := GP32()
		MOVL(U32(7), seven)
		VMOVD(seven, last.AsX())
		VPBROADCASTD(last.AsX(), last)
	}

	i := GP64()
	XORQ(i, i)
	at := func(base Register, v int) Mem {
		return Mem{Base: base, Index: i, Scale: e.scale(), Disp: 32 * v}
	}
	scan := func(v int) {
		y := YMM()
		VMOVDQU(at(x, v), y)
		VPOR(y, signsIn, signsIn)
		// Running sums within each lane.
		for s := shift; s < 16; s *= 2 {
			u := YMM()
			VPSLLDQ(U8(s), y, u)
			add(u, y, y)
		}
		// The low lane's total, broadcast (VPSHUFD) and moved to the high
		// lane with zeros in the low lane (VPERM2I128), completes the
		// vector's running sums; their last, broadcast, is the vector's
		// total.
		b, t := YMM(), YMM()
		VPSHUFD(lastOfLane, y, b)
		VPERM2I128(U8(0x08), b, b, b)
		add(b, y, y)
		if e.bits == 32 {
			VPERMD(y, last, t)
		} else {
			VPERMQ(U8(0xff), y, t)
		}
		add(carry, y, y)
		add(t, carry, carry)
		VMOVDQU(y, at(dst, v))
		VPOR(y, signsOut, signsOut)
	}

	vectorLoops(name, i, n, e.lanes(), func() {
		for v := 0; v < unroll; v++ {
			scan(v)
		}
	}, func() {
		scan(0)
	})

	Label(name + "_done")
	VPOR(signsIn, signsOut, signsOut)
	signs := GP32()
	if e.bits == 32 {
		VMOVMSKPS(signsOut, signs)
	} else {
		VMOVMSKPD(signsOut, signs)
	}
	TESTL(signs, signs)
	ok := GP8()
	SETEQ(ok)
	Store(ok, Return("nonneg"))
	VZEROUPPER()
	RET()
}

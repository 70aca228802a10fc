package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The bit-packing kernels (layout in bitpack.go of package arrowpack): a
// block of 256 values is L = 256/B lanes of B-bit words, word j of every
// lane in row j, 32 bytes at 32*j. One register holds a row; value k of
// every lane (values k*L .. k*L+L-1, consecutive) comes out of row k*w/B
// with one shift, or two rows and two shifts where it straddles them, a
// mask and the base. The shifts are immediates: each width has its own
// fully unrolled block, which the routine jumps to through a binary tree of
// comparisons on the width, once per call.

// packKind is one value size of the bit-packing kernels.
type packKind struct {
	elemKind
	srl, sll, add, sub func(ops ...Op)
	bcast              func(ops ...Op)
}

var (
	pack32 = packKind{elemKind{32, "uint32"}, VPSRLD, VPSLLD, VPADDD, VPSUBD, VPBROADCASTD}
	pack64 = packKind{elemKind{64, "uint64"}, VPSRLQ, VPSLLQ, VPADDQ, VPSUBQ, VPBROADCASTQ}
)

// broadcastBase loads the argument base into every lane of a register.
func (k packKind) broadcastBase() VecVirtual {
	v, x := YMM(), XMM()
	if k.bits == 32 {
		VMOVD(Load(Param("base"), GP32()), x)
	} else {
		VMOVQ(Load(Param("base"), GP64()), x)
	}
	k.bcast(x, v)
	return v
}

// lowMask returns a register with the low w bits of every lane set, 0 < w
// < B.
func (k packKind) lowMask(w int) VecVirtual {
	m := YMM()
	VPCMPEQD(m, m, m)
	k.srl(U8(k.bits-w), m, m)
	return m
}

// widthTree emits a binary tree of comparisons of width with lo..hi that
// jumps to name_w<width>.
func widthTree(name string, width Register, lo, hi int) {
	if lo == hi {
		JMP(LabelRef(name + "_w" + itoa(lo)))
		return
	}
	mid := (lo + hi) / 2
	upper := name + "_t" + itoa(mid+1) + "_" + itoa(hi)
	CMPQ(width, U32(mid))
	JA(LabelRef(upper))
	widthTree(name, width, lo, mid)
	Label(upper)
	widthTree(name, width, mid+1, hi)
}

// blockLoop emits, for every width from lo to hi, the label name_w<width>
// and a loop that runs body(width) on each of blocks blocks, advancing src
// and dst by a block each, then jumps to name_done.
func blockLoop(name string, lo, hi int, blocks, src, dst Register, srcStep, dstStep func(w int) int, body func(w int)) {
	for w := lo; w <= hi; w++ {
		l := name + "_w" + itoa(w)
		Label(l)
		i := GP64()
		MOVQ(blocks, i)
		Label(l + "_loop")
		body(w)
		if s := srcStep(w); s != 0 {
			ADDQ(U32(s), src)
		}
		if s := dstStep(w); s != 0 {
			ADDQ(U32(s), dst)
		}
		DECQ(i)
		JNZ(LabelRef(l + "_loop"))
		JMP(LabelRef(name + "_done"))
	}
}

// bitUnpack generates unpack{32,64}Vec.
func bitUnpack(k packKind) {
	B := k.bits
	name := "unpack" + itoa(B) + "Vec"
	kernel(name, "func(dst []"+k.goTyp+", src []byte, base "+k.goTyp+", width int) int",
		name+" unpacks the n = len(dst) rounded down to a multiple of 256",
		"values of the whole blocks of width bits (0 <= width <= "+itoa(B)+") at the",
		"start of src into dst, adding base, and returns n. The caller",
		"guarantees len(src) >= n/256*32*width. It reads and writes nothing",
		"past those bytes and dst[n].",
	)
	dst := Load(Param("dst").Base(), GP64())
	blocks := Load(Param("dst").Len(), GP64())
	SHRQ(U8(8), blocks)
	JZ(LabelRef(name + "_done"))
	src := Load(Param("src").Base(), GP64())
	width := Load(Param("width"), GP64())
	base := k.broadcastBase()
	widthTree(name, width, 0, B)

	blockLoop(name, 0, B, blocks, src, dst,
		func(w int) int { return 32 * w },
		func(w int) int { return 32 * B },
		func(w int) {
			if w == 0 {
				for j := range B {
					VMOVDQU(base, Mem{Base: dst, Disp: 32 * j})
				}
				return
			}
			var mask VecVirtual
			if w < B {
				mask = k.lowMask(w)
			}
			rows := map[int]VecVirtual{}
			row := func(j int) VecVirtual {
				if r, ok := rows[j]; ok {
					return r
				}
				r := YMM()
				VMOVDQU(Mem{Base: src, Disp: 32 * j}, r)
				rows[j] = r
				return r
			}
			for v := range B {
				o := v * w
				j, sh := o/B, o%B
				t := YMM()
				switch {
				case sh == 0 && w == B:
					k.add(row(j), base, t)
					VMOVDQU(t, Mem{Base: dst, Disp: 32 * v})
					continue
				case sh == 0:
					VPAND(row(j), mask, t)
				default:
					k.srl(U8(sh), row(j), t)
				}
				if sh+w > B {
					u := YMM()
					k.sll(U8(B-sh), row(j+1), u)
					VPOR(u, t, t)
				}
				if sh != 0 && sh+w != B {
					VPAND(mask, t, t)
				}
				k.add(t, base, t)
				VMOVDQU(t, Mem{Base: dst, Disp: 32 * v})
			}
		})

	Label(name + "_done")
	n := Load(Param("dst").Len(), GP64())
	ANDQ(I32(-256), n)
	Store(n, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// bitPack generates pack{32,64}Vec.
func bitPack(k packKind) {
	B := k.bits
	name := "pack" + itoa(B) + "Vec"
	kernel(name, "func(dst []byte, src []"+k.goTyp+", base "+k.goTyp+", width int) int",
		name+" packs the n = len(src) rounded down to a multiple of 256 values",
		"of src, minus base, into whole blocks of width bits (1 <= width <=",
		itoa(B)+") at the start of dst, and returns n. The caller guarantees",
		"len(dst) >= n/256*32*width. It reads and writes nothing past those",
		"bytes and src[n].",
	)
	dst := Load(Param("dst").Base(), GP64())
	src := Load(Param("src").Base(), GP64())
	blocks := Load(Param("src").Len(), GP64())
	SHRQ(U8(8), blocks)
	JZ(LabelRef(name + "_done"))
	width := Load(Param("width"), GP64())
	base := k.broadcastBase()
	widthTree(name, width, 1, B)

	blockLoop(name, 1, B, blocks, src, dst,
		func(w int) int { return 32 * B },
		func(w int) int { return 32 * w },
		func(w int) {
			var mask VecVirtual
			if w < B {
				mask = k.lowMask(w)
			}
			var acc VecVirtual
			for v := range B {
				o := v * w
				j, sh := o/B, o%B
				t := YMM()
				VMOVDQU(Mem{Base: src, Disp: 32 * v}, t)
				k.sub(base, t, t)
				if w < B {
					VPAND(mask, t, t)
				}
				if sh == 0 {
					acc = t
				} else {
					u := YMM()
					k.sll(U8(sh), t, u)
					VPOR(u, acc, acc)
				}
				if sh+w >= B {
					VMOVDQU(acc, Mem{Base: dst, Disp: 32 * j})
					if sh+w > B {
						acc = YMM()
						k.srl(U8(B-sh), t, acc)
					}
				}
			}
		})

	Label(name + "_done")
	n := Load(Param("src").Len(), GP64())
	ANDQ(I32(-256), n)
	Store(n, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

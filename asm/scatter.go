package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The scatter kernels of the partitioner (scatter.go): row r of src goes
// to the cursor of partition parts[r], cur[q] = {Base, At} seen here as two
// words, At (a byte offset) advanced by the value's width. A scatter has
// nothing for vectors to do (AVX2 has no scatter store, and rows of one
// partition are rarely next to each other), so these are scalar loops;
// what they can do that Go's loop does not is skip the bounds checks of
// src and parts, check the partition with one compare, and, in the
// write-combining variant, gather each partition's values in a cache line
// of scratch and write whole lines with non-temporal stores, which do not
// read the destination line first.

// scatterArgs loads the arguments both scatters have: the cursors, the
// number of partitions (half the cursors' words), src, parts and the rows.
func scatterArgs() (cur, np, src, parts, n Register) {
	cur = Load(Param("cur").Base(), GP64())
	np = Load(Param("cur").Len(), GP64())
	SHRQ(U8(1), np)
	src = Load(Param("src").Base(), GP64())
	parts = Load(Param("parts").Base(), GP64())
	n = Load(Param("parts").Len(), GP64())
	return
}

// scatter generates scatter{32,64}Vec, the plain scatter, four rows an
// iteration.
func scatter(e elemKind) {
	name := "scatter" + itoa(e.bits) + "Vec"
	kernel(name, "func(cur []uintptr, src []"+e.goTyp+", parts []uint32) int",
		name+" stores src[r] at cur[2q] + cur[2q+1] and adds "+itoa(e.size())+" to",
		"cur[2q+1], for q = parts[r], for every row r < len(parts) in order, and",
		"returns len(parts). If a partition is out of range (q >= len(cur)/2) it",
		"stops at the first such row and returns its index, the rows before it",
		"done. The caller guarantees len(src) >= len(parts) and that each",
		"destination has room for its values.",
	)
	cur, np, src, parts, n := scatterArgs()
	i := GP64()
	XORQ(i, i)
	big := GP64()
	MOVQ(n, big)
	ANDQ(I32(-4), big)
	// row scatters row i+j, leaving to name_bad if its partition is out
	// of range.
	row := func(j int) {
		q := GP64()
		MOVLQZX(Mem{Base: parts, Index: i, Scale: 4, Disp: 4 * j}, q)
		CMPQ(q, np)
		JAE(LabelRef(name + "_bad" + itoa(j)))
		SHLQ(U8(4), q)
		p := GP64()
		MOVQ(Mem{Base: cur, Index: q, Scale: 1}, p)
		ADDQ(Mem{Base: cur, Index: q, Scale: 1, Disp: 8}, p)
		v := GP64()
		if e.bits == 32 {
			MOVL(Mem{Base: src, Index: i, Scale: 4, Disp: 4 * j}, v.As32())
			MOVL(v.As32(), Mem{Base: p})
		} else {
			MOVQ(Mem{Base: src, Index: i, Scale: 8, Disp: 8 * j}, v)
			MOVQ(v, Mem{Base: p})
		}
		ADDQ(U8(e.size()), Mem{Base: cur, Index: q, Scale: 1, Disp: 8})
	}
	CMPQ(i, big)
	JAE(LabelRef(name + "_single"))
	Label(name + "_loop")
	for j := range 4 {
		row(j)
	}
	ADDQ(U8(4), i)
	CMPQ(i, big)
	JB(LabelRef(name + "_loop"))
	Label(name + "_single")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	row(0)
	INCQ(i)
	JMP(LabelRef(name + "_single"))
	for j := 3; j >= 1; j-- {
		Label(name + "_bad" + itoa(j))
		INCQ(i)
	}
	Label(name + "_bad0")
	Label(name + "_done")
	Store(i, ReturnIndex(0))
	RET()
}

// scatterWC generates scatter{32,64}WCVec, the scatter with software
// write-combining: partition q's values go first to the 64-byte line
// lines[64q:], at the offset within its line that their destination
// has; when a value completes a destination line, the line is written
// with two non-temporal 32-byte stores (VMOVNTDQ) if the whole line was
// written in this call (its start at or past start[q], where q's cursor
// was when the call began), and otherwise, the start of the line being
// older bytes, only from start[q] on, with ordinary stores. The lines not
// completed are left in lines for the caller to copy out (scatter_amd64.go).
// It ends with an SFENCE, so that the non-temporal stores are ordered
// before whatever the caller does next.
func scatterWC(e elemKind) {
	name := "scatter" + itoa(e.bits) + "WCVec"
	kernel(name, "func(cur []uintptr, src []"+e.goTyp+", parts []uint32, lines []byte, start []uintptr) int",
		name+" is scatter"+itoa(e.bits)+"Vec with write-combining: each value goes to",
		"lines[64q+a%64], a its destination address; a value that ends a line",
		"(a%64 == 64-"+itoa(e.size())+") writes the line's bytes from max(a-a%64, start[q]) on to",
		"the destination. The caller guarantees what scatter"+itoa(e.bits)+"Vec needs and",
		"that lines is 64-byte aligned and holds 64 bytes, and start one word, for",
		"each partition, start[q] the destination address of q's first value,",
		"each destination aligned to "+itoa(e.size())+" bytes. The bytes of each partition's",
		"last, unfinished line are left in lines.",
	)
	cur, np, src, parts, n := scatterArgs()
	lines := Load(Param("lines").Base(), GP64())
	start := Load(Param("start").Base(), GP64())
	i := GP64()
	XORQ(i, i)
	y0, y1 := YMM(), YMM()
	Label(name + "_loop")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	q := GP64()
	MOVLQZX(Mem{Base: parts, Index: i, Scale: 4}, q)
	CMPQ(q, np)
	JAE(LabelRef(name + "_done"))
	q16 := GP64()
	MOVQ(q, q16)
	SHLQ(U8(4), q16)
	a := GP64()
	MOVQ(Mem{Base: cur, Index: q16, Scale: 1}, a)
	ADDQ(Mem{Base: cur, Index: q16, Scale: 1, Disp: 8}, a)
	ADDQ(U8(e.size()), Mem{Base: cur, Index: q16, Scale: 1, Disp: 8})
	off := GP64()
	MOVQ(a, off)
	ANDQ(U8(63), off)
	lb := GP64()
	MOVQ(q, lb)
	SHLQ(U8(6), lb)
	ADDQ(lines, lb)
	v := GP64()
	if e.bits == 32 {
		MOVL(Mem{Base: src, Index: i, Scale: 4}, v.As32())
		MOVL(v.As32(), Mem{Base: lb, Index: off, Scale: 1})
	} else {
		MOVQ(Mem{Base: src, Index: i, Scale: 8}, v)
		MOVQ(v, Mem{Base: lb, Index: off, Scale: 1})
	}
	INCQ(i)
	ADDQ(U8(e.size()), a)
	TESTQ(U32(63), a)
	JNZ(LabelRef(name + "_loop"))
	// a ends a line: write it.
	SUBQ(U8(64), a)
	s := GP64()
	MOVQ(Mem{Base: start, Index: q, Scale: 8}, s)
	CMPQ(a, s)
	JB(LabelRef(name + "_partial"))
	VMOVDQA(Mem{Base: lb}, y0)
	VMOVDQA(Mem{Base: lb, Disp: 32}, y1)
	VMOVNTDQ(y0, Mem{Base: a})
	VMOVNTDQ(y1, Mem{Base: a, Disp: 32})
	JMP(LabelRef(name + "_loop"))

	// The line began before this call: its bytes from s on.
	Label(name + "_partial")
	o := GP64()
	MOVQ(s, o)
	ANDQ(U8(63), o)
	Label(name + "_copy")
	w := GP64()
	if e.bits == 32 {
		MOVL(Mem{Base: lb, Index: o, Scale: 1}, w.As32())
		MOVL(w.As32(), Mem{Base: s})
	} else {
		MOVQ(Mem{Base: lb, Index: o, Scale: 1}, w)
		MOVQ(w, Mem{Base: s})
	}
	ADDQ(U8(e.size()), s)
	ADDQ(U8(e.size()), o)
	CMPQ(o, U8(64))
	JB(LabelRef(name + "_copy"))
	JMP(LabelRef(name + "_loop"))

	Label(name + "_done")
	SFENCE()
	Store(i, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

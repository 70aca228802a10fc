package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// histogram generates histogramVec, the byte histogram of the
// compressibility estimate. AVX2 has no scatter and no conflict detection,
// so a vector histogram would cost more than it saves: the routine loads
// each byte into a general register and counts it straight into memory,
// eight loads then eight increments, 32 bytes per iteration, with no
// per-call setup (a sample is 64 to 256 bytes).
func histogram() {
	const name = "histogramVec"
	kernel(name, "func(counts *[256]uint32, src []byte) int",
		name+" adds to counts[v] the number of bytes of src[:n] equal to v,",
		"where n is len(src) rounded down to a multiple of 32, and returns n.",
		"It reads nothing at or past src[n].",
	)
	c := Load(Param("counts"), GP64())
	p, n := wholeVectors("src", 32)
	i := GP64()
	XORQ(i, i)
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))

	Label(name + "_loop")
	for k := range 4 {
		var idx [8]GPVirtual
		for j := range 8 {
			idx[j] = GP64()
			MOVBQZX(Mem{Base: p, Index: i, Scale: 1, Disp: 8*k + j}, idx[j])
		}
		for j := range 8 {
			INCL(Mem{Base: c, Index: idx[j], Scale: 4})
		}
	}
	ADDQ(U32(32), i)
	CMPQ(i, n)
	JB(LabelRef(name + "_loop"))

	Label(name + "_done")
	Store(n, ReturnIndex(0))
	RET()
}

package main

import (
	"strconv"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

func itoa(i int) string { return strconv.Itoa(i) }

// elemKind describes one lane width of a kernel: its bits and the Go type
// of its elements.
type elemKind struct {
	bits  int
	goTyp string
}

func (e elemKind) size() int    { return e.bits / 8 }
func (e elemKind) lanes() int   { return 32 / e.size() }
func (e elemKind) scale() uint8 { return uint8(e.size()) }

// kernel starts the routine name with the Go signature sig, which does not
// let its arguments escape, and its doc comment, one line a string.
func kernel(name, sig string, doc ...string) {
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc...)
}

// wholeVectors loads the base of the slice argument param and its length
// rounded down to a multiple of lanes elements: whole 32-byte vectors.
func wholeVectors(param string, lanes int) (base, n reg.Register) {
	base = Load(Param(param).Base(), GP64())
	n = Load(Param(param).Len(), GP64())
	ANDQ(operand.I32(-lanes), n)
	return base, n
}

// neighbourVectors loads the bases of the slice arguments dstParam and
// srcParam and n = min(len(dst), len(src)-1), at least 0, rounded down to
// a multiple of lanes elements: the whole vectors of a routine that writes
// dst[i] from src[i] and its neighbour src[i+1].
func neighbourVectors(dstParam, srcParam string, lanes int) (dst, src, n reg.Register) {
	dst = Load(Param(dstParam).Base(), GP64())
	src = Load(Param(srcParam).Base(), GP64())
	n = Load(Param(dstParam).Len(), GP64())
	ns := Load(Param(srcParam).Len(), GP64())
	decToZero(ns)
	CMPQ(n, ns)
	CMOVQGT(ns, n)
	ANDQ(operand.I32(-lanes), n)
	return dst, src, n
}

// vectorLoops emits the loops of a routine that walks n elements, a
// multiple of lanes (one 32-byte vector), with the index i, set to 0 by
// the caller: first, while whole groups of unroll vectors remain, group()
// handles the unroll vectors at i; then one() handles one vector at a time
// until i reaches n, when the routine jumps to name_done, which the caller
// emits. group and one must not change i.
func vectorLoops(name string, i, n reg.Register, lanes int, group, one func()) {
	big := GP64()
	MOVQ(n, big)
	ANDQ(operand.I32(-unroll*lanes), big)
	JZ(operand.LabelRef(name + "_single"))
	Label(name + "_loop")
	group()
	ADDQ(operand.U32(unroll*lanes), i)
	CMPQ(i, big)
	JB(operand.LabelRef(name + "_loop"))

	Label(name + "_single")
	CMPQ(i, n)
	JAE(operand.LabelRef(name + "_done"))
	one()
	ADDQ(operand.U32(lanes), i)
	JMP(operand.LabelRef(name + "_single"))
}

// addr returns the frame address of an argument or result component.
func addr(c gotypes.Component) operand.Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// returnNOK ends a function that returns (n int, ok bool): at name_done it
// returns (n, true), at name_fail (0, false).
func returnNOK(name string, n reg.Register) {
	Label(name + "_done")
	Store(n, Return("n"))
	MOVB(operand.U8(1), addr(Return("ok")))
	VZEROUPPER()
	RET()

	Label(name + "_fail")
	MOVQ(operand.U32(0), addr(Return("n")))
	MOVB(operand.U8(0), addr(Return("ok")))
	VZEROUPPER()
	RET()
}

// decToZero sets r = max(r-1, 0), for a length r: the number of pairs of
// neighbours in r elements.
func decToZero(r reg.Register) {
	zero := GP64()
	XORQ(zero, zero)
	DECQ(r)
	CMOVQLT(zero, r)
}

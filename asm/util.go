package main

import (
	"strconv"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

func itoa(i int) string { return strconv.Itoa(i) }

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

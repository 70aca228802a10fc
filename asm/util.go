package main

import (
	"strconv"

	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
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

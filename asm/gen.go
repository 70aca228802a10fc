// Command asm generates the AVX2 kernels of package arrowpack for amd64,
// codec_amd64.s and its Go declarations codec_amd64.go, with avo.
//
// It is a module of its own so that users of the library never download avo.
// Run `go generate ./...` in this directory after changing it; the output is
// deterministic, so regenerating an unchanged generator gives no diff.
//
// Every routine does whole vector blocks only and returns how much it did;
// the Go code in kernels_vec.go finishes the tail with the generic kernels.
// No routine reads or writes outside the slices it is given, so inputs may
// end right before an unmapped page. Only AVX2, AVX and base x86-64
// instructions are used, on registers Y0-Y15 (VEX encodings, no AVX-512).
package main

import (
	. "github.com/mmcloughlin/avo/build"
)

//go:generate go run . -out ../codec_amd64.s -stubs ../codec_amd64.go -pkg arrowpack

func main() {
	ConstraintExpr("!purego")

	rebase32()
	rebase64()
	nondecreasing32()
	nondecreasing64()
	shiftBits()
	popcount()

	Generate()
}

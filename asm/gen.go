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
// instructions are used, on registers Y0-Y15 (VEX encodings, no AVX-512);
// the generator fails if the output names any register only AVX-512
// reaches (checkNoEVEX).
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"

	. "github.com/mmcloughlin/avo/build"
)

//go:generate go run . -out ../codec_amd64.s -stubs ../codec_amd64.go -pkg arrowpack

func main() {
	ConstraintExpr("!purego")

	rebase(kind32)
	rebase(kind64)
	nondecreasing(kind32)
	nondecreasing(kind64)
	shiftBits()
	popcount()
	transpose2()
	transpose4()
	transpose8()
	transpose16()
	untranspose2()
	untranspose4()
	untranspose8()
	untranspose16()
	deltas(kind32)
	deltas(kind64)
	prefixSum(kind32)
	prefixSum(kind64)
	ascii()
	maxUint(max8)
	maxUint(max16)
	maxUint(max32)
	maxUint(max64)
	histogram()
	bitPack(pack32)
	bitPack(pack64)
	bitUnpack(pack32)
	bitUnpack(pack64)
	alp64()
	alp32()
	minmax(minmaxU32)
	minmax(minmaxI32)
	minmax(minmaxU64)
	minmax(minmaxI64)
	copyCheck()
	crc32c()
	scatter(elemKind{32, "uint32"})
	scatter(elemKind{64, "uint64"})
	scatterWC(elemKind{32, "uint32"})
	scatterWC(elemKind{64, "uint64"})

	Generate()
	checkNoEVEX(flag.Lookup("out").Value.String())
}

// evexOnly matches the registers that only EVEX (AVX-512) encodings reach:
// X16-X31, Y16-Y31, any Z register and the mask registers K0-K7.
var evexOnly = regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)

// checkNoEVEX fails the generation if the register allocator reached for
// a register that needs AVX-512: avo allocates from all 32 vector
// registers, and the kernels must run on AVX2 machines.
func checkNoEVEX(out string) {
	if out == "" {
		return
	}
	b, err := os.ReadFile(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if m := evexOnly.Find(b); m != nil {
		fmt.Fprintf(os.Stderr, "%s uses %s, which needs AVX-512; lower the register pressure\n", out, m)
		os.Exit(1)
	}
}

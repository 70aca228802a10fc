//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector path: assembly routines (codec_amd64.s, codec_arm64.s, with the
// same names and contracts on both) do whole vector blocks and return how
// much they did; the generic code finishes the tail. Inputs shorter than
// minVec go to the generic code directly, where a call would cost more.

const minVec = 64

var vectorImpl = impl{
	name:            vecName,
	rebase32:        rebaseVector(rebase32Vec),
	rebase64:        rebaseVector(rebase64Vec),
	nondecreasing32: nondecreasingVector(nondecreasing32Vec),
	nondecreasing64: nondecreasingVector(nondecreasing64Vec),
	shiftBits:       shiftBitsVector,
	popcount:        popcountVector,
	transpose:       transposeVector,
	untranspose:     untransposeVector,
	deltas32:        deltasVector(deltas32Vec),
	deltas64:        deltasVector(deltas64Vec),
	prefixSum32:     prefixSumVector(prefixSum32Vec),
	prefixSum64:     prefixSumVector(prefixSum64Vec),
	isASCII:         isASCIIVector,
	max8:            maxVector(max8Vec),
	max16:           maxVector(max16Vec),
	max32:           maxVector(max32Vec),
	max64:           maxVector(max64Vec),
	pack32:          packVector(pack32Vec),
	pack64:          packVector(pack64Vec),
	unpack32:        unpackVector(unpack32Vec),
	unpack64:        unpackVector(unpack64Vec),
	minmax32:        minmaxVector(minmaxU32Vec),
	minmax64:        minmaxVector(minmaxU64Vec),
	minmaxInt32:     minmaxVector(minmaxI32Vec),
	minmaxInt64:     minmaxVector(minmaxI64Vec),
	alp64:           alp64Vector,
	alp32:           alp32Vector,

	copyASCII:             copyASCIIVector,
	copyMax8:              copyMax8Vector,
	copyMax16:             copyMax16Vector,
	copyMax32:             copyMax32Vector,
	copyMax64:             copyMax64Vector,
	rebaseNondecreasing32: rebaseNondecreasing32Vector,
	rebaseNondecreasing64: rebaseNondecreasing64Vector,
	copyCountOnes:         copyCountOnesVector,

	scatter32: scatter32Vector,
	scatter64: scatter64Vector,
}

func init() {
	if vecSupported {
		impls = append(impls, &vectorImpl)
		active = &vectorImpl
	}
}

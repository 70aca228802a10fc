package arrowpack

// The pure-Go kernels: the reference every vector path is tested against,
// and the path used on other architectures and under -tags purego.

var genericImpl = impl{
	name:            "generic",
	rebase32:        rebaseGeneric[int32],
	rebase64:        rebaseGeneric[int64],
	nondecreasing32: nondecreasingGeneric[int32],
	nondecreasing64: nondecreasingGeneric[int64],
	shiftBits:       shiftBitsGeneric,
	popcount:        popcountGeneric,
	transpose:       transposeGeneric,
	untranspose:     untransposeGeneric,
	deltas32:        deltasGeneric[int32],
	deltas64:        deltasGeneric[int64],
	prefixSum32:     prefixSumGeneric[int32],
	prefixSum64:     prefixSumGeneric[int64],
	isASCII:         isASCIIGeneric,
	max8:            maxGeneric[uint8],
	max16:           maxGeneric[uint16],
	max32:           maxGeneric[uint32],
	max64:           maxGeneric[uint64],
	pack32:          packGeneric[uint32],
	pack64:          packGeneric[uint64],
	unpack32:        unpackGeneric[uint32],
	unpack64:        unpackGeneric[uint64],
	minmax32:        minmaxGeneric[uint32],
	minmax64:        minmaxGeneric[uint64],
	minmaxInt32:     minmaxGeneric[int32],
	minmaxInt64:     minmaxGeneric[int64],
	alp64:           alpGeneric64,
	alp32:           alpGeneric32,

	copyASCII:             copyASCIIGeneric,
	copyMax8:              copyMaxGeneric[uint8],
	copyMax16:             copyMaxGeneric[uint16],
	copyMax32:             copyMaxGeneric[uint32],
	copyMax64:             copyMaxGeneric[uint64],
	rebaseNondecreasing32: rebaseNondecreasingGeneric[int32],
	rebaseNondecreasing64: rebaseNondecreasingGeneric[int64],
	copyCountOnes:         copyCountOnesGeneric,

	scatter32: scatterGeneric[uint32],
	scatter64: scatterGeneric[uint64],
}

// offset is the element type of Arrow offsets.
type offset interface{ int32 | int64 }

//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector copy-and-check kernels. (For now the generic ones, until the
// assembly lands.)

var (
	copyASCIIVector             = copyASCIIGeneric
	copyMax8Vector              = copyMaxGeneric[uint8]
	copyMax16Vector             = copyMaxGeneric[uint16]
	copyMax32Vector             = copyMaxGeneric[uint32]
	copyMax64Vector             = copyMaxGeneric[uint64]
	rebaseNondecreasing32Vector = rebaseNondecreasingGeneric[int32]
	rebaseNondecreasing64Vector = rebaseNondecreasingGeneric[int64]
	copyCountOnesVector         = copyCountOnesGeneric
)

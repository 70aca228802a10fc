package arrowpack

// The compressibility estimate: a byte histogram of a sample, from which
// the codec estimates the order-0 entropy of a buffer and so whether
// compressing it is worth the time. It has its own dispatch, beside the
// kernels' impl, so that its variants live in files of their own.

// histImpl is one implementation of the histogram kernel.
type histImpl struct {
	name string
	// hist adds to counts[v] the number of bytes of src equal to v.
	hist func(counts *[256]uint32, src []byte)
}

// histImpls lists every histogram implementation this machine can run,
// the generic one first; activeHist is the one ByteHistogram uses. Both are
// set by init functions before main runs and never change afterwards.
var (
	genericHist = histImpl{name: "generic", hist: byteHistogramGeneric}
	histImpls   = []*histImpl{&genericHist}
	activeHist  = &genericHist
)

// ByteHistogram adds to counts[v], for every byte value v, the number of
// bytes of src equal to v. Counts wrap modulo 2^32; callers histogram
// samples far shorter than that.
func ByteHistogram(counts *[256]uint32, src []byte) {
	activeHist.hist(counts, src)
}

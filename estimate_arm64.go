//go:build !purego

package arrowpack

// histogramVec adds to counts[v] the number of bytes of src[:n] equal to v,
// where n is len(src) rounded down to a multiple of 32, and returns n.
// It reads nothing at or past src[n].
//
//go:noescape
func histogramVec(counts *[256]uint32, src []byte) int

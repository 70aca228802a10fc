// Package plain holds plain definitions of what arrowpack's kernels and
// block format compute, written for reading rather than speed, for tests
// to check the fast code against. Nothing outside tests uses it.
package plain

// Transpose returns the values of width bytes in src byte-transposed, as
// FORMAT.md defines it: byte j of value i goes to j*n + i, where n is the
// number of values.
func Transpose(src []byte, width int) []byte {
	n := len(src) / width
	dst := make([]byte, len(src))
	for i := range n {
		for j := range width {
			dst[j*n+i] = src[i*width+j]
		}
	}
	return dst
}

// Untranspose undoes Transpose.
func Untranspose(src []byte, width int) []byte {
	n := len(src) / width
	dst := make([]byte, len(src))
	for i := range n {
		for j := range width {
			dst[i*width+j] = src[j*n+i]
		}
	}
	return dst
}

package arrowpack

import "encoding/binary"

// The pure-Go scan kernels, part of genericImpl (codec_generic.go).

func isASCIIGeneric(b []byte) bool {
	const hi = 0x8080808080808080
	var acc uint64
	for len(b) >= 32 {
		acc |= binary.LittleEndian.Uint64(b) | binary.LittleEndian.Uint64(b[8:]) |
			binary.LittleEndian.Uint64(b[16:]) | binary.LittleEndian.Uint64(b[24:])
		b = b[32:]
	}
	for len(b) >= 8 {
		acc |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		acc |= uint64(c)
	}
	return acc&hi == 0
}

// maxGeneric returns the largest element of x, 0 if x is empty. Four
// independent running maxima keep the compare-and-select chains apart.
func maxGeneric[T uint8 | uint16 | uint32 | uint64](x []T) T {
	var m0, m1, m2, m3 T
	for len(x) >= 4 {
		m0 = max(m0, x[0])
		m1 = max(m1, x[1])
		m2 = max(m2, x[2])
		m3 = max(m3, x[3])
		x = x[4:]
	}
	for _, v := range x {
		m0 = max(m0, v)
	}
	return max(m0, m1, m2, m3)
}

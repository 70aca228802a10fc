package arrowpack

import "encoding/binary"

// IsASCII reports whether every byte of b is below 0x80. The codec uses it
// to skip UTF-8 validation of string data that is plain ASCII.
func IsASCII(b []byte) bool {
	return active.isASCII(b)
}

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

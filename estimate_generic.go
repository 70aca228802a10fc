package arrowpack

import "encoding/binary"

// histSplit is the input length from which byteHistogramGeneric counts
// into four tables of its own: that keeps runs of equal bytes from making
// every increment wait for the one before, but setting up and adding the
// tables costs about a microsecond, more than counting a short sample.
const histSplit = 2048

// byteHistogramGeneric is the reference histogram, reading eight bytes at a
// time.
func byteHistogramGeneric(counts *[256]uint32, src []byte) {
	if len(src) < histSplit {
		for len(src) >= 8 {
			v := binary.LittleEndian.Uint64(src)
			counts[uint8(v)]++
			counts[uint8(v>>8)]++
			counts[uint8(v>>16)]++
			counts[uint8(v>>24)]++
			counts[uint8(v>>32)]++
			counts[uint8(v>>40)]++
			counts[uint8(v>>48)]++
			counts[uint8(v>>56)]++
			src = src[8:]
		}
		for _, b := range src {
			counts[b]++
		}
		return
	}
	var t [4][256]uint32
	for len(src) >= 8 {
		v := binary.LittleEndian.Uint64(src)
		t[0][uint8(v)]++
		t[1][uint8(v>>8)]++
		t[2][uint8(v>>16)]++
		t[3][uint8(v>>24)]++
		t[0][uint8(v>>32)]++
		t[1][uint8(v>>40)]++
		t[2][uint8(v>>48)]++
		t[3][uint8(v>>56)]++
		src = src[8:]
	}
	for _, b := range src {
		t[0][b]++
	}
	for i := range counts {
		counts[i] += t[0][i] + t[1][i] + t[2][i] + t[3][i]
	}
}

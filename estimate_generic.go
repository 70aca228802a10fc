package arrowpack

import "encoding/binary"

// byteHistogramGeneric is the reference histogram. It counts into four
// tables in turn, so that runs of equal bytes (common in the buffers it
// samples) do not make every increment wait for the one before, and reads
// eight bytes at a time.
func byteHistogramGeneric(counts *[256]uint32, src []byte) {
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

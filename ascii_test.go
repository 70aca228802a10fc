package arrowpack

import (
	"math/rand/v2"
	"testing"
)

func TestIsASCII(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range testLengths() {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(128))
		}
		if !IsASCII(b) {
			t.Fatalf("n=%d: ASCII bytes reported non-ASCII", n)
		}
		// A high bit at every position of short inputs, and at the first,
		// a middle and the last of long ones.
		positions := []int{0, n / 2, n - 1}
		if n <= 80 {
			positions = positions[:0]
			for p := range n {
				positions = append(positions, p)
			}
		}
		for _, p := range positions {
			if p < 0 {
				continue
			}
			old := b[p]
			b[p] |= 0x80
			if IsASCII(b) {
				t.Fatalf("n=%d: byte %#x at %d not seen", n, b[p], p)
			}
			b[p] = old
		}
	}
}

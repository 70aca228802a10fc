package arrowpack

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Tests of the histogram kernel: every implementation against a plain
// definition, at lengths 0..300 and large, at every alignment within a
// 64-byte line, counting into tables that already hold counts, and
// against guard pages at either end of the input.

// byteHistogramDef is the definition: one count per byte.
func byteHistogramDef(counts *[256]uint32, src []byte) {
	for _, b := range src {
		counts[b]++
	}
}

// histInputs fills b with bytes of one of several kinds: random, few
// values, runs, all one value.
func histInput(r *rand.Rand, b []byte, kind int) {
	for i := range b {
		switch kind % 4 {
		case 0:
			b[i] = byte(r.Uint32())
		case 1:
			b[i] = byte(r.IntN(5)) * 51
		case 2:
			b[i] = byte(i / 37)
		case 3:
			b[i] = 0xff
		}
	}
}

func checkHistogram(t *testing.T, im *histImpl, src []byte, what string) {
	t.Helper()
	var want, got [256]uint32
	for i := range want {
		want[i] = uint32(i * 1000003) // counts add to what is there
	}
	got = want
	byteHistogramDef(&want, src)
	im.hist(&got, src)
	if got != want {
		for v := range want {
			if got[v] != want[v] {
				t.Fatalf("%s: %s of %d bytes: count of %#x is %d, want %d", im.name, what, len(src), v, got[v], want[v])
			}
		}
	}
}

func TestByteHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	lengths := guardLengths(1023, 1024, 4097, 65536+13)
	for _, im := range histImpls {
		for _, n := range lengths {
			for align := range 64 {
				if n > 300 && align%17 != 0 {
					continue
				}
				b := alignedAt[byte](n, align)
				histInput(r, b, n+align)
				checkHistogram(t, im, b, "aligned")
			}
		}
	}
}

func TestGuardByteHistogram(t *testing.T) {
	lengths := guardLengths(1023, 1024, 4095, 4096, 4097, 65537)
	region := guarded(t, slices.Max(lengths))
	r := rand.New(rand.NewPCG(43, 44))
	var c guardCase
	defer trap(t, &c)()
	for _, im := range histImpls {
		c.impl = im.name
		c.kernel = "byteHistogram"
		for _, n := range lengths {
			c.n = n
			for _, pos := range guardPositions {
				c.src = pos
				b := place(region, pos, n)
				histInput(r, b, n)
				checkHistogram(t, im, b, pos.String())
			}
		}
	}
}

// TestByteHistogramExported checks the exported function against the
// definition.
func TestByteHistogramExported(t *testing.T) {
	b := []byte("arrowpack histograms bytes")
	var want, got [256]uint32
	byteHistogramDef(&want, b)
	ByteHistogram(&got, b)
	if got != want {
		t.Fatalf("ByteHistogram differs from the definition")
	}
}

// FuzzByteHistogram: the fuzzer's bytes at align%64 into their allocation,
// counted by every implementation into tables already holding counts.
func FuzzByteHistogram(f *testing.F) {
	fuzzAddSizes(f, 1, func(data []byte, i int) { f.Add(data, uint8(i*9)) })
	f.Fuzz(func(t *testing.T, data []byte, align uint8) {
		b := alignedAt[byte](len(data), int(align%64))
		copy(b, data)
		for _, im := range histImpls {
			checkHistogram(t, im, b, "fuzzed")
		}
	})
}

func BenchmarkByteHistogram(b *testing.B) {
	for _, n := range []int{64, 256, 4096} {
		src := make([]byte, n)
		histInput(rand.New(rand.NewPCG(1, 2)), src, 0)
		for _, im := range histImpls {
			b.Run(fmt.Sprintf("%s/%d", im.name, n), func(b *testing.B) {
				var counts [256]uint32
				b.SetBytes(int64(n))
				for b.Loop() {
					im.hist(&counts, src)
				}
			})
		}
	}
}

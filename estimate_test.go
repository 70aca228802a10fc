package arrowpack

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The histogram kernel's case for the harness in kernels_harness_test.go
// (every implementation against a plain definition, counting into tables
// that already hold counts), a test of the exported function and a
// benchmark.

// byteHistogramDef is the definition: one count per byte.
func byteHistogramDef(counts *[256]uint32, src []byte) {
	for _, b := range src {
		counts[b]++
	}
}

// histInput fills b with bytes of one of several kinds: random, few
// values, runs, all one value.
func histInput(g *gen, b []byte, kind int) {
	for i := range b {
		switch kind % 4 {
		case 0:
			b[i] = g.byte()
		case 1:
			b[i] = byte(g.intn(5)) * 51
		case 2:
			b[i] = byte(i / 37)
		case 3:
			b[i] = 0xff
		}
	}
}

// byteHistogramCase checks every histogram implementation, counting into
// a table that already holds counts, on bytes of each kind histInput makes.
func byteHistogramCase() *kcase {
	c := &kcase{name: "byteHistogram", elem: 1, ks: 4, slots: 1, large: append(slices.Clone(defaultLarge), 65536+13)}
	c.own = func() []kpath {
		var ps []kpath
		for _, im := range histImpls {
			ps = append(ps, kpath{im.name, func(in *kin) error {
				src := take[byte](in, 0, in.n)
				histInput(in.g, src, in.k)
				var want, got [256]uint32
				for i := range want {
					want[i] = uint32(i * 1000003) // counts add to what is there
				}
				got = want
				byteHistogramDef(&want, src)
				im.hist(&got, src)
				for v := range want {
					if got[v] != want[v] {
						return fmt.Errorf("count of %#x is %d, want %d", v, got[v], want[v])
					}
				}
				return nil
			}})
		}
		return ps
	}
	return c
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

func BenchmarkByteHistogram(b *testing.B) {
	for _, n := range []int{64, 256, 4096} {
		src := make([]byte, n)
		histInput(&gen{r: rand.New(rand.NewPCG(1, 2))}, src, 0)
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

package arrowpack

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The CRC32C kernel's case for the harness in kernels_harness_test.go:
// every implementation against hash/crc32 (the definition of the values
// that streams and Flight blocks carry), at every length 0..1100, random
// longer ones and every alignment, from several starting CRCs; a test of
// the exported function, a fuzz target and a benchmark.

// crcTestImpls are the implementations the tests run besides crcImpls:
// the folding kernels with their Go thresholds at the kernels' minimum
// (crc32c_amd64_test.go), so that every length the kernels accept is
// tested whatever the thresholds are.
var crcTestImpls []*crcImpl

// crc32cDef is the definition: hash/crc32 with the Castagnoli table.
func crc32cDef(crc uint32, b []byte) uint32 {
	return crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), b)
}

// crcStart returns the starting CRC of the case's k: 0, all ones, or a
// value from the source.
func crcStart(g *gen, k int) uint32 {
	switch k {
	case 0:
		return 0
	case 1:
		return 0xffffffff
	}
	return value[uint32](g)
}

func crc32cCase() *kcase {
	var large []int
	for n := 301; n <= 1100; n++ {
		large = append(large, n)
	}
	large = append(large, defaultLarge...)
	// Around two and three of the amd64 folds' blocks (3,584 bytes), where
	// one block's accumulators jump to the next one's.
	large = append(large, 7136, 7168, 7200, 10752+96, 10752+128+16)
	r := rand.New(rand.NewPCG(3, 20))
	for range 8 {
		large = append(large, 1100+r.IntN(300000))
	}
	large = append(large, 1<<20+37)
	c := &kcase{name: "crc32c", elem: 1, ks: 3, slots: 1, large: large}
	c.own = func() []kpath {
		var ps []kpath
		for _, im := range slices.Concat(crcImpls, crcTestImpls) {
			ps = append(ps, kpath{im.name, func(in *kin) error {
				b := take[byte](in, 0, in.n)
				fill(in.g, b)
				crc := crcStart(in.g, in.k)
				if got, want := im.update(crc, b), crc32cDef(crc, b); got != want {
					return fmt.Errorf("CRC from %#x is %#x, want %#x", crc, got, want)
				}
				return nil
			}})
		}
		return ps
	}
	return c
}

func FuzzUpdateCRC32C(f *testing.F) { fuzzKernel(f, "crc32c") }

// TestUpdateCRC32C checks the exported function: known values, and that
// adding the bytes in two parts, split anywhere, gives the CRC of the
// whole.
func TestUpdateCRC32C(t *testing.T) {
	// The CRC32C check value (RFC 3720's polynomial, as every CRC
	// catalogue lists it) and hash/crc32's.
	if got := UpdateCRC32C(0, []byte("123456789")); got != 0xe3069283 {
		t.Fatalf("CRC32C of 123456789 = %#x, want 0xe3069283", got)
	}
	b := make([]byte, 5000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	whole := crc32cDef(0, b)
	for _, cut := range []int{0, 1, 31, 32, 255, 256, 257, 1000, 4095, 4999, 5000} {
		if got := UpdateCRC32C(UpdateCRC32C(0, b[:cut]), b[cut:]); got != whole {
			t.Fatalf("CRC32C in two parts cut at %d = %#x, want %#x", cut, got, whole)
		}
	}
}

// TestCRC32CImplementation checks that UpdateCRC32C takes the path of
// VPCLMULQDQ where there is one (the last listed) and hash/crc32
// otherwise.
func TestCRC32CImplementation(t *testing.T) {
	want := &genericCRC
	if last := crcImpls[len(crcImpls)-1]; last.name == "vpclmulqdq" {
		want = last
	}
	if activeCRC != want {
		t.Fatalf("active CRC32C path is %q, want %q", activeCRC.name, want.name)
	}
	if CRC32CImplementation() != activeCRC.name {
		t.Fatalf("CRC32CImplementation() = %q, active is %q", CRC32CImplementation(), activeCRC.name)
	}
	t.Logf("CRC32C path: %s", CRC32CImplementation())
}

// BenchmarkCRC32C times every CRC32C path, hash/crc32 being "generic", at
// a few sizes of a Flight block, and the folds from their smallest input
// ("-min"), which set the thresholds. Run the binary several times in turn and
// compare with benchstat for interleaved figures.
func BenchmarkCRC32C(b *testing.B) {
	for _, n := range []int{64, 128, 192, 256, 512, 1 << 10, 16 << 10, 256 << 10, 4 << 20} {
		buf := make([]byte, n)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range buf {
			buf[i] = byte(r.Uint32())
		}
		for _, im := range slices.Concat(crcImpls, crcTestImpls) {
			b.Run(fmt.Sprintf("bytes=%d/path=%s", n, im.name), func(b *testing.B) {
				b.SetBytes(int64(n))
				crc := uint32(0)
				for b.Loop() {
					crc = im.update(crc, buf)
				}
			})
		}
	}
}

// BenchmarkCRC32CInterleaved times every CRC32C path at each size in turns
// a few microseconds apart, so that all meet the same load on a shared
// machine: each b.N round times about 256 KiB (at least one call) of each
// path, in a rotating order. It reports each path's median GB/s and the
// median and quartiles of the per-round ratio of its speed to
// hash/crc32's ("generic"). ns/op is the time of a whole round.
func BenchmarkCRC32CInterleaved(b *testing.B) {
	for _, n := range []int{1 << 10, 16 << 10, 256 << 10, 4 << 20} {
		buf := make([]byte, n)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range buf {
			buf[i] = byte(r.Uint32())
		}
		b.Run(fmt.Sprintf("bytes=%d", n), func(b *testing.B) {
			k := max(1, (256<<10)/n)
			paths := crcImpls
			gbs := make([][]float64, len(paths))
			ratio := make([][]float64, len(paths))
			crc := uint32(0)
			round := 0
			for b.Loop() {
				t := make([]float64, len(paths))
				for j := range paths {
					p := (j + round) % len(paths)
					start := time.Now()
					for range k {
						crc = paths[p].update(crc, buf)
					}
					t[p] = float64(time.Since(start).Nanoseconds())
					gbs[p] = append(gbs[p], float64(k*n)/t[p])
				}
				for p := range paths {
					ratio[p] = append(ratio[p], t[0]/t[p])
				}
				round++
			}
			sinkU64 = uint64(crc)
			for p, im := range paths {
				b.ReportMetric(quantile(gbs[p], 0.5), im.name+"-GB/s")
				if p > 0 {
					b.ReportMetric(quantile(ratio[p], 0.25), im.name+"/generic-q1")
					b.ReportMetric(quantile(ratio[p], 0.5), im.name+"/generic")
					b.ReportMetric(quantile(ratio[p], 0.75), im.name+"/generic-q3")
				}
			}
		})
	}
}

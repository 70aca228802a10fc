package arrowpack

import (
	"fmt"
	"math"
	"testing"
)

// The ALP kernels' cases for kernels_harness_test.go: k picks the pair of
// powers of ten; the values are small (the vector paths' fast domain), of
// every magnitude, and the extremes of the type at a few places.

// alpPairs returns the pairs tried at length n: two, rotating with n.
func alpPairs(n int) []int { return []int{n % len(alpPow), (n + 3) % len(alpPow)} }

var alpPow = []struct{ f, e float64 }{{1, 1}, {1, 0.01}, {10, 1e-5}, {1000, 1e-18}, {1, 1e-9}, {100, 1e-2}, {1e6, 1e-10}, {1, 0.1}}

func alpDef64(v int64, f, e float64) float64 { return float64(float64(v)*f) * e }

func alpDef32(v int32, f, e float32) float32 { return float32(float32(v)*f) * e }

func alp64Case() *kcase {
	return &kcase{name: "alp64", elem: 8, ks: len(alpPow), slots: 2, kAt: alpPairs, run: func(im *impl, in *kin) error {
		n, p := in.n, alpPow[in.k]
		src := take[int64](in, 0, n)
		dst := take[float64](in, 1, n)
		check := func(what string) error {
			im.alp64(dst, src, p.f, p.e)
			for i, v := range src {
				if want := alpDef64(v, p.f, p.e); math.Float64bits(dst[i]) != math.Float64bits(want) {
					return fmt.Errorf("%s: %d -> %v, want %v", what, v, dst[i], want)
				}
			}
			return nil
		}
		for i := range src {
			src[i] = int64(value[uint64](in.g)) >> (13 + in.g.intn(50))
		}
		if err := check("small"); err != nil {
			return err
		}
		for _, q := range positions(in.g, n) {
			old := src[q]
			for _, v := range []int64{1 << 51, -1 << 51, 1<<51 - 1, -(1<<51 - 1), 1<<53 + 1, math.MaxInt64, math.MinInt64, -1} {
				src[q] = v
				if err := check(fmt.Sprintf("%d at %d", v, q)); err != nil {
					return err
				}
			}
			src[q] = old
		}
		fill(in.g, src)
		return check("random")
	}}
}

func alp32Case() *kcase {
	return &kcase{name: "alp32", elem: 4, ks: len(alpPow), slots: 2, kAt: alpPairs, run: func(im *impl, in *kin) error {
		n, p := in.n, alpPow[in.k]
		f, e := float32(p.f), float32(p.e)
		src := take[int32](in, 0, n)
		dst := take[float32](in, 1, n)
		check := func(what string) error {
			im.alp32(dst, src, f, e)
			for i, v := range src {
				if want := alpDef32(v, f, e); math.Float32bits(dst[i]) != math.Float32bits(want) {
					return fmt.Errorf("%s: %d -> %v, want %v", what, v, dst[i], want)
				}
			}
			return nil
		}
		fill(in.g, src)
		if err := check("random"); err != nil {
			return err
		}
		for i := range src {
			src[i] >>= 8 + in.g.intn(24)
		}
		return check("small")
	}}
}

func TestALPDecodeExported(t *testing.T) {
	src := []int64{12345, -7, 0, 1 << 52, math.MinInt64}
	dst := make([]float64, len(src)+1)
	dst[len(src)] = 42
	ALPDecode64(dst, src, 1, 0.01)
	for i, v := range src {
		if dst[i] != float64(v)*0.01 {
			t.Errorf("ALPDecode64(%d) = %v", v, dst[i])
		}
	}
	if dst[len(src)] != 42 {
		t.Errorf("ALPDecode64 wrote past len(src)")
	}
	d32 := make([]float32, 2)
	ALPDecode32(d32, []int32{250, -3}, 1, 0.1)
	if d32[0] != 25 || d32[1] != float32(-3)*float32(0.1) {
		t.Errorf("ALPDecode32 = %v", d32)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("ALPDecode64 with a short dst did not panic")
		}
	}()
	ALPDecode64(dst[:2], src, 1, 1)
}

package arrowpack

import (
	"fmt"
	"math"
	"testing"
	"unsafe"
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
		// The vector paths decide per vector: a few places cover the
		// first, a middle and the last one.
		var places []int
		if n > 0 {
			places = []int{0, n / 2, n - 1, in.g.intn(n)}
		}
		for _, q := range places {
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
		if err := check("random"); err != nil {
			return err
		}
		// In place: dst's memory holds the integers.
		if n > 0 {
			ints := unsafe.Slice((*int64)(unsafe.Pointer(&dst[0])), n)
			copy(ints, src)
			im.alp64(dst, ints, p.f, p.e)
			for i, v := range src {
				if want := alpDef64(v, p.f, p.e); math.Float64bits(dst[i]) != math.Float64bits(want) {
					return fmt.Errorf("in place: %d -> %v, want %v", v, dst[i], want)
				}
			}
		}
		return nil
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
		if err := check("small"); err != nil {
			return err
		}
		if n > 0 {
			ints := unsafe.Slice((*int32)(unsafe.Pointer(&dst[0])), n)
			copy(ints, src)
			im.alp32(dst, ints, f, e)
			for i, v := range src {
				if want := alpDef32(v, f, e); math.Float32bits(dst[i]) != math.Float32bits(want) {
					return fmt.Errorf("in place: %d -> %v, want %v", v, dst[i], want)
				}
			}
		}
		return nil
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
	in := []int64{5, -5, 1 << 60, 7}
	out := unsafe.Slice((*float64)(unsafe.Pointer(&in[0])), len(in))
	ALPDecode64(out, in, 1, 0.1)
	if out[0] != 0.5 || out[1] != -0.5 || out[2] != float64(int64(1<<60))*0.1 || out[3] != float64(7)*0.1 {
		t.Errorf("ALPDecode64 in place = %v", out)
	}
	for _, c := range []struct {
		what string
		f    func()
	}{
		{"short dst", func() { ALPDecode64(dst[:2], src, 1, 1) }},
		{"shifted overlap", func() { ALPDecode64(out[1:], in[:2], 1, 1) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ALPDecode64 with a %s did not panic", c.what)
				}
			}()
			c.f()
		}()
	}
}

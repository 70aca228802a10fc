package arrowpack

import (
	"fmt"
	"slices"
	"unsafe"
)

// The min/max kernels' cases for kernels_harness_test.go.

func minmaxCase[T uint32 | uint64 | int32 | int64](name string, kernel func(*impl) func([]T) (T, T)) *kcase {
	var zero T
	size := int(unsafe.Sizeof(zero))
	return &kcase{name: name, elem: size, ks: 1, slots: 1, run: func(im *impl, in *kin) error {
		f, n := kernel(im), in.n
		x := take[T](in, 0, n)
		check := func(what string) error {
			orig := slices.Clone(x)
			var wlo, whi T
			if n > 0 {
				wlo, whi = slices.Min(x), slices.Max(x)
			}
			if lo, hi := f(x); lo != wlo || hi != whi {
				return fmt.Errorf("%s: got (%#x, %#x), want (%#x, %#x)", what, lo, hi, wlo, whi)
			}
			if !slices.Equal(x, orig) {
				return fmt.Errorf("%s: input modified", what)
			}
			return nil
		}
		fill(in.g, x)
		if err := check("random"); err != nil {
			return err
		}
		// A narrow range, then the extremes of the type (and of the other
		// signedness) at a few places.
		for i := range x {
			x[i] = x[i]>>(8*size-6) + 20
		}
		if err := check("narrow"); err != nil {
			return err
		}
		one := T(1)
		top := one<<(8*size-1) - 1 // the signed maximum
		for _, p := range positions(in.g, n) {
			old := x[p]
			for _, v := range []T{0, top, top + 1, ^T(0), 19, 21} {
				x[p] = v
				if err := check(fmt.Sprintf("%#x at %d", v, p)); err != nil {
					return err
				}
			}
			x[p] = old
		}
		return nil
	}}
}

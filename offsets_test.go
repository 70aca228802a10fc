package arrowpack

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// Cases of the offsets kernels (rebase, nondecreasing and ValidOffsets)
// for the harness in kernels_harness_test.go, and tests of their exported
// API's argument checks.

func randOffsets32(r *rand.Rand, n int) []int32 {
	o := make([]int32, n)
	v := int32(r.IntN(100))
	for i := range o {
		o[i] = v
		v += int32(r.IntN(20))
	}
	return o
}

func randOffsets64(r *rand.Rand, n int) []int64 {
	o := make([]int64, n)
	v := int64(r.IntN(100)) << 33
	for i := range o {
		o[i] = v
		v += int64(r.IntN(20)) << r.IntN(34)
	}
	return o
}

func bitsOf[T offset]() int {
	var zero T
	return 8 * int(unsafe.Sizeof(zero))
}

// maxOf and minOf are T's largest and smallest values.
func maxOf[T offset]() T { return T(uint64(1)<<(bitsOf[T]()-1) - 1) }
func minOf[T offset]() T { return -maxOf[T]() - 1 }

func rebaseCase[T offset](name string, kernel func(*impl) func(dst, src []T, base T)) *kcase {
	return &kcase{name: name, elem: bitsOf[T]() / 8, ks: 1, slots: 2, run: func(im *impl, in *kin) error {
		f, n := kernel(im), in.n
		src := take[T](in, 0, n)
		fill(in.g, src)
		base := value[T](in.g)
		want := make([]T, n)
		for i, v := range src {
			want[i] = v - base
		}
		dst := take[T](in, 1, n)
		f(dst, src, base)
		if !slices.Equal(dst, want) {
			return fmt.Errorf("dst[i] != src[i]-base")
		}
		f(src, src, base)
		if !slices.Equal(src, want) {
			return fmt.Errorf("in place, x[i] != x[i]-base")
		}
		return nil
	}}
}

// Offsets for ValidOffsets are made from one byte each so that they are
// mostly valid: each the previous plus a small step, so that the kernels
// scan the whole input. The low bits of a first byte, mode, turn on
// escapes (in a quarter of the inputs) that break the order:
//
//	0x00..0xfb  step up by b<<shift
//	0xfc        step down by 1
//	0xfd        step down by 1<<shift
//	0xfe        jump to the largest value
//	0xff        jump to the smallest value (x - prev overflows there)
//
// The other bits of mode give shift, so that 64-bit steps can be large. A
// step past the largest value wraps around, which is a decrease too.
const (
	escStepDown      = 0xfc
	escStepDownShift = 0xfd
	escMax           = 0xfe
	escMin           = 0xff
)

func genOffsets[T offset](g *gen, o []T) {
	mode := g.byte()
	escapes, shift := mode&3 == 1, uint(mode>>2)%uint(bitsOf[T]()-8)
	v := T(g.byte())
	for i := range o {
		switch b := g.byte(); {
		case !escapes || b < escStepDown:
			if i > 0 {
				v += T(b) << shift
			}
		case b == escStepDown:
			v--
		case b == escStepDownShift:
			v -= 1 << shift
		case b == escMax:
			v = maxOf[T]()
		case b == escMin:
			v = minOf[T]()
		}
		o[i] = v
	}
}

func nondecreasingDef[T offset](x []T) bool {
	for i := 1; i < len(x); i++ {
		if x[i] < x[i-1] {
			return false
		}
	}
	return true
}

func validOffsetsDef[T offset](o []T, limit T) bool {
	return len(o) == 0 || o[0] >= 0 && o[len(o)-1] <= limit && nondecreasingDef(o)
}

// validOffsetsCase checks nondecreasing and ValidOffsets on offsets as
// made, at limits around the last offset, with a negative first offset,
// with a decrease (by one, and to the smallest value) at every position of
// short inputs and at the edges of long ones, and with steps from the
// smallest to the largest value and back.
func validOffsetsCase[T offset](name string, valid func(*impl, []T, T) bool, nondecreasing func(*impl) func([]T) bool) *kcase {
	return &kcase{name: name, elem: bitsOf[T]() / 8, ks: 1, slots: 1, run: func(im *impl, in *kin) error {
		n := in.n
		o := take[T](in, 0, n)
		genOffsets(in.g, o)
		check := func(what string, limit T) error {
			if got, want := nondecreasing(im)(o), nondecreasingDef(o); got != want {
				return fmt.Errorf("%s: nondecreasing = %v, want %v", what, got, want)
			}
			if got, want := valid(im, o, limit), validOffsetsDef(o, limit); got != want {
				return fmt.Errorf("%s: ValidOffsets(limit %d) = %v, want %v", what, limit, got, want)
			}
			return nil
		}
		last := T(0)
		if n > 0 {
			last = o[n-1]
		}
		slack := T(int8(in.g.byte()))
		for _, l := range []T{last, last + slack, last - 1} {
			if err := check("as made", l); err != nil {
				return err
			}
		}
		if n == 0 {
			return nil
		}
		first := o[0]
		o[0] = -1
		if err := check("negative first", last); err != nil {
			return err
		}
		o[0] = first
		for _, p := range positions(in.g, n) {
			if p == 0 {
				continue
			}
			old := o[p]
			for _, v := range []T{o[p-1] - 1, minOf[T]()} {
				o[p] = v
				if err := check(fmt.Sprintf("%d at %d", v, p), maxOf[T]()); err != nil {
					return err
				}
			}
			o[p] = old
		}
		if n >= 2 {
			for i := range o {
				o[i] = minOf[T]()
				if i >= n/2 {
					o[i] = maxOf[T]()
				}
			}
			if err := check("min..max step", maxOf[T]()); err != nil {
				return err
			}
			o[n/2], o[n/2-1] = o[n/2-1], o[n/2]
			if err := check("max..min step", maxOf[T]()); err != nil {
				return err
			}
		}
		return nil
	}}
}

func TestRebaseOffsetsPanicsOnShortDst(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("RebaseOffsets32 with a short dst did not panic")
		}
	}()
	RebaseOffsets32(make([]int32, 3), make([]int32, 4), 0)
}

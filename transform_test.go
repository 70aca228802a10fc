package arrowpack

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/arrowpack/arrowpack/internal/plain"
)

// Cases of the transform kernels (byte transpositions, OffsetsToLengths,
// LengthsToOffsets) for the harness in kernels_harness_test.go, and tests
// of their exported API's argument checks.

var transposeWidths = []int{2, 4, 8, 16}

// transpositionCase checks transpose (or untranspose, if inverse) of n
// values of width transposeWidths[k] against its definition, and that the
// other direction takes the result back.
func transpositionCase(name string, inverse bool) *kcase {
	return &kcase{name: name, elem: 1, ks: len(transposeWidths), aligns: 16, slots: 2, run: func(im *impl, in *kin) error {
		width := transposeWidths[in.k]
		run, back, def, backDef := transposeBytes, untransposeBytes, plain.Transpose, plain.Untranspose
		if inverse {
			run, back, def, backDef = untransposeBytes, transposeBytes, plain.Untranspose, plain.Transpose
		}
		src := take[byte](in, 0, in.n*width)
		fill(in.g, src)
		orig := slices.Clone(src)
		dst := take[byte](in, 1, in.n*width)
		run(im, dst, src, width)
		want := def(orig, width)
		if !bytes.Equal(backDef(want, width), orig) {
			return fmt.Errorf("width %d: the definitions are not inverses", width)
		}
		if !bytes.Equal(dst, want) {
			return fmt.Errorf("width %d: differs from the definition", width)
		}
		again := take[byte](in, 0, in.n*width)
		back(im, again, dst, width)
		if !bytes.Equal(again, orig) {
			return fmt.Errorf("width %d: the inverse does not take the result back", width)
		}
		return nil
	}}
}

// offsetsToLengthsCase checks OffsetsToLengths on offsets that are valid
// or any values at all (the differences wrap), into dst and in place.
func offsetsToLengthsCase[T offset](name string, kernel func(im *impl, dst, offsets []T)) *kcase {
	return &kcase{name: name, elem: bitsOf[T]() / 8, ks: 1, slots: 2, run: func(im *impl, in *kin) error {
		n := in.n
		m := max(n-1, 0)
		o := take[T](in, 0, n)
		if in.g.byte()&1 == 0 {
			genOffsets(in.g, o)
		} else {
			fill(in.g, o)
		}
		want := make([]T, m)
		for i := range want {
			want[i] = o[i+1] - o[i]
		}
		dst := take[T](in, 1, m)
		kernel(im, dst, o)
		if !slices.Equal(dst, want) {
			return fmt.Errorf("lengths differ from the definition")
		}
		orig := slices.Clone(o)
		kernel(im, o, o)
		if !slices.Equal(o[:m], want) || n > 0 && o[m] != orig[m] {
			return fmt.Errorf("in place, lengths differ or the last offset changed")
		}
		return nil
	}}
}

// lengthsToOffsetsDef is the plain definition of LengthsToOffsets' result,
// computed without any overflow: it reports whether every length is >= 0
// and every running total <= limit.
func lengthsToOffsetsDef[T offset](lengths []T, limit T) ([]T, bool) {
	o := make([]T, len(lengths)+1)
	if limit < 0 {
		return o, false
	}
	var s T
	for i, l := range lengths {
		// 0 <= s <= limit, so limit-s does not overflow.
		if l < 0 || l > limit-s {
			return o, false
		}
		s += l
		o[i+1] = s
	}
	return o, true
}

// Lengths for LengthsToOffsets are made from one byte each so that they
// are mostly valid, with escapes (on in a quarter of the inputs) that try
// the validation:
//
//	0x00..0xfa  the byte, shifted left by shift
//	0xfb        half the largest value + 1: two of them pass the largest value
//	0xfc        the largest value: two of them wrap round to -2
//	0xfd        -1
//	0xfe        the smallest value
//	0xff        the largest value less the total so far: the total is exactly the largest value
const (
	escHalf     = 0xfb
	escLargest  = 0xfc
	escMinusOne = 0xfd
	escSmallest = 0xfe
	escFill     = 0xff
)

func genLengths[T offset](g *gen, l []T) {
	mode := g.byte()
	escapes, shift := mode&3 == 1, uint(mode>>2)%uint(bitsOf[T]()-8)
	var total T // of the non-negative lengths, saturated
	for i := range l {
		b := g.byte()
		v := T(b) << shift
		if escapes {
			switch b {
			case escHalf:
				v = T(1) << (bitsOf[T]() - 2)
			case escLargest:
				v = maxOf[T]()
			case escMinusOne:
				v = -1
			case escSmallest:
				v = minOf[T]()
			case escFill:
				v = maxOf[T]() - total
			}
		}
		l[i] = v
		total = satAdd(total, v)
	}
}

// satAdd returns total+v for v >= 0, saturated at the largest value, and
// total for v < 0.
func satAdd[T offset](total, v T) T {
	if v < 0 {
		return total
	}
	if total > maxOf[T]()-v {
		return maxOf[T]()
	}
	return total + v
}

// lengthsToOffsetsCase checks LengthsToOffsets, into dst and in place, on
// lengths as made at limits around their total and a negative one; with a
// length of -1, the smallest and the largest value at every position of
// short inputs and at many of long ones (overflowPositions); and, at those
// positions,
// with totals that reach the largest value exactly, pass it by one, wrap
// round to a small value, wrap many times, and step over it in powers of
// two.
func lengthsToOffsetsCase[T offset](name string, kernel func(im *impl, dst, lengths []T, limit T) bool) *kcase {
	return &kcase{name: name, elem: bitsOf[T]() / 8, ks: 1, aligns: 2, slots: 2, run: func(im *impl, in *kin) error {
		n := in.n
		l := take[T](in, 0, n)
		genLengths(in.g, l)
		top := maxOf[T]()
		check := func(what string, limit T) error {
			want, wantOK := lengthsToOffsetsDef(l, limit)
			dst := take[T](in, 1, n+1)
			if ok := kernel(im, dst, l, limit); ok != wantOK || ok && !slices.Equal(dst, want) {
				return fmt.Errorf("%s, limit %d: got %v, want %v, or the offsets differ", what, limit, ok, wantOK)
			}
			// In place: the lengths one element into the offsets.
			dst = take[T](in, 1, n+1)
			copy(dst[1:], l)
			if ok := kernel(im, dst, dst[1:], limit); ok != wantOK || ok && !slices.Equal(dst, want) {
				return fmt.Errorf("%s, limit %d, in place: got %v, want %v, or the offsets differ", what, limit, ok, wantOK)
			}
			return nil
		}
		var total T
		for _, v := range l {
			total = satAdd(total, v)
		}
		slack := T(int8(in.g.byte()))
		for _, lim := range []T{total, satAdd(total, slack), satAdd(total, 3), total - 1, -1} {
			if err := check("as made", lim); err != nil {
				return err
			}
		}
		small := func() {
			for i := range l {
				l[i] = T(in.g.intn(3))
			}
		}
		for _, p := range overflowPositions(in.g, n) {
			small()
			for _, v := range []T{-1, minOf[T](), top} {
				l[p] = v
				if err := check(fmt.Sprintf("%d at %d", v, p), top); err != nil {
					return err
				}
			}
			// Just fits: the largest total there is; then one more
			// anywhere wraps to the smallest value.
			small()
			var rest T
			for i, v := range l {
				if i != p {
					rest += v
				}
			}
			l[p] = top - rest
			if err := check(fmt.Sprintf("total max, at %d", p), top); err != nil {
				return err
			}
			l[in.g.intn(n)]++
			if err := check(fmt.Sprintf("total max+1, at %d", p), top); err != nil {
				return err
			}
			// Two largest lengths sum to 2^w-2, a third takes the total
			// round to a small non-negative value.
			clear(l)
			l[p] = top
			if p+1 < n {
				l[p+1] = top
				if p+2 < n {
					l[p+2] = 5
				}
			} else if p > 0 {
				l[p-1] = top
			}
			if err := check(fmt.Sprintf("wrap round, at %d", p), top); err != nil {
				return err
			}
			// Powers of two: the total reaches 2^(w-1), the first value
			// past the largest, at the second length from p, and 2^w
			// (zero when wrapped) two after that.
			clear(l)
			for i := p; i < n && i < p+4; i++ {
				l[i] = T(1) << (bitsOf[T]() - 2)
			}
			if err := check(fmt.Sprintf("powers of two, at %d", p), top); err != nil {
				return err
			}
		}
		// Many large lengths: the total wraps several times.
		for i := range l {
			l[i] = top - T(in.g.intn(3))
		}
		return check("wrap often", top)
	}}
}

// overflowPositions returns where lengthsToOffsetsCase puts its large
// lengths: every position up to 140, every 13th and the last 20 (the tail
// after the vector blocks) up to 1024, else as positions does.
func overflowPositions(g *gen, n int) []int {
	if n <= 80 || n > 1024 {
		return positions(g, n)
	}
	var ps []int
	for p := range n {
		if n <= 140 || p%13 == 0 || p >= n-20 {
			ps = append(ps, p)
		}
	}
	return ps
}

func TestTransposeBytesPanics(t *testing.T) {
	buf := make([]byte, 64)
	cases := []struct {
		name     string
		dst, src []byte
		width    int
	}{
		{"width 3", make([]byte, 12), make([]byte, 12), 3},
		{"width 1", make([]byte, 12), make([]byte, 12), 1},
		{"width 32", make([]byte, 64), make([]byte, 64), 32},
		{"width 0", make([]byte, 12), make([]byte, 12), 0},
		{"ragged src", make([]byte, 16), make([]byte, 10), 4},
		{"short dst", make([]byte, 7), make([]byte, 8), 4},
		{"dst is src", buf[:32], buf[:32], 2},
		{"dst overlaps src", buf[8:40], buf[:32], 4},
		{"src overlaps dst", buf[:32], buf[31:63], 2},
	}
	for _, c := range cases {
		for _, fn := range []struct {
			name string
			f    func(dst, src []byte, width int)
		}{{"TransposeBytes", TransposeBytes}, {"UntransposeBytes", UntransposeBytes}} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s with %s did not panic", fn.name, c.name)
					}
				}()
				fn.f(c.dst, c.src, c.width)
			}()
		}
	}
	// Adjacent slices and a dst longer than src are fine; the bytes of dst
	// past len(src) stay as they are.
	dst := buf[32:64]
	for i := range dst {
		dst[i] = 0xee
	}
	TransposeBytes(dst, buf[:16], 8)
	UntransposeBytes(dst, buf[:16], 16)
	if dst[16] != 0xee || dst[31] != 0xee {
		t.Errorf("bytes of dst past len(src) changed")
	}
	TransposeBytes(nil, nil, 2)
}

func TestOffsetsToLengthsPanics(t *testing.T) {
	o := []int32{0, 1, 2, 3, 4, 5}
	o64 := []int64{0, 1, 2, 3, 4, 5}
	for name, f := range map[string]func(){
		"short dst":          func() { OffsetsToLengths32(make([]int32, 4), o) },
		"short dst 64":       func() { OffsetsToLengths64(make([]int64, 4), o64) },
		"dst at offsets[1:]": func() { b := slices.Clone(o); OffsetsToLengths32(b[1:], b) },
		"overlap 64":         func() { b := slices.Clone(o64); OffsetsToLengths64(b[1:], b) },
		"dst before offsets": func() { b := make([]int32, 12); OffsetsToLengths32(b[:8], b[3:9]) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	// Fewer than two offsets: nothing to do, any dst.
	OffsetsToLengths32(nil, nil)
	OffsetsToLengths32(nil, o[:1])
	OffsetsToLengths64(nil, o64[:1])
	// A longer dst: only dst[:len(offsets)-1] is written.
	dst := []int32{9, 9, 9, 9, 9, 9, 9}
	OffsetsToLengths32(dst, o)
	if !slices.Equal(dst, []int32{1, 1, 1, 1, 1, 9, 9}) {
		t.Errorf("OffsetsToLengths32 into a longer dst: %v", dst)
	}
}

func TestLengthsToOffsetsPanics(t *testing.T) {
	l := []int32{1, 2, 3}
	l64 := []int64{1, 2, 3}
	for name, f := range map[string]func(){
		"short dst":           func() { LengthsToOffsets32(make([]int32, 3), l, 100) },
		"short dst 64":        func() { LengthsToOffsets64(make([]int64, 3), l64, 100) },
		"empty lengths, nil":  func() { LengthsToOffsets32(nil, nil, 100) },
		"dst is lengths":      func() { b := []int32{1, 2, 3, 0}; LengthsToOffsets32(b, b[:3], 100) },
		"lengths at dst[2:]":  func() { b := make([]int64, 6); LengthsToOffsets64(b[:4], b[2:5], 100) },
		"lengths end at dst0": func() { b := make([]int32, 6); LengthsToOffsets32(b[2:6], b[:3], 100) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	// No lengths: dst[0] = 0, valid for any limit >= 0.
	d := []int32{7, 7}
	if !LengthsToOffsets32(d, nil, 0) || d[0] != 0 || d[1] != 7 {
		t.Errorf("LengthsToOffsets32 of no lengths: %v", d)
	}
	if LengthsToOffsets64(make([]int64, 1), nil, -1) {
		t.Errorf("LengthsToOffsets64 of no lengths accepted a negative limit")
	}
	// The round trip in place: lengths in b[:4], moved one up, offsets.
	o := []int64{0, 3, 3, 10, 12}
	b := slices.Clone(o)
	OffsetsToLengths64(b, b)
	copy(b[1:], b[:4])
	if !LengthsToOffsets64(b, b[1:], 12) || !slices.Equal(b, o) {
		t.Errorf("round trip in place: %v", b)
	}
}

package arrowpack

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Every implementation this machine supports is compared with the generic
// one; the generic one is also checked against plain definitions.

// testLengths are the lengths every kernel test runs: 0..300 and a few large
// odd ones that cross many vector blocks and end in a ragged tail.
func testLengths() []int {
	var ls []int
	for n := 0; n <= 300; n++ {
		ls = append(ls, n)
	}
	return append(ls, 1023, 4097, 65537)
}

func vectorImpls(t *testing.T) []*impl {
	t.Helper()
	if len(impls) == 1 {
		t.Logf("only the generic path runs on this machine")
	}
	return impls
}

func TestImplementationName(t *testing.T) {
	switch Implementation() {
	case "avx2", "neon", "generic":
	default:
		t.Fatalf("Implementation() = %q", Implementation())
	}
	if active != impls[len(impls)-1] {
		t.Fatalf("active path %q is not the best supported one", active.name)
	}
}

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

func TestRebaseOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const guard = 0x5a
	for _, im := range vectorImpls(t) {
		for _, n := range testLengths() {
			for align := 0; align < 8; align++ {
				src32 := randOffsets32(r, n+align)[align:]
				src64 := randOffsets64(r, n+align)[align:]
				base32, base64 := int32(r.Int32()), r.Int64()
				// dst with guard elements around it.
				buf32 := make([]int32, n+align+2)
				buf64 := make([]int64, n+align+2)
				for i := range buf32 {
					buf32[i], buf64[i] = guard, guard
				}
				dst32 := buf32[align+1 : align+1+n]
				dst64 := buf64[align+1 : align+1+n]
				im.rebase32(dst32, src32, base32)
				im.rebase64(dst64, src64, base64)
				for i := range n {
					if dst32[i] != src32[i]-base32 || dst64[i] != src64[i]-base64 {
						t.Fatalf("%s n=%d align=%d: wrong value at %d", im.name, n, align, i)
					}
				}
				if buf32[align] != guard || buf32[align+1+n] != guard || buf64[align] != guard || buf64[align+1+n] != guard {
					t.Fatalf("%s n=%d align=%d: guard element overwritten", im.name, n, align)
				}
				// In place.
				want := slices.Clone(src32)
				rebaseGeneric(want, want, base32)
				im.rebase32(src32, src32, base32)
				if !slices.Equal(src32, want) {
					t.Fatalf("%s n=%d: in-place rebase32 differs", im.name, n)
				}
				want64 := slices.Clone(src64)
				rebaseGeneric(want64, want64, base64)
				im.rebase64(src64, src64, base64)
				if !slices.Equal(src64, want64) {
					t.Fatalf("%s n=%d: in-place rebase64 differs", im.name, n)
				}
			}
		}
	}
}

func TestRebaseOffsetsPanicsOnShortDst(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("RebaseOffsets32 with a short dst did not panic")
		}
	}()
	RebaseOffsets32(make([]int32, 3), make([]int32, 4), 0)
}

func TestValidOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, im := range vectorImpls(t) {
		for _, n := range testLengths() {
			for align := 0; align < 8; align += 3 {
				o32 := randOffsets32(r, n+align)[align:]
				o64 := randOffsets64(r, n+align)[align:]
				check := func(what string, want bool) {
					t.Helper()
					var lim32 int32
					var lim64 int64
					if n > 0 {
						lim32, lim64 = o32[n-1], o64[n-1]
					}
					if got := validOffsets32(im, o32, lim32); got != want {
						t.Fatalf("%s n=%d %s: ValidOffsets32 = %v, want %v", im.name, n, what, got, want)
					}
					if got := validOffsets64(im, o64, lim64); got != want {
						t.Fatalf("%s n=%d %s: ValidOffsets64 = %v, want %v", im.name, n, what, got, want)
					}
				}
				check("valid", true)
				if n == 0 {
					continue
				}
				// The limit one below the last offset.
				if validOffsets32(im, o32, o32[n-1]-1) || validOffsets64(im, o64, o64[n-1]-1) {
					t.Fatalf("%s n=%d: limit below the last offset accepted", im.name, n)
				}
				// A negative first offset.
				s32, s64 := o32[0], o64[0]
				o32[0], o64[0] = -1, -1
				check("negative first", false)
				o32[0], o64[0] = s32, s64
				if n < 2 {
					continue
				}
				// A decrease at the first, a middle and the last position, and
				// at every position for short inputs.
				positions := []int{1, n / 2, n - 1, r.IntN(n-1) + 1}
				if n <= 80 {
					positions = positions[:0]
					for p := 1; p < n; p++ {
						positions = append(positions, p)
					}
				}
				for _, p := range positions {
					if p == 0 {
						continue
					}
					s32, s64 := o32[p], o64[p]
					o32[p], o64[p] = o32[p-1]-1, o64[p-1]-1
					check("decrease", false)
					// A drop to a large negative value, where a subtraction
					// would overflow.
					o32[p], o64[p] = -1<<31, -1<<63
					check("decrease to min", false)
					o32[p], o64[p] = s32, s64
				}
				check("restored", true)
			}
		}
	}
}

func TestNondecreasingExtremes(t *testing.T) {
	for _, im := range vectorImpls(t) {
		for _, n := range []int{64, 65, 100, 257} {
			x32 := make([]int32, n)
			x64 := make([]int64, n)
			for i := range n {
				x32[i] = -1 << 31
				x64[i] = -1 << 63
				if i >= n/2 {
					x32[i] = 1<<31 - 1
					x64[i] = 1<<63 - 1
				}
			}
			if !im.nondecreasing32(x32) || !im.nondecreasing64(x64) {
				t.Fatalf("%s n=%d: min..max step refused", im.name, n)
			}
			x32[n/2], x64[n/2] = x32[n/2-1], x64[n/2-1]
			x32[n/2-1], x64[n/2-1] = 1<<31-1, 1<<63-1
			if im.nondecreasing32(x32) || im.nondecreasing64(x64) {
				t.Fatalf("%s n=%d: max..min step accepted", im.name, n)
			}
		}
	}
}

// bitAt is the plain definition of Arrow's LSB-first bit order.
func bitAt(b []byte, i int) bool { return b[i>>3]>>(i&7)&1 == 1 }

func TestCopyBits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const guard = 0xa5
	for _, im := range vectorImpls(t) {
		for _, n := range testLengths() {
			for off := 0; off < 64; off++ {
				if n > 300 && off%7 != 3 && off != 0 {
					continue
				}
				srcEnd := (off + n + 7) / 8
				align := r.IntN(8)
				src := make([]byte, align+srcEnd)[align:]
				for i := range src {
					src[i] = byte(r.Uint32())
				}
				nb := (n + 7) / 8
				buf := make([]byte, nb+align+2)
				for i := range buf {
					buf[i] = guard
				}
				dst := buf[align+1 : align+1+nb]
				copyBits(im, dst, src, off, n)
				for i := range n {
					if bitAt(dst, i) != bitAt(src, off+i) {
						t.Fatalf("%s n=%d off=%d: bit %d differs", im.name, n, off, i)
					}
				}
				if n&7 != 0 && dst[nb-1]>>(n&7) != 0 {
					t.Fatalf("%s n=%d off=%d: high bits of the last byte not cleared", im.name, n, off)
				}
				if buf[align] != guard || buf[align+1+nb] != guard {
					t.Fatalf("%s n=%d off=%d: byte outside dst touched", im.name, n, off)
				}
			}
		}
	}
}

func TestCountOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, im := range vectorImpls(t) {
		for _, n := range testLengths() {
			for off := 0; off < 64; off++ {
				if n > 300 && off%5 != 2 && off != 0 {
					continue
				}
				align := r.IntN(8)
				b := make([]byte, align+(off+n+7)/8)[align:]
				for i := range b {
					b[i] = byte(r.Uint32())
				}
				want := 0
				for i := range n {
					if bitAt(b, off+i) {
						want++
					}
				}
				if got := countOnes(im, b, off, n); got != want {
					t.Fatalf("%s n=%d off=%d: CountOnes = %d, want %d", im.name, n, off, got, want)
				}
			}
		}
		all := make([]byte, 9000)
		for i := range all {
			all[i] = 0xff
		}
		if got := countOnes(im, all, 3, 71990); got != 71990 {
			t.Fatalf("%s: all ones counted %d", im.name, got)
		}
	}
}

// transposeDef and untransposeDef are the plain definitions of the byte
// transpositions.
func transposeDef(src []byte, width int) []byte {
	n := len(src) / width
	dst := make([]byte, len(src))
	for i := range n {
		for j := range width {
			dst[j*n+i] = src[i*width+j]
		}
	}
	return dst
}

func untransposeDef(src []byte, width int) []byte {
	n := len(src) / width
	dst := make([]byte, len(src))
	for i := range n {
		for j := range width {
			dst[i*width+j] = src[j*n+i]
		}
	}
	return dst
}

var transposeWidths = []int{2, 4, 8, 16}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// withGuards returns a slice of n bytes starting align bytes into an
// allocation, between guard bytes, and a function that reports whether the
// guard bytes are intact.
func withGuards(n, align int, guard byte) ([]byte, func() bool) {
	const pad = 40
	buf := make([]byte, align+n+2*pad)
	for i := range buf {
		buf[i] = guard
	}
	b := buf[align+pad : align+pad+n : align+pad+n]
	return b, func() bool {
		for i, v := range buf {
			if (i < align+pad || i >= align+pad+n) && v != guard {
				return false
			}
		}
		return true
	}
}

func TestTransposeBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const guard = 0xa5
	for _, im := range vectorImpls(t) {
		for _, width := range transposeWidths {
			for _, n := range testLengths() {
				aligns := 32
				if n > 300 {
					aligns = 3
				}
				for a := range aligns {
					srcAlign, dstAlign := a, (a*7+n)%32
					src := append(make([]byte, srcAlign), randBytes(r, n*width)...)[srcAlign:]
					want := transposeDef(src, width)

					dst, intact := withGuards(n*width, dstAlign, guard)
					im.transpose(dst, src, width)
					if !bytes.Equal(dst, want) {
						t.Fatalf("%s width=%d n=%d align=%d/%d: transpose differs from the definition", im.name, width, n, srcAlign, dstAlign)
					}
					if !intact() {
						t.Fatalf("%s width=%d n=%d align=%d/%d: transpose wrote outside dst", im.name, width, n, srcAlign, dstAlign)
					}

					back, intact := withGuards(n*width, srcAlign, guard)
					im.untranspose(back, dst, width)
					if !bytes.Equal(back, src) {
						t.Fatalf("%s width=%d n=%d align=%d/%d: untranspose does not invert transpose", im.name, width, n, dstAlign, srcAlign)
					}
					if !intact() {
						t.Fatalf("%s width=%d n=%d align=%d/%d: untranspose wrote outside dst", im.name, width, n, dstAlign, srcAlign)
					}
					// untranspose on its own, of random planes.
					planes := randBytes(r, n*width)
					im.untranspose(back, planes, width)
					if !bytes.Equal(back, untransposeDef(planes, width)) {
						t.Fatalf("%s width=%d n=%d: untranspose differs from the definition", im.name, width, n)
					}
				}
			}
		}
	}
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

// randWrapping32 returns n values of all sizes: offsets that decrease and
// wrap are not the transforms' business, which only subtract and add.
func randWrapping32(r *rand.Rand, n int) []int32 {
	x := make([]int32, n)
	for i := range x {
		switch r.IntN(4) {
		case 0:
			x[i] = int32(r.Uint32())
		default:
			x[i] = int32(r.IntN(1000))
		}
	}
	return x
}

func randWrapping64(r *rand.Rand, n int) []int64 {
	x := make([]int64, n)
	for i := range x {
		switch r.IntN(4) {
		case 0:
			x[i] = int64(r.Uint64())
		default:
			x[i] = int64(r.IntN(1000))
		}
	}
	return x
}

func TestOffsetsToLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const guard = 0x5a
	for _, im := range vectorImpls(t) {
		for _, n := range testLengths() {
			for align := range 8 {
				var o32 []int32
				var o64 []int64
				if n%2 == 0 {
					o32, o64 = randOffsets32(r, n+align)[align:], randOffsets64(r, n+align)[align:]
				} else {
					o32, o64 = randWrapping32(r, n+align)[align:], randWrapping64(r, n+align)[align:]
				}
				m := max(n-1, 0)
				want32, want64 := make([]int32, m), make([]int64, m)
				for i := range m {
					want32[i], want64[i] = o32[i+1]-o32[i], o64[i+1]-o64[i]
				}
				// dst at another alignment, between guard elements.
				da := (align*3 + n) % 8
				buf32, buf64 := make([]int32, m+da+2), make([]int64, m+da+2)
				for i := range buf32 {
					buf32[i], buf64[i] = guard, guard
				}
				dst32, dst64 := buf32[da+1:da+1+m], buf64[da+1:da+1+m]
				offsetsToLengths32(im, dst32, o32)
				offsetsToLengths64(im, dst64, o64)
				if !slices.Equal(dst32, want32) || !slices.Equal(dst64, want64) {
					t.Fatalf("%s n=%d align=%d: lengths differ from the definition", im.name, n, align)
				}
				if buf32[da] != guard || buf32[da+1+m] != guard || buf64[da] != guard || buf64[da+1+m] != guard {
					t.Fatalf("%s n=%d align=%d: guard element overwritten", im.name, n, align)
				}
				// In place: the lengths land in o[:n-1], o[n-1] stays.
				in32, in64 := slices.Clone(o32), slices.Clone(o64)
				offsetsToLengths32(im, in32, in32)
				offsetsToLengths64(im, in64, in64)
				if !slices.Equal(in32[:m], want32) || !slices.Equal(in64[:m], want64) {
					t.Fatalf("%s n=%d: in-place lengths differ", im.name, n)
				}
				if n > 0 && (in32[n-1] != o32[n-1] || in64[n-1] != o64[n-1]) {
					t.Fatalf("%s n=%d: in place, the last offset changed", im.name, n)
				}
			}
		}
	}
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

// lengthsToOffsetsDef is the plain definition of LengthsToOffsets' result,
// computed without any overflow: it reports whether every length is >= 0
// and every running total <= limit.
func lengthsToOffsets32Def(lengths []int32, limit int32) ([]int32, bool) {
	o := make([]int32, len(lengths)+1)
	if limit < 0 {
		return o, false
	}
	var s int64
	for i, l := range lengths {
		if l < 0 {
			return o, false
		}
		s += int64(l)
		if s > int64(limit) {
			return o, false
		}
		o[i+1] = int32(s)
	}
	return o, true
}

func lengthsToOffsets64Def(lengths []int64, limit int64) ([]int64, bool) {
	o := make([]int64, len(lengths)+1)
	if limit < 0 {
		return o, false
	}
	// s <= limit < 1<<63 before each addition and l < 1<<63, so the
	// unsigned sum is exact.
	var s uint64
	for i, l := range lengths {
		if l < 0 {
			return o, false
		}
		s += uint64(l)
		if s > uint64(limit) {
			return o, false
		}
		o[i+1] = int64(s)
	}
	return o, true
}

// checkLengthsToOffsets runs LengthsToOffsets of every impl on lengths
// (into a fresh dst between guard elements and in place) and compares the
// results with the definition.
func checkLengthsToOffsets32(t *testing.T, what string, lengths []int32, limit int32) {
	t.Helper()
	want, wantOK := lengthsToOffsets32Def(lengths, limit)
	n := len(lengths)
	for _, im := range impls {
		const guard = 0x5a5a5a5a
		da := n % 8
		buf := make([]int32, n+1+da+2)
		for i := range buf {
			buf[i] = guard
		}
		dst := buf[da+1 : da+1+n+1]
		ok := lengthsToOffsets32(im, dst, lengths, limit)
		if ok != wantOK {
			t.Fatalf("%s %s n=%d limit=%d: LengthsToOffsets32 = %v, want %v", im.name, what, n, limit, ok, wantOK)
		}
		if ok && !slices.Equal(dst, want) {
			t.Fatalf("%s %s n=%d: offsets differ from the definition", im.name, what, n)
		}
		if buf[da] != guard || buf[da+n+2] != guard {
			t.Fatalf("%s %s n=%d: guard element overwritten", im.name, what, n)
		}
		// In place: the lengths one element into the offsets buffer.
		in := make([]int32, n+1)
		copy(in[1:], lengths)
		if got := lengthsToOffsets32(im, in, in[1:], limit); got != wantOK || got && !slices.Equal(in, want) {
			t.Fatalf("%s %s n=%d: in place, LengthsToOffsets32 = %v (want %v) or offsets differ", im.name, what, n, got, wantOK)
		}
	}
}

func checkLengthsToOffsets64(t *testing.T, what string, lengths []int64, limit int64) {
	t.Helper()
	want, wantOK := lengthsToOffsets64Def(lengths, limit)
	n := len(lengths)
	for _, im := range impls {
		const guard = 0x5a5a5a5a5a5a5a5a
		da := n % 8
		buf := make([]int64, n+1+da+2)
		for i := range buf {
			buf[i] = guard
		}
		dst := buf[da+1 : da+1+n+1]
		ok := lengthsToOffsets64(im, dst, lengths, limit)
		if ok != wantOK {
			t.Fatalf("%s %s n=%d limit=%d: LengthsToOffsets64 = %v, want %v", im.name, what, n, limit, ok, wantOK)
		}
		if ok && !slices.Equal(dst, want) {
			t.Fatalf("%s %s n=%d: offsets differ from the definition", im.name, what, n)
		}
		if buf[da] != guard || buf[da+n+2] != guard {
			t.Fatalf("%s %s n=%d: guard element overwritten", im.name, what, n)
		}
		in := make([]int64, n+1)
		copy(in[1:], lengths)
		if got := lengthsToOffsets64(im, in, in[1:], limit); got != wantOK || got && !slices.Equal(in, want) {
			t.Fatalf("%s %s n=%d: in place, LengthsToOffsets64 = %v (want %v) or offsets differ", im.name, what, n, got, wantOK)
		}
	}
}

func TestLengthsToOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, n := range testLengths() {
		for align := range 8 {
			l32 := make([]int32, n+align)[align:]
			l64 := make([]int64, n+align)[align:]
			var total32, total64 int64
			for i := range n {
				l32[i] = int32(r.IntN(50))
				l64[i] = int64(r.IntN(50)) << r.IntN(40)
				total32 += int64(l32[i])
				total64 += l64[i]
			}
			checkLengthsToOffsets32(t, "valid", l32, int32(total32))
			checkLengthsToOffsets64(t, "valid", l64, total64)
			checkLengthsToOffsets32(t, "valid, slack", l32, int32(total32)+3)
			checkLengthsToOffsets64(t, "valid, slack", l64, total64+3)
			checkLengthsToOffsets32(t, "limit one short", l32, int32(total32)-1)
			checkLengthsToOffsets64(t, "limit one short", l64, total64-1)
			checkLengthsToOffsets32(t, "negative limit", l32, -1)
			checkLengthsToOffsets64(t, "negative limit", l64, -1)
			if n == 0 || align != 0 {
				continue
			}
			// A negative length at the first, a middle and the last
			// position, or at every position for short inputs.
			positions := []int{0, n / 2, n - 1, r.IntN(n)}
			if n <= 80 {
				positions = positions[:0]
				for p := range n {
					positions = append(positions, p)
				}
			}
			for _, p := range positions {
				s32, s64 := l32[p], l64[p]
				l32[p], l64[p] = -1, -1
				checkLengthsToOffsets32(t, "a -1 length", l32, math.MaxInt32)
				checkLengthsToOffsets64(t, "a -1 length", l64, math.MaxInt64)
				l32[p], l64[p] = math.MinInt32, math.MinInt64
				checkLengthsToOffsets32(t, "a min length", l32, math.MaxInt32)
				checkLengthsToOffsets64(t, "a min length", l64, math.MaxInt64)
				// A length that takes the total past the largest value.
				l32[p], l64[p] = math.MaxInt32, math.MaxInt64
				checkLengthsToOffsets32(t, "a max length", l32, math.MaxInt32)
				checkLengthsToOffsets64(t, "a max length", l64, math.MaxInt64)
				l32[p], l64[p] = s32, s64
			}
		}
	}
}

// TestLengthsToOffsetsOverflow puts totals that would wrap around int32 or
// int64 at every position of the vector blocks and in the tails: large
// lengths whose sum wraps to a negative value, or all the way round to a
// small non-negative one.
func TestLengthsToOffsetsOverflow(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	const max32, max64 = math.MaxInt32, math.MaxInt64
	for _, n := range []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 66, 71, 72, 127, 128, 129, 130, 200, 257, 1023} {
		for p := range n {
			if n > 140 && p%13 != 0 && p < n-20 {
				continue
			}
			l32 := make([]int32, n)
			l64 := make([]int64, n)
			for i := range n {
				l32[i] = int32(r.IntN(3))
				l64[i] = int64(r.IntN(3))
			}
			// Just fits: the largest total there is.
			var rest32, rest64 int64
			for i, v := range l32 {
				if i != p {
					rest32 += int64(v)
					rest64 += l64[i]
				}
			}
			l32[p], l64[p] = int32(max32-rest32), max64-rest64
			checkLengthsToOffsets32(t, "total max", l32, max32)
			checkLengthsToOffsets64(t, "total max", l64, max64)
			// One more anywhere wraps to the smallest value.
			q := r.IntN(n)
			l32[q]++
			l64[q]++
			if l32[q] > 0 && l64[q] > 0 { // (unless q is p, which wrapped itself)
				checkLengthsToOffsets32(t, "total max+1", l32, max32)
				checkLengthsToOffsets64(t, "total max+1", l64, max64)
			}
			// Two maximal lengths sum to 2^32-2 or 2^64-2, and a third
			// takes the total round to a small non-negative value.
			for i := range n {
				l32[i], l64[i] = 0, 0
			}
			l32[p], l64[p] = max32, max64
			if p+1 < n {
				l32[p+1], l64[p+1] = max32, max64
				if p+2 < n {
					l32[p+2], l64[p+2] = 5, 5
				}
			} else if p > 0 {
				l32[p-1], l64[p-1] = max32, max64
			}
			checkLengthsToOffsets32(t, "wrap round", l32, max32)
			checkLengthsToOffsets64(t, "wrap round", l64, max64)
			// Many large lengths: the total wraps several times.
			for i := range n {
				l32[i] = max32 - int32(r.IntN(3))
				l64[i] = max64 - int64(r.IntN(3))
			}
			checkLengthsToOffsets32(t, "wrap often", l32, max32)
			checkLengthsToOffsets64(t, "wrap often", l64, max64)
			// Lengths of 2^30 (2^62): the total reaches 2^31 (2^63), the
			// first value past the largest, at the second length after
			// p... and 2^32 (2^64), zero when wrapped, two after that.
			for i := range n {
				l32[i], l64[i] = 0, 0
			}
			for i := p; i < n && i < p+4; i++ {
				l32[i], l64[i] = 1<<30, 1<<62
			}
			checkLengthsToOffsets32(t, "powers of two", l32, max32)
			checkLengthsToOffsets64(t, "powers of two", l64, max64)
		}
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

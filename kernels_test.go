package arrowpack

import (
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
				rebase32Generic(want, want, base32)
				im.rebase32(src32, src32, base32)
				if !slices.Equal(src32, want) {
					t.Fatalf("%s n=%d: in-place rebase32 differs", im.name, n)
				}
				want64 := slices.Clone(src64)
				rebase64Generic(want64, want64, base64)
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

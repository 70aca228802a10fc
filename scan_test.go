package arrowpack

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// Tests of the scans, IsASCII and MaxUint8/16/32/64: every implementation
// against plain definitions, at every length in testLengths, at every
// element alignment within a 64-byte line, with the deciding byte or value
// at every position of short inputs and at the edges of long ones.

// alignedAt returns a slice of n elements of T, zeroed, that starts align
// elements past a 64-byte boundary.
func alignedAt[T any](n, align int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	buf := make([]T, n+128/size)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf)))&63) / size
	return buf[skip+align:][:n:n]
}

// positions returns where the deciding element goes in an input of n:
// everywhere for short inputs, else the first, a middle, the last and a
// random one.
func positions(r *rand.Rand, n int) []int {
	if n == 0 {
		return nil
	}
	if n <= 80 {
		ps := make([]int, n)
		for i := range ps {
			ps[i] = i
		}
		return ps
	}
	return []int{0, n / 2, n - 1, r.IntN(n)}
}

func isASCIIDef(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func TestIsASCIIAllPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, im := range vectorImpls(t) {
		for _, n := range testLengths() {
			aligns := 64
			if n > 300 {
				aligns = 5
			}
			for align := range aligns {
				b := alignedAt[byte](n, align)
				for i := range b {
					b[i] = byte(r.IntN(128))
				}
				if !im.isASCII(b) {
					t.Fatalf("%s n=%d align=%d: ASCII bytes reported non-ASCII", im.name, n, align)
				}
				for _, p := range positions(r, n) {
					old := b[p]
					for _, hi := range []byte{0x80, 0xff, old | 0x80} {
						b[p] = hi
						if im.isASCII(b) {
							t.Fatalf("%s n=%d align=%d: byte %#x at %d not seen", im.name, n, align, hi, p)
						}
					}
					b[p] = old
				}
				if n > 0 && align == 0 {
					// Every byte high.
					c := slices.Clone(b)
					for i := range c {
						c[i] |= 0x80
					}
					if im.isASCII(c) {
						t.Fatalf("%s n=%d: all-high bytes reported ASCII", im.name, n)
					}
				}
			}
		}
	}
}

func maxDef[T uint8 | uint16 | uint32 | uint64](x []T) T {
	var m T
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// testMax checks one width of the max kernel of every impl.
func testMax[T uint8 | uint16 | uint32 | uint64](t *testing.T, name string, kernel func(*impl) func([]T) T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 23))
	var zero T
	size := int(unsafe.Sizeof(zero))
	top := ^zero
	rnd := func(shift int) T { return T(r.Uint64()) >> shift }
	for _, im := range vectorImpls(t) {
		f := kernel(im)
		for _, n := range testLengths() {
			aligns := 64 / size
			if n > 300 {
				aligns = 3
			}
			for align := range aligns {
				x := alignedAt[T](n, align)
				check := func(what string) {
					t.Helper()
					want := maxDef(x)
					in := slices.Clone(x)
					if got := f(x); got != want {
						t.Fatalf("%s %s n=%d align=%d %s: got %#x, want %#x", im.name, name, n, align, what, got, want)
					}
					if !slices.Equal(in, x) {
						t.Fatalf("%s %s n=%d align=%d %s: input modified", im.name, name, n, align, what)
					}
				}
				check("zeros")
				// Full-range values (half of them with the top bit set) and
				// values of a few bits, with ties.
				for i := range x {
					x[i] = rnd(0)
				}
				check("random")
				shift := 8*size - 3
				for i := range x {
					x[i] = rnd(shift)
				}
				check("small")
				// One larger value at each position: above the rest by
				// one, with the top bit set, and the largest of T; and
				// just below the top bit among values with it clear.
				for _, p := range positions(r, n) {
					old := x[p]
					for _, v := range []T{1 << (shift + 1), top>>1 + 1, top} {
						x[p] = v
						check("one large")
					}
					x[p] = old
				}
				for i := range x {
					x[i] = top >> 1
				}
				for _, p := range positions(r, n) {
					x[p] = top>>1 + 1 // the sign bit only: above every other
					check("sign bit over max signed")
					x[p] = top >> 1
				}
			}
		}
	}
}

func TestMaxUint8(t *testing.T) {
	testMax(t, "max8", func(im *impl) func([]uint8) uint8 { return im.max8 }, 8)
}

func TestMaxUint16(t *testing.T) {
	testMax(t, "max16", func(im *impl) func([]uint16) uint16 { return im.max16 }, 16)
}

func TestMaxUint32(t *testing.T) {
	testMax(t, "max32", func(im *impl) func([]uint32) uint32 { return im.max32 }, 32)
}

func TestMaxUint64(t *testing.T) {
	testMax(t, "max64", func(im *impl) func([]uint64) uint64 { return im.max64 }, 64)
}

func TestScansExported(t *testing.T) {
	if !IsASCII(nil) || !IsASCII([]byte("plain")) || IsASCII([]byte("caf\xc3\xa9")) {
		t.Fatal("IsASCII wrong on a short string")
	}
	if MaxUint8(nil) != 0 || MaxUint16(nil) != 0 || MaxUint32(nil) != 0 || MaxUint64(nil) != 0 {
		t.Fatal("the maximum of nothing is not 0")
	}
	x := make([]uint64, 1000)
	x[777] = 1<<63 + 5
	x[5] = 1<<63 - 1
	if got := MaxUint64(x); got != 1<<63+5 {
		t.Fatalf("MaxUint64 = %#x", got)
	}
	b := make([]uint8, 1000)
	b[999] = 200
	if MaxUint8(b) != 200 || MaxUint16([]uint16{3, 65535, 7}) != 65535 || MaxUint32([]uint32{1 << 31, 5}) != 1<<31 {
		t.Fatal("MaxUint8/16/32 wrong")
	}
}

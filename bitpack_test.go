package arrowpack

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"testing"
	"unsafe"

	"github.com/arrowpack/arrowpack/internal/plain"
)

// The bit-packing kernels' cases for kernels_harness_test.go: k is the
// width. Packing is checked byte for byte against plain.BitPack, from
// values that fit the width and from values whose differences do not (the
// high bits must be dropped); unpacking against plain.BitUnpack, from
// random bytes (padding bits included), and a round trip.

const packAligns = 1

// packWidths returns the widths tried at length n for B-bit values: the
// edges (0, 1, B-1, B) and two that rotate with n, so that every width
// meets every tail length modulo B+1 and many block counts.
func packWidths(bits int) func(n int) []int {
	return func(n int) []int {
		ws := []int{0, 1, bits - 1, bits, n % (bits + 1), (n*13 + 5) % (bits + 1)}
		slices.Sort(ws)
		return slices.Compact(ws)
	}
}

func packCase[T word](name string, kernel func(*impl) func([]byte, []T, T, int)) *kcase {
	bits := wordBits[T]()
	return &kcase{name: name, elem: bits / 8, ks: bits + 1, aligns: packAligns, slots: 2,
		large: []int{511, 4097, 16384 + 100}, kAt: packWidths(bits),
		run: func(im *impl, in *kin) error {
			f, n, w := kernel(im), in.n, in.k
			src := take[T](in, 0, n)
			dst := take[byte](in, 1, PackedLen(n, w))
			base := value[T](in.g)
			check := func(what string) error {
				orig := slices.Clone(src)
				wide := make([]uint64, n)
				for i, x := range src {
					wide[i] = uint64(x)
				}
				want := plain.BitPack(wide, uint64(base), w, bits)
				f(dst, src, base, w)
				if !bytes.Equal(dst, want) {
					return fmt.Errorf("%s: packed bytes differ from the definition", what)
				}
				if !slices.Equal(src, orig) {
					return fmt.Errorf("%s: input modified", what)
				}
				return nil
			}
			mask := lowMask[T](w)
			for i := range src {
				src[i] = value[T](in.g)&mask + base
			}
			// The widest difference at a few places, so that every bit of
			// the width is seen set.
			for _, p := range positions(in.g, n) {
				src[p] = mask + base
			}
			if err := check("fitting"); err != nil {
				return err
			}
			fill(in.g, src)
			return check("too wide")
		}}
}

func unpackCase[T word](name string, kernel func(*impl) func([]T, []byte, T, int)) *kcase {
	bits := wordBits[T]()
	return &kcase{name: name, elem: bits / 8, ks: bits + 1, aligns: packAligns, slots: 2,
		large: []int{511, 4097, 16384 + 100}, kAt: packWidths(bits),
		run: func(im *impl, in *kin) error {
			f, n, w := kernel(im), in.n, in.k
			dst := take[T](in, 0, n)
			src := take[byte](in, 1, PackedLen(n, w))
			base := value[T](in.g)
			fill(in.g, src)
			orig := slices.Clone(src)
			want := plain.BitUnpack(src, n, uint64(base), w, bits)
			f(dst, src, base, w)
			for i, v := range dst {
				if uint64(v) != want[i] {
					return fmt.Errorf("random bytes: value %d = %#x, want %#x", i, v, want[i])
				}
			}
			if !bytes.Equal(src, orig) {
				return fmt.Errorf("input modified")
			}
			// Round trip through the generic packer: the values come back.
			vals := make([]T, n)
			for i := range vals {
				vals[i] = value[T](in.g)&lowMask[T](w) + base
			}
			packGeneric(src, vals, base, w)
			f(dst, src, base, w)
			if !slices.Equal(dst, vals) {
				return fmt.Errorf("round trip: values differ")
			}
			return nil
		}}
}

func TestPackedLen(t *testing.T) {
	for _, c := range []struct{ n, w, want int }{
		{0, 0, 0}, {0, 64, 0}, {1, 0, 0}, {1, 1, 1}, {1, 9, 2}, {8, 1, 1}, {9, 1, 2},
		{255, 32, 1020}, {256, 1, 32}, {256, 32, 1024}, {256, 64, 2048}, {257, 3, 97},
		{1000, 7, 3*224 + (232*7+7)/8},
	} {
		if got := PackedLen(c.n, c.w); got != c.want || got != plain.PackedLen(c.n, c.w) {
			t.Errorf("PackedLen(%d, %d) = %d, want %d", c.n, c.w, got, c.want)
		}
	}
}

// TestBitPackExported round-trips through the exported functions at every
// width, with the frame of reference a signed column uses.
func TestBitPackExported(t *testing.T) {
	x := make([]int32, 1000)
	for i := range x {
		x[i] = int32(i*7919%2001) - 1000
	}
	lo, hi := MinMaxInt32(x)
	if lo != -1000 || hi != 1000 {
		t.Fatalf("MinMaxInt32 = %d, %d", lo, hi)
	}
	w := bits.Len32(uint32(hi - lo))
	u := unsafe.Slice((*uint32)(unsafe.Pointer(&x[0])), len(x))
	buf := make([]byte, PackedLen(len(u), w)+5)
	if got := BitPack32(buf, u, uint32(lo), w); got != PackedLen(len(u), w) {
		t.Fatalf("BitPack32 returned %d, want %d", got, PackedLen(len(u), w))
	}
	back := make([]uint32, len(u))
	BitUnpack32(back, buf, uint32(lo), w)
	if !slices.Equal(back, u) {
		t.Fatalf("signed round trip differs")
	}
	y := make([]uint64, 700)
	for i := range y {
		y[i] = 1<<63 + uint64(i)*1e12
	}
	l64, h64 := MinMax64(y)
	w = bits.Len64(h64 - l64)
	buf = make([]byte, PackedLen(len(y), w))
	BitPack64(buf, y, l64, w)
	back64 := make([]uint64, len(y))
	BitUnpack64(back64, buf, l64, w)
	if !slices.Equal(back64, y) {
		t.Fatalf("64-bit round trip differs")
	}
}

func TestBitPackPanics(t *testing.T) {
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	v32 := make([]uint32, 300)
	v64 := make([]uint64, 300)
	b := make([]byte, 4096)
	mustPanic("width 33", func() { BitPack32(b, v32, 0, 33) })
	mustPanic("width -1", func() { BitPack64(b, v64, 0, -1) })
	mustPanic("width 65", func() { BitUnpack64(v64, b, 0, 65) })
	mustPanic("short dst", func() { BitPack32(b[:PackedLen(300, 5)-1], v32, 0, 5) })
	mustPanic("short src", func() { BitUnpack64(v64, b[:PackedLen(300, 60)-1], 0, 60) })
	bb := unsafe.Slice((*byte)(unsafe.Pointer(&v32[0])), 4*len(v32))
	mustPanic("overlap", func() { BitUnpack32(v32, bb, 0, 3) })
	mustPanic("negative n", func() { PackedLen(-1, 3) })
	mustPanic("width 65", func() { PackedLen(1, 65) })
	mustPanic("huge n", func() { PackedLen(math.MaxInt, 64) })
	if got, want := PackedLen(math.MaxInt, 0), 0; got != want {
		t.Errorf("PackedLen(MaxInt, 0) = %d, want %d", got, want)
	}
}

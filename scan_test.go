package arrowpack

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// Cases of the scans (IsASCII and MaxUint8/16/32/64) for the harness in
// kernels_harness_test.go: the deciding byte or value at every position of
// short inputs and at the edges of long ones.

// alignedAt returns a slice of n elements of T, zeroed, that starts align
// elements past a 64-byte boundary.
func alignedAt[T any](n, align int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	buf := make([]T, n+128/size)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf)))&63) / size
	return buf[skip+align:][:n:n]
}

func isASCIIDef(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// isASCIICase checks isASCII on bytes as made (ASCII in three inputs out
// of four), with a byte of 0x80, 0xff or its own value with the high bit
// at every position of short inputs and at the edges of long ones, and with
// every byte high; the input must stay as it was.
func isASCIICase() *kcase {
	return &kcase{name: "isASCII", elem: 1, ks: 1, slots: 1, run: func(im *impl, in *kin) error {
		b := take[byte](in, 0, in.n)
		fill(in.g, b)
		if in.g.byte()&3 != 0 {
			for i := range b {
				b[i] &= 0x7f
			}
		}
		check := func(what string) error {
			want, orig := isASCIIDef(b), slices.Clone(b)
			if got := im.isASCII(b); got != want {
				return fmt.Errorf("%s: got %v, want %v", what, got, want)
			}
			if !slices.Equal(b, orig) {
				return fmt.Errorf("%s: input modified", what)
			}
			return nil
		}
		if err := check("as made"); err != nil {
			return err
		}
		for _, p := range positions(in.g, in.n) {
			old := b[p]
			for _, hi := range []byte{0x80, 0xff, old | 0x80} {
				b[p] = hi
				if err := check(fmt.Sprintf("%#x at %d", hi, p)); err != nil {
					return err
				}
			}
			b[p] = old
		}
		for i := range b {
			b[i] |= 0x80
		}
		return check("all high")
	}}
}

func maxDef[T uint8 | uint16 | uint32 | uint64](x []T) T {
	var m T
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// maxCase checks one width of the max kernel on zeros, full-range values,
// small values with ties, one larger value at each position (above the rest
// by one, with the top bit set, the largest of T), and the top bit alone
// among values just below it; the input must stay as it was.
func maxCase[T uint8 | uint16 | uint32 | uint64](name string, kernel func(*impl) func([]T) T) *kcase {
	var zero T
	size := int(unsafe.Sizeof(zero))
	return &kcase{name: name, elem: size, ks: 1, slots: 1, run: func(im *impl, in *kin) error {
		f, n := kernel(im), in.n
		top := ^zero
		x := take[T](in, 0, n)
		check := func(what string) error {
			want, orig := maxDef(x), slices.Clone(x)
			if got := f(x); got != want {
				return fmt.Errorf("%s: got %#x, want %#x", what, got, want)
			}
			if !slices.Equal(x, orig) {
				return fmt.Errorf("%s: input modified", what)
			}
			return nil
		}
		clear(x)
		if err := check("zeros"); err != nil {
			return err
		}
		fill(in.g, x)
		if err := check("random"); err != nil {
			return err
		}
		shift := 8*size - 3
		for i := range x {
			x[i] >>= shift
		}
		if err := check("small"); err != nil {
			return err
		}
		for _, p := range positions(in.g, n) {
			old := x[p]
			for _, v := range []T{1 << (shift + 1), top>>1 + 1, top} {
				x[p] = v
				if err := check(fmt.Sprintf("%#x at %d", v, p)); err != nil {
					return err
				}
			}
			x[p] = old
		}
		for i := range x {
			x[i] = top >> 1
		}
		for _, p := range positions(in.g, n) {
			x[p] = top>>1 + 1 // the sign bit only: above every other
			if err := check(fmt.Sprintf("sign bit over max signed at %d", p)); err != nil {
				return err
			}
			x[p] = top >> 1
		}
		return nil
	}}
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

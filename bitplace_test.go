package arrowpack

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// placeBitsDef is the definition of CopyBitsAt (and, with src nil, of
// SetBitsAt) bit by bit.
func placeBitsDef(dst []byte, dstOffset int, src []byte, srcOffset, n int) {
	for i := range n {
		j := dstOffset + i
		if src == nil || bitAt(src, srcOffset+i) {
			dst[j>>3] |= 1 << (j & 7)
		} else {
			dst[j>>3] &^= 1 << (j & 7)
		}
	}
	if e := (dstOffset + n) & 7; n > 0 && e != 0 {
		dst[(dstOffset+n)>>3] &= byte(1)<<e - 1
	}
}

// copyBitsAtCase checks CopyBitsAt of n bits from source bit offset k to
// several destination bit offsets (the first bytes, byte boundaries, k and
// 64-k), and SetBitsAt at the same offsets, over a dst of random bits,
// against the definition.
func copyBitsAtCase() *kcase {
	return &kcase{name: "copyBitsAt", elem: 1, ks: 64, bits: true, aligns: 1, slots: 2, large: bitmapLarge, run: func(im *impl, in *kin) error {
		n, srcOff := in.n, in.k
		src := take[byte](in, 0, (srcOff+n+7)/8)
		fill(in.g, src)
		for _, dstOff := range []int{0, 1, 3, 7, 8, 9, 15, 63, srcOff, 64 - srcOff} {
			for _, set := range []bool{false, true} {
				dst := take[byte](in, 1, (dstOff+n+7)/8)
				fill(in.g, dst)
				want := bytes.Clone(dst)
				if set {
					placeBitsDef(want, dstOff, nil, 0, n)
					SetBitsAt(dst, dstOff, n)
				} else {
					placeBitsDef(want, dstOff, src, srcOff, n)
					copyBitsAt(im, dst, dstOff, src, srcOff, n)
				}
				if !bytes.Equal(dst, want) {
					return fmt.Errorf("dstOff=%d set=%v: differs from the definition:\n got %x\nwant %x", dstOff, set, dst, want)
				}
			}
		}
		return nil
	}}
}

// TestCopyBitsAtConcatenates appends random bitmap slices one after the
// other, as the encoder does when it coalesces batches, and checks the
// result is their concatenation.
func TestCopyBitsAtConcatenates(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, im := range vectorImpls(t) {
		for range 200 {
			var want []bool
			dst := make([]byte, 0, 512)
			at := 0
			for range 1 + r.IntN(8) {
				n, off := r.IntN(100), r.IntN(64)
				src := make([]byte, (off+n+7)/8)
				for i := range src {
					src[i] = byte(r.Uint32())
				}
				dst = dst[:(at+n+7)/8]
				if r.IntN(4) == 0 {
					SetBitsAt(dst, at, n)
					for range n {
						want = append(want, true)
					}
				} else {
					copyBitsAt(im, dst, at, src, off, n)
					for i := range n {
						want = append(want, bitAt(src, off+i))
					}
				}
				at += n
			}
			for i, w := range want {
				if bitAt(dst, i) != w {
					t.Fatalf("%s: bit %d of the concatenation differs", im.name, i)
				}
			}
			if at&7 != 0 && dst[len(dst)-1]>>(at&7) != 0 {
				t.Fatalf("%s: high bits of the last byte set", im.name)
			}
		}
	}
}

func TestCopyBitsAtPanics(t *testing.T) {
	for _, f := range []func(){
		func() { CopyBitsAt(make([]byte, 4), -1, make([]byte, 4), 0, 1) },
		func() { CopyBitsAt(make([]byte, 4), 0, make([]byte, 4), -1, 1) },
		func() { CopyBitsAt(make([]byte, 4), 0, make([]byte, 4), 0, -1) },
		func() { CopyBitsAt(make([]byte, 1), 3, make([]byte, 4), 0, 6) },
		func() { CopyBitsAt(make([]byte, 4), 3, make([]byte, 1), 3, 6) },
		func() { SetBitsAt(make([]byte, 1), 3, 6) },
		func() { SetBitsAt(make([]byte, 1), -1, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f()
		}()
	}
}

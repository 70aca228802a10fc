package arrowpack

import (
	"bytes"
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

// checkPlaceBits runs CopyBitsAt on path im (or SetBitsAt when src is nil)
// into a dst between guard bytes, over a first byte of random bits, and
// compares it with the definition.
func checkPlaceBits(t *testing.T, im *impl, r *rand.Rand, src []byte, srcOffset, dstOffset, n, align int) {
	t.Helper()
	const guard = 0xa5
	nb := (dstOffset + n + 7) / 8
	buf := make([]byte, nb+align+2)
	for i := range buf {
		buf[i] = guard
	}
	dst := buf[align+1 : align+1+nb]
	for i := range dst {
		dst[i] = byte(r.Uint32())
	}
	want := bytes.Clone(dst)
	placeBitsDef(want, dstOffset, src, srcOffset, n)
	if src == nil {
		SetBitsAt(dst, dstOffset, n)
	} else {
		copyBitsAt(im, dst, dstOffset, src, srcOffset, n)
	}
	// Bytes wholly before dstOffset are not touched by either.
	if !bytes.Equal(dst, want) {
		t.Fatalf("%s src=%v n=%d srcOff=%d dstOff=%d:\n got %x\nwant %x", im.name, src != nil, n, srcOffset, dstOffset, dst, want)
	}
	if buf[align] != guard || buf[align+1+nb] != guard {
		t.Fatalf("%s n=%d srcOff=%d dstOff=%d: byte outside dst touched", im.name, n, srcOffset, dstOffset)
	}
}

func TestCopyBitsAt(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, im := range vectorImpls(t) {
		for _, n := range testLengths() {
			for srcOff := 0; srcOff < 64; srcOff++ {
				for _, dstOff := range []int{0, 1, 3, 7, 8, 9, 15, 63, srcOff, 64 - srcOff} {
					if n > 300 && srcOff%7 != 3 {
						continue
					}
					align := r.IntN(8)
					src := make([]byte, align+(srcOff+n+7)/8)[align:]
					for i := range src {
						src[i] = byte(r.Uint32())
					}
					checkPlaceBits(t, im, r, src, srcOff, dstOff, n, r.IntN(8))
				}
			}
		}
	}
}

func TestSetBitsAt(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range testLengths() {
		for dstOff := 0; dstOff < 64; dstOff++ {
			checkPlaceBits(t, &genericImpl, r, nil, 0, dstOff, n, r.IntN(8))
		}
	}
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

// FuzzCopyBitsAt places a window of the fuzzer's bits at a destination bit
// offset on every path and compares it with the bit-by-bit definition.
func FuzzCopyBitsAt(f *testing.F) {
	bitsSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, off uint16, trim uint8, align uint8) {
		src, o, n := bitsWindow(data, off, trim, align)
		dstOff := int(trim) + int(align)%64
		r := rand.New(rand.NewPCG(uint64(off), uint64(align)))
		for _, im := range impls {
			checkPlaceBits(t, im, r, src, o, dstOff, n, int(align/32)%8)
		}
		checkPlaceBits(t, &genericImpl, r, nil, 0, dstOff, n, int(align/32)%8)
	})
}

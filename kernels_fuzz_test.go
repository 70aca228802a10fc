package arrowpack

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"testing"
	"unsafe"
)

// Fuzz targets: each decodes the fuzzer's bytes and small integers into the
// kernel's inputs, runs every implementation this machine supports and
// compares it with the generic one, and the generic one with a plain
// definition. The seed corpus is in testdata/fuzz/<FuzzName>/; `go test`
// runs it, `go test -run '^$' -fuzz '^FuzzName$' .` explores from it.
//
// align moves the start of each slice within its allocation, so that the
// vector loops see every alignment; guard elements around each output must
// keep their values.

const (
	fuzzGuard32 = int32(0x5a5a5a5a)
	fuzzGuard64 = int64(0x5a5a5a5a5a5a5a5a)
	fuzzGuard8  = byte(0xa5)
)

// fuzzAddSizes adds seeds of byte lengths around the vector block sizes.
func fuzzAddSizes(f *testing.F, elem int, add func(data []byte, i int)) {
	for i, n := range []int{0, 1, 7, 31, 63, 64, 65, 127, 128, 129, 300} {
		data := make([]byte, n*elem)
		for j := range data {
			data[j] = byte(j*7 + i)
		}
		add(data, i)
	}
}

func int32sAt(data []byte, align uint8) []int32 {
	n := len(data) / 4
	s := make([]int32, n+7)[align%8:][:n]
	for i := range s {
		s[i] = int32(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return s
}

func int64sAt(data []byte, align uint8) []int64 {
	n := len(data) / 8
	s := make([]int64, n+7)[align%8:][:n]
	for i := range s {
		s[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return s
}

func FuzzRebaseOffsets32(f *testing.F) {
	fuzzAddSizes(f, 4, func(data []byte, i int) { f.Add(data, int32(i*1000-3), uint8(i)) })
	f.Fuzz(func(t *testing.T, data []byte, base int32, align uint8) {
		src := int32sAt(data, align)
		n := len(src)
		want := make([]int32, n)
		for i, v := range src {
			want[i] = v - base
		}
		for _, im := range impls {
			// dst, at another alignment, between guard elements.
			da := int(align/8) % 8
			buf := make([]int32, n+da+2)
			for i := range buf {
				buf[i] = fuzzGuard32
			}
			dst := buf[da+1 : da+1+n]
			im.rebase32(dst, src, base)
			if !slices.Equal(dst, want) {
				t.Fatalf("%s: rebase32 of %d elements differs from the definition", im.name, n)
			}
			if buf[da] != fuzzGuard32 || buf[da+1+n] != fuzzGuard32 {
				t.Fatalf("%s: rebase32 of %d elements wrote outside dst", im.name, n)
			}
			in := slices.Clone(src)
			im.rebase32(in, in, base)
			if !slices.Equal(in, want) {
				t.Fatalf("%s: in-place rebase32 of %d elements differs", im.name, n)
			}
		}
	})
}

func FuzzRebaseOffsets64(f *testing.F) {
	fuzzAddSizes(f, 8, func(data []byte, i int) { f.Add(data, int64(i)<<40-3, uint8(i)) })
	f.Fuzz(func(t *testing.T, data []byte, base int64, align uint8) {
		src := int64sAt(data, align)
		n := len(src)
		want := make([]int64, n)
		for i, v := range src {
			want[i] = v - base
		}
		for _, im := range impls {
			da := int(align/8) % 8
			buf := make([]int64, n+da+2)
			for i := range buf {
				buf[i] = fuzzGuard64
			}
			dst := buf[da+1 : da+1+n]
			im.rebase64(dst, src, base)
			if !slices.Equal(dst, want) {
				t.Fatalf("%s: rebase64 of %d elements differs from the definition", im.name, n)
			}
			if buf[da] != fuzzGuard64 || buf[da+1+n] != fuzzGuard64 {
				t.Fatalf("%s: rebase64 of %d elements wrote outside dst", im.name, n)
			}
			in := slices.Clone(src)
			im.rebase64(in, in, base)
			if !slices.Equal(in, want) {
				t.Fatalf("%s: in-place rebase64 of %d elements differs", im.name, n)
			}
		}
	})
}

// Offsets for the ValidOffsets targets are made from the fuzzer's bytes so
// that they are mostly valid: one offset per byte, each the previous plus a
// small step, so that the kernels scan the whole input. The low bit of mode
// turns on escapes, which break the order at a few places:
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

func decodeOffsets32(data []byte, start int32, mode uint8, align uint8) []int32 {
	o := make([]int32, len(data)+7)[align%8:][:len(data)]
	escapes, shift := mode&1 == 1, uint(mode>>1)%24
	v := start
	for i, b := range data {
		switch {
		case !escapes || b < escStepDown:
			if i > 0 {
				v += int32(b) << shift
			}
		case b == escStepDown:
			v--
		case b == escStepDownShift:
			v -= 1 << shift
		case b == escMax:
			v = math.MaxInt32
		case b == escMin:
			v = math.MinInt32
		}
		o[i] = v
	}
	return o
}

func decodeOffsets64(data []byte, start int64, mode uint8, align uint8) []int64 {
	o := make([]int64, len(data)+7)[align%8:][:len(data)]
	escapes, shift := mode&1 == 1, uint(mode>>1)%56
	v := start
	for i, b := range data {
		switch {
		case !escapes || b < escStepDown:
			if i > 0 {
				v += int64(b) << shift
			}
		case b == escStepDown:
			v--
		case b == escStepDownShift:
			v -= 1 << shift
		case b == escMax:
			v = math.MaxInt64
		case b == escMin:
			v = math.MinInt64
		}
		o[i] = v
	}
	return o
}

// validOffsetsSeeds adds mostly-valid seeds around the block sizes, some
// with an escape near the end or at a block boundary.
func validOffsetsSeeds(f *testing.F, add func(data []byte, start int64, slack int8, mode, align uint8)) {
	fuzzAddSizes(f, 1, func(data []byte, i int) {
		for j := range data {
			data[j] %= 40
		}
		add(data, int64(i), 0, uint8(i)<<1, uint8(i))
		if n := len(data); n > 2 {
			bad := slices.Clone(data)
			bad[n-1] = escStepDown
			add(bad, 0, 1, 1, uint8(i+3))
			bad = slices.Clone(data)
			bad[n/2] = escMin
			add(bad, 5, 0, 1|uint8(i)<<1, 0)
		}
	})
}

func FuzzValidOffsets32(f *testing.F) {
	validOffsetsSeeds(f, func(data []byte, start int64, slack int8, mode, align uint8) {
		f.Add(data, int32(start), slack, mode, align)
	})
	f.Fuzz(func(t *testing.T, data []byte, start int32, slack int8, mode uint8, align uint8) {
		o := decodeOffsets32(data, start, mode, align)
		n := len(o)
		want := true
		for i := 1; i < n; i++ {
			if o[i] < o[i-1] {
				want = false
				break
			}
		}
		limit := int32(slack)
		if n > 0 {
			limit = o[n-1] + int32(slack)
		}
		wantValid := n == 0 || o[0] >= 0 && o[n-1] <= limit && want
		for _, im := range impls {
			if got := im.nondecreasing32(o); got != want {
				t.Fatalf("%s: nondecreasing32 of %d offsets = %v, want %v", im.name, n, got, want)
			}
			if got := validOffsets32(im, o, limit); got != wantValid {
				t.Fatalf("%s: ValidOffsets32 of %d offsets, limit %d = %v, want %v", im.name, n, limit, got, wantValid)
			}
		}
	})
}

func FuzzValidOffsets64(f *testing.F) {
	validOffsetsSeeds(f, func(data []byte, start int64, slack int8, mode, align uint8) {
		f.Add(data, start<<33, slack, mode|0x40, align)
	})
	f.Fuzz(func(t *testing.T, data []byte, start int64, slack int8, mode uint8, align uint8) {
		o := decodeOffsets64(data, start, mode, align)
		n := len(o)
		want := true
		for i := 1; i < n; i++ {
			if o[i] < o[i-1] {
				want = false
				break
			}
		}
		limit := int64(slack)
		if n > 0 {
			limit = o[n-1] + int64(slack)
		}
		wantValid := n == 0 || o[0] >= 0 && o[n-1] <= limit && want
		for _, im := range impls {
			if got := im.nondecreasing64(o); got != want {
				t.Fatalf("%s: nondecreasing64 of %d offsets = %v, want %v", im.name, n, got, want)
			}
			if got := validOffsets64(im, o, limit); got != wantValid {
				t.Fatalf("%s: ValidOffsets64 of %d offsets, limit %d = %v, want %v", im.name, n, limit, got, wantValid)
			}
		}
	})
}

// bitsWindow decodes a fuzz input into a bitmap and a window [off, off+n)
// of it: the bitmap is data, starting align%32 bytes into its allocation;
// off is taken modulo the bitmap's length in bits, and n runs to trim bits
// before its end.
func bitsWindow(data []byte, off uint16, trim uint8, align uint8) (b []byte, o, n int) {
	b = make([]byte, len(data)+31)[align%32:][:len(data)]
	copy(b, data)
	total := 8 * len(b)
	o = int(off) % (total + 1)
	n = max(total-o-int(trim), 0)
	return b, o, n
}

func bitsSeeds(f *testing.F) {
	fuzzAddSizes(f, 1, func(data []byte, i int) {
		for _, off := range []uint16{0, 3, 7, 8, 13, 63} {
			f.Add(data, off, uint8(i%9), uint8(i*5+int(off)))
		}
	})
}

func FuzzCopyBits(f *testing.F) {
	bitsSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, off uint16, trim uint8, align uint8) {
		src, o, n := bitsWindow(data, off, trim, align)
		nb := (n + 7) / 8
		// Generic against the definition.
		want := make([]byte, nb)
		copyBits(&genericImpl, want, src, o, n)
		for i := range n {
			if bitAt(want, i) != bitAt(src, o+i) {
				t.Fatalf("generic: CopyBits n=%d off=%d: bit %d differs", n, o, i)
			}
		}
		if n&7 != 0 && want[nb-1]>>(n&7) != 0 {
			t.Fatalf("generic: CopyBits n=%d off=%d: high bits of the last byte set", n, o)
		}
		// Every path against the generic one, dst between guard bytes at
		// another alignment.
		da := int(align/32) % 8
		for _, im := range impls {
			buf := make([]byte, nb+da+2)
			for i := range buf {
				buf[i] = fuzzGuard8
			}
			dst := buf[da+1 : da+1+nb]
			copyBits(im, dst, src, o, n)
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s: CopyBits n=%d off=%d differs from generic", im.name, n, o)
			}
			if buf[da] != fuzzGuard8 || buf[da+1+nb] != fuzzGuard8 {
				t.Fatalf("%s: CopyBits n=%d off=%d wrote outside dst", im.name, n, o)
			}
		}
	})
}

func FuzzCountOnes(f *testing.F) {
	bitsSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, off uint16, trim uint8, align uint8) {
		b, o, n := bitsWindow(data, off, trim, align)
		want := 0
		for i := range n {
			if bitAt(b, o+i) {
				want++
			}
		}
		for _, im := range impls {
			if got := countOnes(im, b, o, n); got != want {
				t.Fatalf("%s: CountOnes n=%d off=%d = %d, want %d", im.name, n, o, got, want)
			}
			// The kernel on whole bytes, without the edge corrections.
			if got, w := im.popcount(b), popcountGeneric(data); got != w {
				t.Fatalf("%s: popcount of %d bytes = %d, want %d", im.name, len(b), got, w)
			}
		}
	})
}

// Byte transpositions: the fuzzer's bytes, cut to a whole number of
// values, at align%32 bytes into their allocation; width is chosen by the
// low two bits of w. dst lies between guard bytes, at another alignment.

func transposeWidth(w uint8) int { return 2 << (w % 4) }

func bytesAt(data []byte, align uint8, width int) []byte {
	n := len(data) / width * width
	b := make([]byte, n+31)[align%32:][:n]
	copy(b, data)
	return b
}

func transposeSeeds(f *testing.F) {
	for w := range uint8(4) {
		fuzzAddSizes(f, 2<<w, func(data []byte, i int) { f.Add(data, w, uint8(i*5)) })
	}
}

// fuzzTransposition checks kernel (transpose or untranspose of every impl)
// against def and inverse against the identity.
func fuzzTransposition(t *testing.T, data []byte, w, align uint8, untranspose bool) {
	width := transposeWidth(w)
	src := bytesAt(data, align, width)
	want, back := transposeDef(src, width), untransposeDef
	name := "TransposeBytes"
	if untranspose {
		want, back = untransposeDef(src, width), transposeDef
		name = "UntransposeBytes"
	}
	if !bytes.Equal(back(want, width), src) {
		t.Fatalf("the definitions are not inverses for width %d", width)
	}
	da := int(align/32) % 8
	for _, im := range impls {
		run, inv := transposeBytes, untransposeBytes
		if untranspose {
			run, inv = untransposeBytes, transposeBytes
		}
		buf := make([]byte, len(src)+da+2)
		for i := range buf {
			buf[i] = fuzzGuard8
		}
		dst := buf[da+1 : da+1+len(src)]
		run(im, dst, src, width)
		if !bytes.Equal(dst, want) {
			t.Fatalf("%s: %s of %d bytes, width %d, differs from the definition", im.name, name, len(src), width)
		}
		if buf[da] != fuzzGuard8 || buf[da+1+len(src)] != fuzzGuard8 {
			t.Fatalf("%s: %s of %d bytes, width %d, wrote outside dst", im.name, name, len(src), width)
		}
		again := make([]byte, len(src))
		inv(im, again, dst, width)
		if !bytes.Equal(again, src) {
			t.Fatalf("%s: %s of %d bytes, width %d, does not round-trip", im.name, name, len(src), width)
		}
	}
}

func FuzzTransposeBytes(f *testing.F) {
	transposeSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, w uint8, align uint8) {
		fuzzTransposition(t, data, w, align, false)
	})
}

func FuzzUntransposeBytes(f *testing.F) {
	transposeSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, w uint8, align uint8) {
		fuzzTransposition(t, data, w, align, true)
	})
}

// OffsetsToLengths: the offsets are the fuzzer's bytes read as integers,
// anything at all: the differences wrap and nothing is checked. The low
// bit of mode runs the kernels in place as well.

func FuzzOffsetsToLengths32(f *testing.F) {
	fuzzAddSizes(f, 4, func(data []byte, i int) { f.Add(data, uint8(i), uint8(i*3)) })
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, align uint8) {
		o := int32sAt(data, align)
		m := max(len(o)-1, 0)
		want := make([]int32, m)
		for i := range want {
			want[i] = o[i+1] - o[i]
		}
		for _, im := range impls {
			da := int(align/8) % 8
			buf := make([]int32, m+da+2)
			for i := range buf {
				buf[i] = fuzzGuard32
			}
			dst := buf[da+1 : da+1+m]
			offsetsToLengths32(im, dst, o)
			if !slices.Equal(dst, want) {
				t.Fatalf("%s: OffsetsToLengths32 of %d offsets differs from the definition", im.name, len(o))
			}
			if buf[da] != fuzzGuard32 || buf[da+1+m] != fuzzGuard32 {
				t.Fatalf("%s: OffsetsToLengths32 of %d offsets wrote outside dst", im.name, len(o))
			}
			if mode&1 == 1 {
				in := slices.Clone(o)
				offsetsToLengths32(im, in, in)
				if !slices.Equal(in[:m], want) || len(o) > 0 && in[m] != o[m] {
					t.Fatalf("%s: in-place OffsetsToLengths32 of %d offsets differs", im.name, len(o))
				}
			}
		}
	})
}

func FuzzOffsetsToLengths64(f *testing.F) {
	fuzzAddSizes(f, 8, func(data []byte, i int) { f.Add(data, uint8(i), uint8(i*3)) })
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, align uint8) {
		o := int64sAt(data, align)
		m := max(len(o)-1, 0)
		want := make([]int64, m)
		for i := range want {
			want[i] = o[i+1] - o[i]
		}
		for _, im := range impls {
			da := int(align/8) % 8
			buf := make([]int64, m+da+2)
			for i := range buf {
				buf[i] = fuzzGuard64
			}
			dst := buf[da+1 : da+1+m]
			offsetsToLengths64(im, dst, o)
			if !slices.Equal(dst, want) {
				t.Fatalf("%s: OffsetsToLengths64 of %d offsets differs from the definition", im.name, len(o))
			}
			if buf[da] != fuzzGuard64 || buf[da+1+m] != fuzzGuard64 {
				t.Fatalf("%s: OffsetsToLengths64 of %d offsets wrote outside dst", im.name, len(o))
			}
			if mode&1 == 1 {
				in := slices.Clone(o)
				offsetsToLengths64(im, in, in)
				if !slices.Equal(in[:m], want) || len(o) > 0 && in[m] != o[m] {
					t.Fatalf("%s: in-place OffsetsToLengths64 of %d offsets differs", im.name, len(o))
				}
			}
		}
	})
}

// LengthsToOffsets: lengths are made from the fuzzer's bytes so that they
// are mostly valid, one length per byte, with escapes that try the
// validation:
//
//	0x00..0xfa  the byte, shifted left by shift
//	0xfb        1<<30 (1<<62): two of them reach 1<<31 (1<<63), past the largest value
//	0xfc        the largest value: two of them wrap round to -2
//	0xfd        -1
//	0xfe        the smallest value
//	0xff        the largest value less the total so far: the total is exactly the largest value
//
// Bit 0 of mode turns the escapes on, bits 1-5 give shift. The limit is
// the total (computed without overflow, and capped at the largest value)
// plus slack.

const (
	escHalf     = 0xfb
	escLargest  = 0xfc
	escMinusOne = 0xfd
	escSmallest = 0xfe
	escFill     = 0xff
)

func decodeLengths32(data []byte, mode, align uint8) []int32 {
	l := make([]int32, len(data)+7)[align%8:][:len(data)]
	escapes, shift := mode&1 == 1, uint(mode>>1)%24
	var total int64
	for i, b := range data {
		v := int32(b) << shift
		if escapes {
			switch b {
			case escHalf:
				v = 1 << 30
			case escLargest:
				v = math.MaxInt32
			case escMinusOne:
				v = -1
			case escSmallest:
				v = math.MinInt32
			case escFill:
				v = int32(max(math.MaxInt32-total, 0))
			}
		}
		l[i] = v
		total += int64(v)
	}
	return l
}

func decodeLengths64(data []byte, mode, align uint8) []int64 {
	l := make([]int64, len(data)+7)[align%8:][:len(data)]
	escapes, shift := mode&1 == 1, uint(mode>>1)%56
	var total uint64 // of the non-negative lengths; wraps only after 2^63 of them
	for i, b := range data {
		v := int64(b) << shift
		if escapes {
			switch b {
			case escHalf:
				v = 1 << 62
			case escLargest:
				v = math.MaxInt64
			case escMinusOne:
				v = -1
			case escSmallest:
				v = math.MinInt64
			case escFill:
				v = 0
				if total < math.MaxInt64 {
					v = int64(math.MaxInt64 - total)
				}
			}
		}
		l[i] = v
		if v > 0 {
			total += uint64(v)
		}
	}
	return l
}

func lengthsSeeds(f *testing.F, add func(data []byte, mode uint8, slack int8, align uint8)) {
	fuzzAddSizes(f, 1, func(data []byte, i int) {
		for j := range data {
			data[j] %= 60
		}
		add(data, uint8(i)<<1, 0, uint8(i))
		if n := len(data); n > 2 {
			bad := slices.Clone(data)
			bad[n-1] = escMinusOne
			add(bad, 1, 0, uint8(i+3))
			bad = slices.Clone(data)
			bad[n/2] = escFill
			add(bad, 1|uint8(i)<<1, 0, 0)
			bad[n-1] = 1
			add(bad, 1, 0, 1)
			bad = slices.Clone(data)
			bad[n/2], bad[n/2+1] = escLargest, escLargest
			add(bad, 1, 0, 2)
			bad[n/2+1] = escHalf
			add(bad, 1, 0, 5)
		}
	})
}

func FuzzLengthsToOffsets32(f *testing.F) {
	lengthsSeeds(f, func(data []byte, mode uint8, slack int8, align uint8) { f.Add(data, mode, slack, align) })
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, slack int8, align uint8) {
		l := decodeLengths32(data, mode, align)
		var total int64
		for _, v := range l {
			total += int64(v)
		}
		limit := int32(min(max(total+int64(slack), math.MinInt32), math.MaxInt32))
		want, wantOK := lengthsToOffsets32Def(l, limit)
		for _, im := range impls {
			da := int(align/8) % 8
			buf := make([]int32, len(l)+1+da+2)
			for i := range buf {
				buf[i] = fuzzGuard32
			}
			dst := buf[da+1 : da+1+len(l)+1]
			ok := lengthsToOffsets32(im, dst, l, limit)
			if ok != wantOK || ok && !slices.Equal(dst, want) {
				t.Fatalf("%s: LengthsToOffsets32 of %d lengths, limit %d = %v, want %v (or the offsets differ)", im.name, len(l), limit, ok, wantOK)
			}
			if buf[da] != fuzzGuard32 || buf[da+len(l)+2] != fuzzGuard32 {
				t.Fatalf("%s: LengthsToOffsets32 of %d lengths wrote outside dst", im.name, len(l))
			}
			in := make([]int32, len(l)+1)
			copy(in[1:], l)
			if ok := lengthsToOffsets32(im, in, in[1:], limit); ok != wantOK || ok && !slices.Equal(in, want) {
				t.Fatalf("%s: in-place LengthsToOffsets32 of %d lengths = %v, want %v (or the offsets differ)", im.name, len(l), ok, wantOK)
			}
		}
	})
}

func FuzzLengthsToOffsets64(f *testing.F) {
	lengthsSeeds(f, func(data []byte, mode uint8, slack int8, align uint8) { f.Add(data, mode|0x40, slack, align) })
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, slack int8, align uint8) {
		l := decodeLengths64(data, mode, align)
		// The limit: the total of the lengths, saturated at the largest
		// value, plus slack.
		var total uint64
		for _, v := range l {
			if v > 0 {
				total = min(total+uint64(v), math.MaxInt64)
			}
		}
		limit := int64(total)
		if slack < 0 || limit <= math.MaxInt64-int64(slack) {
			limit += int64(slack)
		}
		want, wantOK := lengthsToOffsets64Def(l, limit)
		for _, im := range impls {
			da := int(align/8) % 8
			buf := make([]int64, len(l)+1+da+2)
			for i := range buf {
				buf[i] = fuzzGuard64
			}
			dst := buf[da+1 : da+1+len(l)+1]
			ok := lengthsToOffsets64(im, dst, l, limit)
			if ok != wantOK || ok && !slices.Equal(dst, want) {
				t.Fatalf("%s: LengthsToOffsets64 of %d lengths, limit %d = %v, want %v (or the offsets differ)", im.name, len(l), limit, ok, wantOK)
			}
			if buf[da] != fuzzGuard64 || buf[da+len(l)+2] != fuzzGuard64 {
				t.Fatalf("%s: LengthsToOffsets64 of %d lengths wrote outside dst", im.name, len(l))
			}
			in := make([]int64, len(l)+1)
			copy(in[1:], l)
			if ok := lengthsToOffsets64(im, in, in[1:], limit); ok != wantOK || ok && !slices.Equal(in, want) {
				t.Fatalf("%s: in-place LengthsToOffsets64 of %d lengths = %v, want %v (or the offsets differ)", im.name, len(l), ok, wantOK)
			}
		}
	})
}

// IsASCII: the fuzzer's bytes at align%64 into their allocation; the low
// bit of mode clears every high bit first, the next sets the high bit of
// byte at%len, so that both answers come up.
func FuzzIsASCII(f *testing.F) {
	fuzzAddSizes(f, 1, func(data []byte, i int) { f.Add(data, uint16(i*37), uint8(i%4), uint8(i*9)) })
	f.Fuzz(func(t *testing.T, data []byte, at uint16, mode, align uint8) {
		b := alignedAt[byte](len(data), int(align%64))
		copy(b, data)
		if mode&1 != 0 {
			for i := range b {
				b[i] &= 0x7f
			}
		}
		if mode&2 != 0 && len(b) > 0 {
			b[int(at)%len(b)] |= 0x80
		}
		want := isASCIIDef(b)
		for _, im := range impls {
			if got := im.isASCII(b); got != want {
				t.Fatalf("%s: isASCII of %d bytes = %v, want %v", im.name, len(b), got, want)
			}
		}
	})
}

// MaxUint: the fuzzer's bytes read as little-endian values of 1, 2, 4 or 8
// bytes (w%4), shifted right by shift%(bits) to make ties and small
// values, at align elements past a 64-byte boundary.
func FuzzMaxUint(f *testing.F) {
	for w := range uint8(4) {
		fuzzAddSizes(f, 1<<w, func(data []byte, i int) { f.Add(data, w, uint8(i*3), uint8(i*5)) })
	}
	f.Fuzz(func(t *testing.T, data []byte, w, shift, align uint8) {
		switch w % 4 {
		case 0:
			fuzzMax(t, data, shift, align, func(im *impl) func([]uint8) uint8 { return im.max8 })
		case 1:
			fuzzMax(t, data, shift, align, func(im *impl) func([]uint16) uint16 { return im.max16 })
		case 2:
			fuzzMax(t, data, shift, align, func(im *impl) func([]uint32) uint32 { return im.max32 })
		case 3:
			fuzzMax(t, data, shift, align, func(im *impl) func([]uint64) uint64 { return im.max64 })
		}
	})
}

func fuzzMax[T uint8 | uint16 | uint32 | uint64](t *testing.T, data []byte, shift, align uint8, kernel func(*impl) func([]T) T) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	n := len(data) / size
	x := alignedAt[T](n, int(align)%(64/size))
	var buf [8]byte
	for i := range x {
		copy(buf[:], data[i*size:(i+1)*size])
		x[i] = T(binary.LittleEndian.Uint64(buf[:])) >> (int(shift) % (8 * size))
	}
	want := maxDef(x)
	for _, im := range impls {
		if got := kernel(im)(x); got != want {
			t.Fatalf("%s: max of %d values of %d bytes = %#x, want %#x", im.name, n, size, got, want)
		}
	}
}

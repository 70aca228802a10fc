package arrowpack

import (
	"fmt"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// Cases of the fused copy-and-check kernels (copycheck.go) for the harness
// in kernels_harness_test.go, the tests of their exported API, and their
// benchmarks against copy and copy plus the separate check.

// copyCheckCases lists the copy-and-check kernels' cases for kernelCases.
func copyCheckCases() []*kcase {
	return []*kcase{
		copyASCIICase(),
		copyMaxCase("copyMax8", func(im *impl) func(dst, src []uint8) uint8 { return im.copyMax8 }),
		copyMaxCase("copyMax16", func(im *impl) func(dst, src []uint16) uint16 { return im.copyMax16 }),
		copyMaxCase("copyMax32", func(im *impl) func(dst, src []uint32) uint32 { return im.copyMax32 }),
		copyMaxCase("copyMax64", func(im *impl) func(dst, src []uint64) uint64 { return im.copyMax64 }),
		rebaseNondecreasingCase("rebaseNondecreasing32", func(im *impl) func(dst, src []int32, base int32) bool { return im.rebaseNondecreasing32 }),
		rebaseNondecreasingCase("rebaseNondecreasing64", func(im *impl) func(dst, src []int64, base int64) bool { return im.rebaseNondecreasing64 }),
		copyCountOnesCase(),
	}
}

// copyChecker runs a copy-and-check kernel on src into a dst of the same
// length, filled with junk first, and checks that the result is want(src),
// that dst holds conv of every element of src and that src is unchanged.
type copyChecker[T comparable, R comparable] struct {
	src, dst []T
	run      func(dst, src []T) R
	want     func(src []T) R
	conv     func(T) T
	junk     T
}

func (c *copyChecker[T, R]) check(what string) error {
	for i := range c.dst {
		c.dst[i] = c.junk
	}
	orig := slices.Clone(c.src)
	want := c.want(c.src)
	if got := c.run(c.dst, c.src); got != want {
		return fmt.Errorf("%s: got %v, want %v", what, got, want)
	}
	if !slices.Equal(c.src, orig) {
		return fmt.Errorf("%s: src modified", what)
	}
	for i, v := range c.src {
		if c.dst[i] != c.conv(v) {
			return fmt.Errorf("%s: dst[%d] = %v, want %v", what, i, c.dst[i], c.conv(v))
		}
	}
	return nil
}

func same[T any](v T) T { return v }

// copyASCIICase checks copyASCII as isASCIICase checks isASCII: bytes as
// made (ASCII in three inputs out of four), a high byte at every position
// of short inputs and at the edges of long ones, every byte high.
func copyASCIICase() *kcase {
	return &kcase{name: "copyASCII", elem: 1, ks: 1, slots: 2, run: func(im *impl, in *kin) error {
		b := take[byte](in, 0, in.n)
		fill(in.g, b)
		if in.g.byte()&3 != 0 {
			for i := range b {
				b[i] &= 0x7f
			}
		}
		c := &copyChecker[byte, bool]{src: b, dst: take[byte](in, 1, in.n), run: im.copyASCII, want: isASCIIDef, conv: same[byte], junk: 0xa5}
		if err := c.check("as made"); err != nil {
			return err
		}
		for _, p := range positions(in.g, in.n) {
			old := b[p]
			for _, hi := range []byte{0x80, 0xff, old | 0x80} {
				b[p] = hi
				if err := c.check(fmt.Sprintf("%#x at %d", hi, p)); err != nil {
					return err
				}
			}
			b[p] = old
		}
		for i := range b {
			b[i] |= 0x80
		}
		return c.check("all high")
	}}
}

// copyMaxCase checks one width of copyMax on the inputs maxCase uses:
// zeros, full-range values, small values, one larger value at each
// position (above the rest by one, with the top bit set, the largest of T),
// and the top bit alone among values just below it.
func copyMaxCase[T uint8 | uint16 | uint32 | uint64](name string, kernel func(*impl) func(dst, src []T) T) *kcase {
	var zero T
	size := int(unsafe.Sizeof(zero))
	return &kcase{name: name, elem: size, ks: 1, slots: 2, run: func(im *impl, in *kin) error {
		n := in.n
		top := ^zero
		x := take[T](in, 0, n)
		c := &copyChecker[T, T]{src: x, dst: take[T](in, 1, n), run: kernel(im), want: maxDef[T], conv: same[T], junk: top}
		clear(x)
		if err := c.check("zeros"); err != nil {
			return err
		}
		fill(in.g, x)
		if err := c.check("random"); err != nil {
			return err
		}
		shift := 8*size - 3
		for i := range x {
			x[i] >>= shift
		}
		if err := c.check("small"); err != nil {
			return err
		}
		for _, p := range positions(in.g, n) {
			old := x[p]
			for _, v := range []T{1 << (shift + 1), top>>1 + 1, top} {
				x[p] = v
				if err := c.check(fmt.Sprintf("%#x at %d", v, p)); err != nil {
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
			if err := c.check(fmt.Sprintf("sign bit over max signed at %d", p)); err != nil {
				return err
			}
			x[p] = top >> 1
		}
		return nil
	}}
}

// rebaseNondecreasingCase checks one width of rebaseNondecreasing on
// offsets as genOffsets makes them, with a random base, with a decrease (by
// one, and to the smallest value) at every position of short inputs, at
// the edges of long ones and on both sides of the vector blocks' edges,
// and with steps from the smallest to the largest value and back.
func rebaseNondecreasingCase[T offset](name string, kernel func(*impl) func(dst, src []T, base T) bool) *kcase {
	return &kcase{name: name, elem: bitsOf[T]() / 8, ks: 1, slots: 2, run: func(im *impl, in *kin) error {
		n := in.n
		o := take[T](in, 0, n)
		genOffsets(in.g, o)
		base := value[T](in.g)
		f := kernel(im)
		c := &copyChecker[T, bool]{
			src: o, dst: take[T](in, 1, n),
			run:  func(dst, src []T) bool { return f(dst, src, base) },
			want: nondecreasingDef[T],
			conv: func(v T) T { return v - base },
			junk: T(0x5a5a5a5a),
		}
		if err := c.check("as made"); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		ps := positions(in.g, n)
		if n > 80 {
			// Both sides of every block edge of 16 elements (the largest
			// vector block, 64 bytes of int32) up to 80, and of one at n/2.
			for e := 16; e <= 80; e += 16 {
				ps = append(ps, e-1, e)
			}
			h := n / 2 &^ 15
			ps = append(ps, h-1, h, h+1)
		}
		for _, p := range ps {
			if p == 0 {
				continue
			}
			old := o[p]
			for _, v := range []T{o[p-1] - 1, minOf[T]()} {
				o[p] = v
				if err := c.check(fmt.Sprintf("%d at %d", v, p)); err != nil {
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
			if err := c.check("min..max step"); err != nil {
				return err
			}
			o[n/2], o[n/2-1] = o[n/2-1], o[n/2]
			if err := c.check("max..min step"); err != nil {
				return err
			}
		}
		return nil
	}}
}

// copyCountOnesCase checks copyCountOnes on random bytes, zeros, all ones,
// and one set bit at every position of short inputs and at the edges of
// long ones.
func copyCountOnesCase() *kcase {
	return &kcase{name: "copyCountOnes", elem: 1, ks: 1, slots: 2, run: func(im *impl, in *kin) error {
		b := take[byte](in, 0, in.n)
		c := &copyChecker[byte, int]{src: b, dst: take[byte](in, 1, in.n), run: im.copyCountOnes, want: popcountDef, conv: same[byte], junk: 0x5a}
		fill(in.g, b)
		if err := c.check("random"); err != nil {
			return err
		}
		clear(b)
		if err := c.check("zeros"); err != nil {
			return err
		}
		for _, p := range positions(in.g, in.n) {
			b[p] = 1 << (p & 7)
			if err := c.check(fmt.Sprintf("one bit at %d", p)); err != nil {
				return err
			}
			b[p] = 0
		}
		for i := range b {
			b[i] = 0xff
		}
		return c.check("all ones")
	}}
}

func FuzzCopyASCII(f *testing.F)             { fuzzKernel(f, "copyASCII") }
func FuzzCopyMaxUint8(f *testing.F)          { fuzzKernel(f, "copyMax8") }
func FuzzCopyMaxUint16(f *testing.F)         { fuzzKernel(f, "copyMax16") }
func FuzzCopyMaxUint32(f *testing.F)         { fuzzKernel(f, "copyMax32") }
func FuzzCopyMaxUint64(f *testing.F)         { fuzzKernel(f, "copyMax64") }
func FuzzRebaseNondecreasing32(f *testing.F) { fuzzKernel(f, "rebaseNondecreasing32") }
func FuzzRebaseNondecreasing64(f *testing.F) { fuzzKernel(f, "rebaseNondecreasing64") }
func FuzzCopyCountOnes(f *testing.F)         { fuzzKernel(f, "copyCountOnes") }

// TestCopyCheckExported checks the exported functions on short inputs,
// that they write no further than len(src) into a longer dst, and that
// they do not allocate.
func TestCopyCheckExported(t *testing.T) {
	dst := make([]byte, 20)
	for i := range dst {
		dst[i] = 0xee
	}
	if !CopyASCII(dst, []byte("plain")) || string(dst[:5]) != "plain" || dst[5] != 0xee {
		t.Fatal("CopyASCII wrong on a short string")
	}
	if CopyASCII(dst, []byte("caf\xc3\xa9")) || string(dst[:5]) != "caf\xc3\xa9" {
		t.Fatal("CopyASCII wrong on UTF-8")
	}
	if !CopyASCII(nil, nil) || CopyMaxUint8(nil, nil) != 0 || CopyMaxUint16(nil, nil) != 0 ||
		CopyMaxUint32(nil, nil) != 0 || CopyMaxUint64(nil, nil) != 0 || CopyCountOnes(nil, nil) != 0 ||
		!RebaseNondecreasing32(nil, nil, 1) || !RebaseNondecreasing64(nil, nil, 1) {
		t.Fatal("wrong on empty input")
	}
	src := make([]uint64, 1000)
	src[777] = 1<<63 + 5
	src[5] = 1<<63 - 1
	d64 := make([]uint64, 1001)
	if got := CopyMaxUint64(d64, src); got != 1<<63+5 || !slices.Equal(d64[:1000], src) {
		t.Fatalf("CopyMaxUint64 = %#x", got)
	}
	if CopyMaxUint8(make([]uint8, 3), []uint8{3, 200, 7}) != 200 ||
		CopyMaxUint16(make([]uint16, 3), []uint16{3, 65535, 7}) != 65535 ||
		CopyMaxUint32(make([]uint32, 2), []uint32{1 << 31, 5}) != 1<<31 {
		t.Fatal("CopyMaxUint8/16/32 wrong")
	}
	o32 := []int32{5, 5, 9, 20}
	d32 := make([]int32, 4)
	if !RebaseNondecreasing32(d32, o32, 5) || !slices.Equal(d32, []int32{0, 0, 4, 15}) {
		t.Fatalf("RebaseNondecreasing32 = %v", d32)
	}
	if RebaseNondecreasing32(d32, []int32{1, 0}, 0) || RebaseNondecreasing64(make([]int64, 2), []int64{-1, -2}, 0) {
		t.Fatal("a decrease passed")
	}
	if CopyCountOnes(dst, []byte{0xff, 1, 0x80, 0}) != 10 {
		t.Fatal("CopyCountOnes wrong")
	}
	big := make([]byte, 8192)
	bigDst := make([]byte, 8192)
	big32 := make([]uint32, 2048)
	o := make([]int32, 2048)
	if a := testing.AllocsPerRun(10, func() {
		CopyASCII(bigDst, big)
		CopyCountOnes(bigDst, big)
		CopyMaxUint32(big32, big32[:0])
		RebaseNondecreasing32(o[:1024], o[1024:], 3)
	}); a != 0 {
		t.Fatalf("%v allocations", a)
	}
}

func TestCopyCheckPanicsOnShortDst(t *testing.T) {
	for name, f := range map[string]func(){
		"CopyASCII":             func() { CopyASCII(make([]byte, 3), make([]byte, 4)) },
		"CopyMaxUint8":          func() { CopyMaxUint8(make([]uint8, 3), make([]uint8, 4)) },
		"CopyMaxUint16":         func() { CopyMaxUint16(make([]uint16, 3), make([]uint16, 4)) },
		"CopyMaxUint32":         func() { CopyMaxUint32(make([]uint32, 63), make([]uint32, 64)) },
		"CopyMaxUint64":         func() { CopyMaxUint64(make([]uint64, 3), make([]uint64, 4)) },
		"RebaseNondecreasing32": func() { RebaseNondecreasing32(make([]int32, 3), make([]int32, 4), 0) },
		"RebaseNondecreasing64": func() { RebaseNondecreasing64(nil, make([]int64, 100), 0) },
		"CopyCountOnes":         func() { CopyCountOnes(make([]byte, 99), make([]byte, 100)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with a short dst did not panic", name)
				}
			}()
			f()
		}()
	}
}

// copyCheckBench is one kernel at one size for the benchmarks: the fused
// kernel, a plain copy of the same bytes, and what the fused kernel
// replaces, a copy and then the separate check (copy and IsASCII,
// MaxUintN, popcount; RebaseOffsets and the nondecreasing check of
// ValidOffsets), all on the active path. The inputs pass their checks, so
// that every way reads everything.
type copyCheckBench struct {
	kernel string
	bytes  int
	ways   [3]func() // fused, copy, sep
}

var copyCheckWays = [3]string{"fused", "copy", "sep"}

func copyCheckBenches() []copyCheckBench {
	var bs []copyCheckBench
	add := func(kernel string, n int, fused, cp, sep func()) {
		bs = append(bs, copyCheckBench{kernel, n, [3]func(){fused, cp, sep}})
	}
	random := func(n int) []byte {
		s := make([]byte, n)
		fill(&gen{r: newGen([]byte{byte(n)}).r}, s)
		return s
	}
	for _, n := range []int{16, 64, 256, 1 << 10, 8 << 10, 32 << 10} {
		src, dst := make([]byte, n), make([]byte, n)
		for i := range src {
			src[i] = 'a' + byte(i%26)
		}
		add("ASCII", n, func() { sinkBool = CopyASCII(dst, src) }, func() { copy(dst, src) },
			func() { copy(dst, src); sinkBool = IsASCII(src) })

		rnd := random(n)
		add("CountOnes", n, func() { sinkInt = CopyCountOnes(dst, rnd) }, func() { copy(dst, rnd) },
			func() { copy(dst, rnd); sinkInt = active.popcount(rnd) })
		add("Max8", n, func() { sinkU64 = uint64(CopyMaxUint8(dst, rnd)) }, func() { copy(dst, rnd) },
			func() { copy(dst, rnd); sinkU64 = uint64(MaxUint8(rnd)) })
		s16 := unsafe.Slice((*uint16)(unsafe.Pointer(&rnd[0])), n/2)
		d16 := unsafe.Slice((*uint16)(unsafe.Pointer(&dst[0])), n/2)
		add("Max16", n, func() { sinkU64 = uint64(CopyMaxUint16(d16, s16)) }, func() { copy(d16, s16) },
			func() { copy(d16, s16); sinkU64 = uint64(MaxUint16(s16)) })
		s32 := unsafe.Slice((*uint32)(unsafe.Pointer(&rnd[0])), n/4)
		d32 := unsafe.Slice((*uint32)(unsafe.Pointer(&dst[0])), n/4)
		add("Max32", n, func() { sinkU64 = uint64(CopyMaxUint32(d32, s32)) }, func() { copy(d32, s32) },
			func() { copy(d32, s32); sinkU64 = uint64(MaxUint32(s32)) })
		s64 := unsafe.Slice((*uint64)(unsafe.Pointer(&rnd[0])), n/8)
		d64 := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), n/8)
		add("Max64", n, func() { sinkU64 = CopyMaxUint64(d64, s64) }, func() { copy(d64, s64) },
			func() { copy(d64, s64); sinkU64 = MaxUint64(s64) })

		o32, r32 := make([]int32, n/4), make([]int32, n/4)
		for i := range o32 {
			o32[i] = int32(100 + 7*i)
		}
		add("Rebase32", n, func() { sinkBool = RebaseNondecreasing32(r32, o32, 100) }, func() { copy(r32, o32) },
			func() { RebaseOffsets32(r32, o32, 100); sinkBool = active.nondecreasing32(o32) })
		o64, r64 := make([]int64, n/8), make([]int64, n/8)
		for i := range o64 {
			o64[i] = int64(100 + 7*i)
		}
		add("Rebase64", n, func() { sinkBool = RebaseNondecreasing64(r64, o64, 100) }, func() { copy(r64, o64) },
			func() { RebaseOffsets64(r64, o64, 100); sinkBool = active.nondecreasing64(o64) })
	}
	return bs
}

// BenchmarkCopyCheck runs each way of each kernel and size (bytes) as a
// benchmark of its own: way=fused, way=copy, way=sep (see copyCheckBench);
// compare them with benchstat -col /way over interleaved -count runs.
func BenchmarkCopyCheck(b *testing.B) {
	for _, c := range copyCheckBenches() {
		for w, f := range c.ways {
			b.Run(fmt.Sprintf("kernel=%s/bytes=%d/way=%s", c.kernel, c.bytes, copyCheckWays[w]), func(b *testing.B) {
				b.SetBytes(int64(c.bytes))
				for b.Loop() {
					f()
				}
			})
		}
	}
}

// BenchmarkCopyCheckInterleaved measures the three ways of each kernel and
// size in turns a few microseconds apart, so that all three meet the same
// load on a shared machine: each b.N round times about 64 KiB of work of
// each way, in a rotating order. It reports the median ns/op of each way
// and the medians and quartiles of the per-round ratios fused/copy and
// fused/sep. ns/op itself is the time of a whole round and means little.
func BenchmarkCopyCheckInterleaved(b *testing.B) {
	for _, c := range copyCheckBenches() {
		b.Run(fmt.Sprintf("kernel=%s/bytes=%d", c.kernel, c.bytes), func(b *testing.B) {
			k := max(1, (64<<10)/c.bytes)
			var ns [3][]float64
			var vsCopy, vsSep []float64
			round := 0
			for b.Loop() {
				var t [3]float64
				for j := range 3 {
					w := (j + round) % 3
					start := time.Now()
					for range k {
						c.ways[w]()
					}
					t[w] = float64(time.Since(start).Nanoseconds()) / float64(k)
					ns[w] = append(ns[w], t[w])
				}
				vsCopy = append(vsCopy, t[0]/t[1])
				vsSep = append(vsSep, t[0]/t[2])
				round++
			}
			for w, name := range copyCheckWays {
				b.ReportMetric(quantile(ns[w], 0.5), name+"-ns")
			}
			b.ReportMetric(quantile(vsCopy, 0.25), "fused/copy-q1")
			b.ReportMetric(quantile(vsCopy, 0.5), "fused/copy")
			b.ReportMetric(quantile(vsCopy, 0.75), "fused/copy-q3")
			b.ReportMetric(quantile(vsSep, 0.25), "fused/sep-q1")
			b.ReportMetric(quantile(vsSep, 0.5), "fused/sep")
			b.ReportMetric(quantile(vsSep, 0.75), "fused/sep-q3")
		})
	}
}

// quantile returns the q-quantile of x (nearest rank), 0 if x is empty.
func quantile(x []float64, q float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// Sinks for the benchmarks' results.
var (
	sinkBool bool
	sinkInt  int
	sinkU64  uint64
)

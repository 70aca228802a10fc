package arrowpack

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// The kernel test harness. Each kernel is one kcase: how to build its
// inputs from a length n, a small parameter k and a source of bytes g, in
// memory the driver hands out; how to run one implementation; and the plain
// definition the result must equal. Three drivers run every case:
//
//   - TestKernels: every implementation this machine supports, lengths
//     0..300 and the case's large ones, every alignment of the slices'
//     starts within a 64-byte line, every k (every bit offset 0..63 for the
//     bitmap kernels), with guard bytes around every slice that must stay
//     untouched.
//   - the fuzz targets in kernels_fuzz_test.go: the same with n, k and the
//     alignment from the fuzzer and g reading the fuzzer's bytes.
//   - TestGuardKernels in kernels_guard_test.go: every slice right against
//     an inaccessible page, at its end and at its start.
//
// Every implementation is compared with the plain definition, so every
// vector path agrees with the generic one. Adding a kernel means writing
// its case, listing it in kernelCases and adding a one-line fuzz target.

// kcase is one kernel's test case.
type kcase struct {
	name string
	// elem is the size in bytes of the elements the alignments move by.
	elem int
	// ks is how many values of k (0..ks-1) the drivers try: bit offsets
	// for the bitmap kernels (bits is then set), widths for the
	// transpositions, 1 if the kernel has no such parameter.
	ks   int
	bits bool
	// aligns is how many alignments the table test tries per length and k,
	// rotating with them so that all 64/elem come up; 64/elem if 0.
	aligns int
	// slots is how many slices run asks for; the guard test puts each at
	// either end of its region.
	slots int
	// large are the lengths tried beyond 0..300; defaultLarge if nil.
	large []int
	// kAt, if set, replaces kValues: the values of k tried at length n
	// (for kernels with many widths, a rotating few per length, so that
	// every width meets many lengths without trying all at each).
	kAt func(n int) []int
	// run builds the inputs for in.n, in.k from in.g in slices from in.m,
	// runs im, and returns how the result differs from the definition, or
	// nil. A case may run several checks on variants of its input.
	run func(im *impl, in *kin) error
	// own, if set, replaces run for a kernel with a dispatch of its own
	// (the byte histogram): one kpath per implementation it has.
	own func() []kpath
}

// kpath is one implementation of a case's kernel, ready to run.
type kpath struct {
	name string
	run  func(in *kin) error
}

// paths returns every implementation of the case's kernel this machine
// supports, the generic one first.
func (c *kcase) paths() []kpath {
	if c.own != nil {
		return c.own()
	}
	var ps []kpath
	for _, im := range impls {
		ps = append(ps, kpath{im.name, func(in *kin) error { return c.run(im, in) }})
	}
	return ps
}

// kin is what a case's run builds its inputs from.
type kin struct {
	n, k int
	g    *gen
	m    mem
}

var defaultLarge = []int{1023, 1024, 4095, 4096, 4097, 65536, 65537}

// kernelCases lists every kernel's case; the cases live in the test file
// of the kernel's family.
func kernelCases() []*kcase {
	return append([]*kcase{
		rebaseCase("rebase32", func(im *impl) func(dst, src []int32, base int32) { return im.rebase32 }),
		rebaseCase("rebase64", func(im *impl) func(dst, src []int64, base int64) { return im.rebase64 }),
		validOffsetsCase("validOffsets32", validOffsets32, func(im *impl) func([]int32) bool { return im.nondecreasing32 }),
		validOffsetsCase("validOffsets64", validOffsets64, func(im *impl) func([]int64) bool { return im.nondecreasing64 }),
		copyBitsCase(),
		countOnesCase(),
		transpositionCase("transpose", false),
		transpositionCase("untranspose", true),
		offsetsToLengthsCase("offsetsToLengths32", offsetsToLengths32),
		offsetsToLengthsCase("offsetsToLengths64", offsetsToLengths64),
		lengthsToOffsetsCase("lengthsToOffsets32", lengthsToOffsets32),
		lengthsToOffsetsCase("lengthsToOffsets64", lengthsToOffsets64),
		isASCIICase(),
		maxCase("max8", func(im *impl) func([]uint8) uint8 { return im.max8 }),
		maxCase("max16", func(im *impl) func([]uint16) uint16 { return im.max16 }),
		maxCase("max32", func(im *impl) func([]uint32) uint32 { return im.max32 }),
		maxCase("max64", func(im *impl) func([]uint64) uint64 { return im.max64 }),
		copyBitsAtCase(),
		byteHistogramCase(),
		packCase("pack32", func(im *impl) func([]byte, []uint32, uint32, int) { return im.pack32 }),
		packCase("pack64", func(im *impl) func([]byte, []uint64, uint64, int) { return im.pack64 }),
		unpackCase("unpack32", func(im *impl) func([]uint32, []byte, uint32, int) { return im.unpack32 }),
		unpackCase("unpack64", func(im *impl) func([]uint64, []byte, uint64, int) { return im.unpack64 }),
		minmaxCase("minmax32", func(im *impl) func([]uint32) (uint32, uint32) { return im.minmax32 }),
		minmaxCase("minmax64", func(im *impl) func([]uint64) (uint64, uint64) { return im.minmax64 }),
		minmaxCase("minmaxInt32", func(im *impl) func([]int32) (int32, int32) { return im.minmaxInt32 }),
		minmaxCase("minmaxInt64", func(im *impl) func([]int64) (int64, int64) { return im.minmaxInt64 }),
		alp64Case(),
		alp32Case(),
		crc32cCase(),
	}, append(copyCheckCases(), scatterCases()...)...)
}

// kernelCase returns the case named name.
func kernelCase(name string) *kcase {
	for _, c := range kernelCases() {
		if c.name == name {
			return c
		}
	}
	panic("no kernel case " + name)
}

func (c *kcase) lengths() []int {
	ls := make([]int, 0, 301+len(c.large))
	for n := 0; n <= 300; n++ {
		ls = append(ls, n)
	}
	if c.large == nil {
		return append(ls, defaultLarge...)
	}
	return append(ls, c.large...)
}

// kValues returns the values of k tried at length n: all of them up to
// 300, a few that cover every byte position and whole bytes skipped above.
func (c *kcase) kValues(n int) []int {
	if c.kAt != nil {
		return c.kAt(n)
	}
	var ks []int
	for k := range c.ks {
		if n <= 300 || c.ks <= 8 || k == 0 || k == 3 || k == 8+5 || k == 63 {
			ks = append(ks, k)
		}
	}
	return ks
}

// gen is the source a case builds its inputs from: the fuzzer's bytes while
// they last, then a generator seeded from them (or, in the table and guard
// tests, a seeded generator from the start).
type gen struct {
	data []byte
	r    *rand.Rand
}

func newGen(data []byte) *gen {
	h := fnv.New64a()
	h.Write(data)
	return &gen{data: data, r: rand.New(rand.NewPCG(h.Sum64(), uint64(len(data))))}
}

func (g *gen) byte() byte {
	if len(g.data) > 0 {
		b := g.data[0]
		g.data = g.data[1:]
		return b
	}
	return byte(g.r.Uint32())
}

// uint returns size little-endian bytes (size <= 8).
func (g *gen) uint(size int) uint64 {
	if len(g.data) == 0 {
		return g.r.Uint64() >> (64 - 8*size)
	}
	var v uint64
	for i := range size {
		v |= uint64(g.byte()) << (8 * i)
	}
	return v
}

// intn returns a value in [0, k).
func (g *gen) intn(k int) int {
	if k <= 256 {
		return int(g.byte()) % k
	}
	return int(g.uint(8) % uint64(k))
}

// value returns a value of T made of the source's bytes.
func value[T ~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64](g *gen) T {
	var zero T
	return T(g.uint(int(unsafe.Sizeof(zero))))
}

// fill sets every element of x to a value from g.
func fill[T ~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64](g *gen, x []T) {
	for i := range x {
		x[i] = value[T](g)
	}
}

// positions returns where a deciding element goes in an input of n:
// everywhere for short inputs, else the first two, a middle, the last two
// and a random one.
func positions(g *gen, n int) []int {
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
	return []int{0, 1, n / 2, n - 2, n - 1, g.intn(n)}
}

// mem hands out the slices of a case; the driver decides where they lie.
// Asking for a slot again may return the memory it returned before.
type mem interface {
	get(slot, size int) []byte
}

// take returns n elements of T of slot; their values are unspecified.
func take[T any](in *kin, slot, n int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	b := in.m.get(slot, size*n)
	if n == 0 {
		return []T{}
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(size) != 0 {
		panic("take: misaligned slot")
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// heapMem puts slot 0 align bytes past a 64-byte boundary and every other
// slot at another alignment, each between guardBytes bytes that must keep
// their value.
type heapMem struct {
	align int
	bufs  []heapBuf
	last  map[int]int // slot -> index in bufs of its latest slice
}

type heapBuf struct {
	buf    []byte
	lo, hi int
}

const (
	guardPad  = 64
	guardByte = 0xa5
)

func (m *heapMem) get(slot, size int) []byte {
	if i, ok := m.last[slot]; ok && m.bufs[i].hi-m.bufs[i].lo == size {
		b := m.bufs[i]
		return b.buf[b.lo:b.hi:b.hi]
	}
	if m.last == nil {
		m.last = map[int]int{}
	}
	m.last[slot] = len(m.bufs)
	at := (m.align + slot*24) % 64
	raw := make([]uint64, (2*guardPad+64+at+size+7)/8)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(raw))), 8*len(raw))
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & 63)
	for i := range buf {
		buf[i] = guardByte
	}
	lo := skip + guardPad + at
	m.bufs = append(m.bufs, heapBuf{buf, lo, lo + size})
	return buf[lo : lo+size : lo+size]
}

// intact reports an error if a byte around a slot changed.
func (m *heapMem) intact() error {
	for i, b := range m.bufs {
		for j, v := range b.buf {
			if (j < b.lo || j >= b.hi) && v != guardByte {
				return fmt.Errorf("byte %d past the end of slice %d (of %d bytes) changed", j-b.hi, i, b.hi-b.lo)
			}
		}
	}
	return nil
}

// runHeap runs path p of c once with the slices at align elements past a
// 64-byte boundary, and checks the guard bytes.
func runHeap(c *kcase, p kpath, n, k, align int, g *gen) error {
	m := &heapMem{align: align % (64 / c.elem) * c.elem}
	if err := p.run(&kin{n: n, k: k, g: g, m: m}); err != nil {
		return err
	}
	return m.intact()
}

func vectorImpls(t *testing.T) []*impl {
	t.Helper()
	if len(impls) == 1 {
		t.Logf("only the generic path runs on this machine")
	}
	return impls
}

func caseSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// TestKernels runs every kernel case on every implementation, at every
// length 0..300 and the large ones, every k and every alignment (or as
// many as the case asks for, rotating through all; three at the large
// lengths), with guard bytes around the slices.
func TestKernels(t *testing.T) {
	for _, c := range kernelCases() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(caseSeed(c.name), 1))
			paths := c.paths()
			if len(paths) == 1 {
				t.Logf("only the generic path runs on this machine")
			}
			for _, im := range paths {
				for _, n := range c.lengths() {
					aligns := 64 / c.elem
					if c.aligns != 0 {
						aligns = c.aligns
					}
					if n > 300 {
						aligns = min(aligns, 3)
					}
					for _, k := range c.kValues(n) {
						for a := range aligns {
							align := a + n + 3*k // rotate through all
							if err := runHeap(c, im, n, k, align, &gen{r: r}); err != nil {
								t.Fatalf("%s %s n=%d k=%d align=%d: %v", im.name, c.name, n, k, align%(64/c.elem), err)
							}
						}
					}
				}
			}
		})
	}
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

// TestHarnessCatchesFaults checks that the harness fails a wrong kernel: an
// impl whose max is off by one, whose rebase writes past dst, whose
// copyBits leaves the high bits set, whose unpack is off by one in a whole
// block, whose pack writes past dst and whose ALP multiplies in the wrong
// order must each be caught.
func TestHarnessCatchesFaults(t *testing.T) {
	bad := genericImpl
	bad.max32 = func(x []uint32) uint32 {
		m := maxGeneric(x)
		if len(x) > 70 {
			m--
		}
		return m
	}
	bad.rebase64 = func(dst, src []int64, base int64) {
		rebaseGeneric(dst, src, base)
		if len(dst) > 33 {
			// One element past dst: into the guard bytes.
			*(*int64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(dst)), 8*len(dst))) = 0
		}
	}
	bad.shiftBits = func(dst, src []byte, k uint) {
		shiftBitsGeneric(dst, src, k)
		if len(dst) > 20 {
			dst[3] ^= 1
		}
	}
	bad.unpack32 = func(dst []uint32, src []byte, base uint32, width int) {
		unpackGeneric(dst, src, base, width)
		if len(dst) > 260 {
			dst[257]++
		}
	}
	bad.pack64 = func(dst []byte, src []uint64, base uint64, width int) {
		packGeneric(dst, src, base, width)
		if len(src) > 30 {
			// One byte past dst: into the guard bytes.
			*(*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(dst)), len(dst))) = 0
		}
	}
	bad.alp64 = func(dst []float64, src []int64, f, e float64) {
		for i, v := range src {
			dst[i] = float64(v) * (f * e) // the products in the wrong order
		}
	}
	for _, name := range []string{"max32", "rebase64", "copyBits", "unpack32", "pack64", "alp64"} {
		c := kernelCase(name)
		failed := false
		r := rand.New(rand.NewPCG(1, 2))
		for n := 0; n <= 300 && !failed; n += 7 {
			p := kpath{"bad", func(in *kin) error { return c.run(&bad, in) }}
			failed = runHeap(c, p, n, 3, n, &gen{r: r}) != nil
		}
		if !failed {
			t.Errorf("a broken %s passed the harness", name)
		}
	}
}

// bitAt is the plain definition of Arrow's LSB-first bit order.
func bitAt(b []byte, i int) bool { return b[i>>3]>>(i&7)&1 == 1 }

// equalOr returns an error naming what if got and want differ.
func equalOr(what string, got, want []byte) error {
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s differs from the definition", what)
	}
	return nil
}

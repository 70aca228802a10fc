package arrowpack

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"
	"unsafe"
)

// No path may read or write past either end of its slices. Each test here
// puts the inputs (and outputs) of every implementation right against an
// inaccessible page: ending exactly where the page starts (over-read) and
// starting exactly where it ends (under-read). A kernel that touches one byte
// outside its slices kills the test binary with a fault; every result is
// also checked against the generic implementation, run on ordinary memory.

// guardPos says where a slice is put in its guarded region.
type guardPos int

const (
	noSlice guardPos = iota // the kernel has no such slice
	atEnd                   // the slice ends where an inaccessible page starts
	atStart                 // the slice starts where an inaccessible page ends
)

func (p guardPos) String() string {
	switch p {
	case atEnd:
		return "end"
	case atStart:
		return "start"
	}
	return "-"
}

var guardPositions = []guardPos{atEnd, atStart}

// guardCase says what runs; on a fault it becomes the test's failure message.
type guardCase struct {
	kernel, impl string
	n, off       int
	src, dst     guardPos
}

func (c *guardCase) String() string {
	s := fmt.Sprintf("%s %s n=%d off=%d, input at the %v", c.impl, c.kernel, c.n, c.off, c.src)
	if c.dst != noSlice {
		s += fmt.Sprintf(", output at the %v", c.dst)
	}
	return s
}

// trap turns a fault on a guard page into a panic, for this goroutine, and
// reports it as the failure of the case that was running. Use it as
//
//	var c guardCase
//	defer trap(t, &c)()
func trap(t *testing.T, c *guardCase) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if e := recover(); e != nil {
			if f, ok := e.(interface{ Addr() uintptr }); ok {
				t.Fatalf("%v: fault at %#x, outside the slices: %v", c, f.Addr(), e)
			}
			t.Fatalf("%v: %v", c, e)
		}
	}
}

// guardLengths are 0..300 and a few large lengths, in elements or bits.
func guardLengths(large ...int) []int {
	var ls []int
	for n := 0; n <= 300; n++ {
		ls = append(ls, n)
	}
	return append(ls, large...)
}

// guarded returns at least size bytes of memory between two inaccessible
// pages, released when the test ends; the test skips where there is no mmap.
func guarded(t *testing.T, size int) []byte {
	t.Helper()
	data, unmap, err := mapGuarded(size)
	if err != nil {
		t.Skipf("no guard pages on this system: %v", err)
	}
	t.Cleanup(func() {
		if err := unmap(); err != nil {
			t.Errorf("munmap: %v", err)
		}
	})
	return data
}

// place returns the n bytes of region at pos, with a capacity that stops at
// the guard page for atEnd and at n for atStart.
func place(region []byte, pos guardPos, n int) []byte {
	if pos == atEnd {
		return region[len(region)-n:]
	}
	return region[:n:n]
}

func placeInt32(region []byte, pos guardPos, n int) []int32 {
	b := place(region, pos, 4*n)
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func placeInt64(region []byte, pos guardPos, n int) []int64 {
	b := place(region, pos, 8*n)
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func fillRandom(r *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

func TestGuardRebaseOffsets(t *testing.T) {
	lengths := guardLengths(1023, 1024, 4097, 65537)
	maxN := slices.Max(lengths)
	srcRegion := guarded(t, 8*maxN)
	dstRegion := guarded(t, 8*maxN)
	r := rand.New(rand.NewPCG(11, 12))
	var c guardCase
	defer trap(t, &c)()
	for _, im := range impls {
		c.impl = im.name
		for _, n := range lengths {
			c.n = n
			base32, base64 := int32(r.Uint32()), int64(r.Uint64())
			for _, sp := range guardPositions {
				for _, dp := range guardPositions {
					c.src, c.dst = sp, dp

					c.kernel = "rebase32"
					src32 := placeInt32(srcRegion, sp, n)
					fillRandom(r, place(srcRegion, sp, 4*n))
					want32 := make([]int32, n)
					rebaseGeneric(want32, slices.Clone(src32), base32)
					dst32 := placeInt32(dstRegion, dp, n)
					im.rebase32(dst32, src32, base32)
					if !slices.Equal(dst32, want32) {
						t.Fatalf("%v: wrong result", &c)
					}

					c.kernel = "rebase64"
					src64 := placeInt64(srcRegion, sp, n)
					fillRandom(r, place(srcRegion, sp, 8*n))
					want64 := make([]int64, n)
					rebaseGeneric(want64, slices.Clone(src64), base64)
					dst64 := placeInt64(dstRegion, dp, n)
					im.rebase64(dst64, src64, base64)
					if !slices.Equal(dst64, want64) {
						t.Fatalf("%v: wrong result", &c)
					}
				}

				// In place: dst is src.
				c.src, c.dst = sp, sp
				c.kernel = "rebase32 in place"
				x32 := placeInt32(srcRegion, sp, n)
				fillRandom(r, place(srcRegion, sp, 4*n))
				want32 := slices.Clone(x32)
				rebaseGeneric(want32, want32, base32)
				im.rebase32(x32, x32, base32)
				if !slices.Equal(x32, want32) {
					t.Fatalf("%v: wrong result", &c)
				}
				c.kernel = "rebase64 in place"
				x64 := placeInt64(srcRegion, sp, n)
				fillRandom(r, place(srcRegion, sp, 8*n))
				want64 := slices.Clone(x64)
				rebaseGeneric(want64, want64, base64)
				im.rebase64(x64, x64, base64)
				if !slices.Equal(x64, want64) {
					t.Fatalf("%v: wrong result", &c)
				}
			}
		}
	}
}

func TestGuardValidOffsets(t *testing.T) {
	lengths := guardLengths(1023, 1024, 4097, 65537)
	region := guarded(t, 8*slices.Max(lengths))
	r := rand.New(rand.NewPCG(13, 14))
	var c guardCase
	defer trap(t, &c)()
	for _, im := range impls {
		c.impl = im.name
		for _, n := range lengths {
			c.n = n
			for _, pos := range guardPositions {
				c.src = pos
				// Valid offsets, so that the whole input is scanned; then a
				// decrease at the last element, then at the second.
				o32 := placeInt32(region, pos, n)
				copy(o32, randOffsets32(r, n))
				check32 := func(what string) {
					t.Helper()
					c.kernel = "nondecreasing32 " + what
					want := nondecreasingGeneric(slices.Clone(o32))
					if got := im.nondecreasing32(o32); got != want {
						t.Fatalf("%v: got %v, want %v", &c, got, want)
					}
					c.kernel = "ValidOffsets32 " + what
					var limit int32
					if n > 0 {
						limit = o32[n-1]
					}
					if got := validOffsets32(im, o32, limit); got != want {
						t.Fatalf("%v: got %v, want %v", &c, got, want)
					}
				}
				check32("valid")
				if n >= 2 {
					o32[n-1] = o32[n-2] - 1
					check32("last decreases")
					o32[n-1] = o32[n-2]
					o32[1] = o32[0] - 1
					check32("second decreases")
				}

				o64 := placeInt64(region, pos, n)
				copy(o64, randOffsets64(r, n))
				check64 := func(what string) {
					t.Helper()
					c.kernel = "nondecreasing64 " + what
					want := nondecreasingGeneric(slices.Clone(o64))
					if got := im.nondecreasing64(o64); got != want {
						t.Fatalf("%v: got %v, want %v", &c, got, want)
					}
					c.kernel = "ValidOffsets64 " + what
					var limit int64
					if n > 0 {
						limit = o64[n-1]
					}
					if got := validOffsets64(im, o64, limit); got != want {
						t.Fatalf("%v: got %v, want %v", &c, got, want)
					}
				}
				check64("valid")
				if n >= 2 {
					o64[n-1] = o64[n-2] - 1
					check64("last decreases")
					o64[n-1] = o64[n-2]
					o64[1] = o64[0] - 1
					check64("second decreases")
				}
			}
		}
	}
}

// bitOffsets returns how many source bit offsets, from 0, to try at pos. At
// the end, every offset 0..63. At the start only 0..7: copyBits and countOnes
// drop the whole bytes before the offset, so a kernel's input starts at the
// page only for offsets below 8, and offsets 8..63 show it nothing new there.
func bitOffsets(pos guardPos) int {
	if pos == atEnd {
		return 64
	}
	return 8
}

var guardBitLengths = guardLengths(4095*8, 4095*8+5, 4096*8+13, 65537, 1<<20+5)

func TestGuardCopyBits(t *testing.T) {
	maxBytes := (63+slices.Max(guardBitLengths)+7)/8 + 1
	srcRegion := guarded(t, maxBytes)
	dstRegion := guarded(t, maxBytes)
	r := rand.New(rand.NewPCG(15, 16))
	const guardByte = 0xa5
	var c guardCase
	defer trap(t, &c)()
	for _, im := range impls {
		c.impl = im.name
		for _, n := range guardBitLengths {
			c.n = n
			nb := (n + 7) / 8
			want := make([]byte, nb)
			for _, sp := range guardPositions {
				c.src = sp
				// Fill once per length and position: the offsets only move
				// the window.
				fillRandom(r, place(srcRegion, sp, (63+n+7)/8))
				for off := range bitOffsets(sp) {
					c.off = off
					c.kernel = "CopyBits"
					src := place(srcRegion, sp, (off+n+7)/8)
					copyBits(&genericImpl, want, slices.Clone(src), off, n)
					for _, dp := range guardPositions {
						c.dst = dp
						dst := place(dstRegion, dp, nb)
						// The byte next to dst on its accessible side must
						// stay as it is.
						outside := len(dstRegion) - nb - 1
						if dp == atStart {
							outside = nb
						}
						dstRegion[outside] = guardByte
						copyBits(im, dst, src, off, n)
						if !bytes.Equal(dst, want) {
							t.Fatalf("%v: wrong result", &c)
						}
						if dstRegion[outside] != guardByte {
							t.Fatalf("%v: the byte next to dst changed", &c)
						}
					}
					// The shift kernel itself, with len(src) == len(dst)+1
					// and len(src) == len(dst), src and dst at the page.
					if k := uint(off); k != 0 && k < 8 && nb > 0 {
						for _, extra := range []int{0, 1} {
							c.kernel = fmt.Sprintf("shiftBits len(src)=len(dst)+%d", extra)
							s := place(srcRegion, sp, nb+extra)
							w := make([]byte, nb)
							shiftBitsGeneric(w, slices.Clone(s), k)
							for _, dp := range guardPositions {
								c.dst = dp
								d := place(dstRegion, dp, nb)
								im.shiftBits(d, s, k)
								if !bytes.Equal(d, w) {
									t.Fatalf("%v: wrong result", &c)
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestGuardCountOnes(t *testing.T) {
	region := guarded(t, (63+slices.Max(guardBitLengths)+7)/8)
	r := rand.New(rand.NewPCG(17, 18))
	var c guardCase
	defer trap(t, &c)()
	for _, im := range impls {
		c.impl = im.name
		for _, n := range guardBitLengths {
			c.n = n
			for _, pos := range guardPositions {
				c.src = pos
				fillRandom(r, place(region, pos, (63+n+7)/8))
				c.kernel = "CountOnes"
				for off := range bitOffsets(pos) {
					c.off = off
					b := place(region, pos, (off+n+7)/8)
					want := countOnes(&genericImpl, slices.Clone(b), off, n)
					if got := countOnes(im, b, off, n); got != want {
						t.Fatalf("%v: got %d, want %d", &c, got, want)
					}
				}
				// The popcount kernel on n whole bytes at the page.
				c.kernel, c.off = "popcount of n bytes", 0
				b := place(region, pos, min(n, len(region)))
				if got, want := im.popcount(b), popcountGeneric(slices.Clone(b)); got != want {
					t.Fatalf("%v: got %d, want %d", &c, got, want)
				}
			}
		}
	}
}

func TestGuardTranspose(t *testing.T) {
	// Lengths in values; 4096 and 65536 make the plane stride a multiple of
	// the page size.
	lengths := guardLengths(1023, 1024, 4096, 4097, 65536, 65537)
	maxBytes := 16 * slices.Max(lengths)
	srcRegion := guarded(t, maxBytes)
	dstRegion := guarded(t, maxBytes)
	r := rand.New(rand.NewPCG(19, 20))
	var c guardCase
	defer trap(t, &c)()
	for _, im := range impls {
		c.impl = im.name
		for _, width := range transposeWidths {
			for _, n := range lengths {
				if n > 300 && n*width > 1<<20 {
					continue
				}
				c.n = n
				size := n * width
				for _, sp := range guardPositions {
					c.src = sp
					src := place(srcRegion, sp, size)
					fillRandom(r, src)
					wantT := transposeDef(src, width)
					wantU := untransposeDef(src, width)
					for _, dp := range guardPositions {
						c.dst = dp
						dst := place(dstRegion, dp, size)
						c.kernel = fmt.Sprintf("transpose width=%d", width)
						im.transpose(dst, src, width)
						if !bytes.Equal(dst, wantT) {
							t.Fatalf("%v: wrong result", &c)
						}
						c.kernel = fmt.Sprintf("untranspose width=%d", width)
						im.untranspose(dst, src, width)
						if !bytes.Equal(dst, wantU) {
							t.Fatalf("%v: wrong result", &c)
						}
					}
				}
			}
		}
	}
}

func TestGuardOffsetsToLengths(t *testing.T) {
	lengths := guardLengths(1023, 1024, 4097, 65537)
	maxN := slices.Max(lengths)
	srcRegion := guarded(t, 8*maxN)
	dstRegion := guarded(t, 8*maxN)
	r := rand.New(rand.NewPCG(29, 30))
	var c guardCase
	defer trap(t, &c)()
	for _, im := range impls {
		c.impl = im.name
		for _, n := range lengths {
			c.n = n
			m := max(n-1, 0)
			for _, sp := range guardPositions {
				c.src = sp
				o32 := placeInt32(srcRegion, sp, n)
				fillRandom(r, place(srcRegion, sp, 4*n))
				want32 := make([]int32, m)
				offsetsToLengths32(&genericImpl, want32, slices.Clone(o32))
				for _, dp := range guardPositions {
					c.dst, c.kernel = dp, "OffsetsToLengths32"
					dst := placeInt32(dstRegion, dp, m)
					offsetsToLengths32(im, dst, o32)
					if !slices.Equal(dst, want32) {
						t.Fatalf("%v: wrong result", &c)
					}
				}
				c.dst, c.kernel = sp, "OffsetsToLengths32 in place"
				offsetsToLengths32(im, o32, o32)
				if !slices.Equal(o32[:m], want32) {
					t.Fatalf("%v: wrong result", &c)
				}

				o64 := placeInt64(srcRegion, sp, n)
				fillRandom(r, place(srcRegion, sp, 8*n))
				want64 := make([]int64, m)
				offsetsToLengths64(&genericImpl, want64, slices.Clone(o64))
				for _, dp := range guardPositions {
					c.dst, c.kernel = dp, "OffsetsToLengths64"
					dst := placeInt64(dstRegion, dp, m)
					offsetsToLengths64(im, dst, o64)
					if !slices.Equal(dst, want64) {
						t.Fatalf("%v: wrong result", &c)
					}
				}
				c.dst, c.kernel = sp, "OffsetsToLengths64 in place"
				offsetsToLengths64(im, o64, o64)
				if !slices.Equal(o64[:m], want64) {
					t.Fatalf("%v: wrong result", &c)
				}
			}
		}
	}
}

func TestGuardLengthsToOffsets(t *testing.T) {
	lengths := guardLengths(1023, 1024, 4097, 65537)
	maxN := slices.Max(lengths) + 1
	srcRegion := guarded(t, 8*maxN)
	dstRegion := guarded(t, 8*maxN)
	r := rand.New(rand.NewPCG(31, 32))
	var c guardCase
	defer trap(t, &c)()
	for _, im := range impls {
		c.impl = im.name
		for _, n := range lengths {
			c.n = n
			for _, sp := range guardPositions {
				c.src = sp
				// Valid lengths, so that everything is scanned, then a
				// negative one at the end.
				l32 := placeInt32(srcRegion, sp, n)
				l64 := placeInt64(srcRegion, sp, n)
				for _, bad := range []bool{false, true} {
					for i := range l32 {
						l32[i] = int32(r.IntN(100))
					}
					if bad && n > 0 {
						l32[n-1] = -1
					}
					want32, ok32 := lengthsToOffsets32Def(l32, math.MaxInt32)
					for _, dp := range guardPositions {
						c.dst, c.kernel = dp, fmt.Sprintf("LengthsToOffsets32 bad=%v", bad)
						dst := placeInt32(dstRegion, dp, n+1)
						ok := lengthsToOffsets32(im, dst, l32, math.MaxInt32)
						if ok != ok32 || ok && !slices.Equal(dst, want32) {
							t.Fatalf("%v: wrong result", &c)
						}
					}
				}
				for _, bad := range []bool{false, true} {
					for i := range l64 {
						l64[i] = int64(r.IntN(100)) << 30
					}
					if bad && n > 0 {
						l64[n-1] = -1
					}
					want64, ok64 := lengthsToOffsets64Def(l64, math.MaxInt64)
					for _, dp := range guardPositions {
						c.dst, c.kernel = dp, fmt.Sprintf("LengthsToOffsets64 bad=%v", bad)
						dst := placeInt64(dstRegion, dp, n+1)
						ok := lengthsToOffsets64(im, dst, l64, math.MaxInt64)
						if ok != ok64 || ok && !slices.Equal(dst, want64) {
							t.Fatalf("%v: wrong result", &c)
						}
					}
				}
				// In place: lengths are dst[1:], dst at the page.
				for _, dp := range guardPositions {
					c.dst, c.src = dp, dp
					c.kernel = "LengthsToOffsets32 in place"
					d32 := placeInt32(dstRegion, dp, n+1)
					for i := 1; i <= n; i++ {
						d32[i] = int32(r.IntN(100))
					}
					want32, _ := lengthsToOffsets32Def(slices.Clone(d32[1:]), math.MaxInt32)
					if !lengthsToOffsets32(im, d32, d32[1:], math.MaxInt32) || !slices.Equal(d32, want32) {
						t.Fatalf("%v: wrong result", &c)
					}
					c.kernel = "LengthsToOffsets64 in place"
					d64 := placeInt64(dstRegion, dp, n+1)
					for i := 1; i <= n; i++ {
						d64[i] = int64(r.IntN(100))
					}
					want64, _ := lengthsToOffsets64Def(slices.Clone(d64[1:]), math.MaxInt64)
					if !lengthsToOffsets64(im, d64, d64[1:], math.MaxInt64) || !slices.Equal(d64, want64) {
						t.Fatalf("%v: wrong result", &c)
					}
				}
			}
		}
	}
}

// placeAs returns n elements of T at pos in region.
func placeAs[T any](region []byte, pos guardPos, n int) []T {
	var zero T
	b := place(region, pos, int(unsafe.Sizeof(zero))*n)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func TestGuardIsASCII(t *testing.T) {
	lengths := guardLengths(1023, 1024, 4095, 4096, 4097, 65536, 65537)
	region := guarded(t, slices.Max(lengths))
	r := rand.New(rand.NewPCG(31, 32))
	var c guardCase
	defer trap(t, &c)()
	for _, im := range impls {
		c.impl = im.name
		for _, n := range lengths {
			c.n = n
			for _, pos := range guardPositions {
				c.src = pos
				b := place(region, pos, n)
				for i := range b {
					b[i] = byte(r.IntN(128))
				}
				check := func(what string) {
					t.Helper()
					c.kernel = "isASCII " + what
					want := isASCIIGeneric(slices.Clone(b))
					if got := im.isASCII(b); got != want {
						t.Fatalf("%v: got %v, want %v", &c, got, want)
					}
				}
				check("ascii")
				if n > 0 {
					// A high bit in the last byte, against the page at the
					// end, and in the first, against it at the start.
					b[n-1] |= 0x80
					check("last high")
					b[n-1] &^= 0x80
					b[0] |= 0x80
					check("first high")
				}
			}
		}
	}
}

func TestGuardMaxUint(t *testing.T) {
	lengths := guardLengths(1023, 1024, 4097, 65537)
	region := guarded(t, 8*slices.Max(lengths))
	r := rand.New(rand.NewPCG(33, 34))
	var c guardCase
	defer trap(t, &c)()
	for _, im := range impls {
		c.impl = im.name
		for _, n := range lengths {
			c.n = n
			for _, pos := range guardPositions {
				c.src = pos
				fillRandom(r, place(region, pos, 8*n))
				// The values as they are, then with the largest value of
				// the type at the page's side.
				for _, edge := range []bool{false, true} {
					x8, x16 := placeAs[uint8](region, pos, n), placeAs[uint16](region, pos, n)
					x32, x64 := placeAs[uint32](region, pos, n), placeAs[uint64](region, pos, n)
					if edge && n > 0 {
						at := n - 1
						if pos == atStart {
							at = 0
						}
						x8[at], x16[at], x32[at], x64[at] = math.MaxUint8, math.MaxUint16, math.MaxUint32, math.MaxUint64
					}
					c.kernel = fmt.Sprintf("max8 edge=%v", edge)
					if got, want := im.max8(x8), maxDef(slices.Clone(x8)); got != want {
						t.Fatalf("%v: got %#x, want %#x", &c, got, want)
					}
					c.kernel = fmt.Sprintf("max16 edge=%v", edge)
					if got, want := im.max16(x16), maxDef(slices.Clone(x16)); got != want {
						t.Fatalf("%v: got %#x, want %#x", &c, got, want)
					}
					c.kernel = fmt.Sprintf("max32 edge=%v", edge)
					if got, want := im.max32(x32), maxDef(slices.Clone(x32)); got != want {
						t.Fatalf("%v: got %#x, want %#x", &c, got, want)
					}
					c.kernel = fmt.Sprintf("max64 edge=%v", edge)
					if got, want := im.max64(x64), maxDef(slices.Clone(x64)); got != want {
						t.Fatalf("%v: got %#x, want %#x", &c, got, want)
					}
				}
			}
		}
	}
}

package arrowpack

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Kernel benchmarks: every kernel on every path this machine has, at three
// sizes, named Benchmark<Kernel>/impl=<path>/n=<size> (plus off=<bit offset>
// for the bitmap kernels). arrow-go's bitutil runs as one more impl of the
// bitmap kernels, and BenchmarkCopy gives copy()'s speed on the same byte
// counts: the memory-speed floor. b.SetBytes is the bytes the kernel reads,
// so MB/s compares across all of them. For a table with one column per path:
//
//	go test -run '^$' -bench . -count 6 -timeout 0 > bench.txt
//	benchstat -col /impl bench.txt
//	benchstat -col /impl -filter /n:64Ki bench.txt
//
// (-count 6 of everything runs past go test's default 10-minute timeout;
// -timeout 0 lifts it.) n counts elements for the offsets kernels, bits for
// the bitmap kernels and values for the byte transpositions (w=<width>
// bytes each).

var benchSizes = []struct {
	name string
	n    int
}{{"1Ki", 1 << 10}, {"64Ki", 1 << 16}, {"1Mi", 1 << 20}}

// Keep results alive so that no call is optimised away.
var (
	benchSinkBool bool
	benchSinkInt  int
)

// benchOffsets returns n valid offsets, the same for every run.
func benchOffsets[T offset](n int) []T {
	var o any
	switch any(T(0)).(type) {
	case int32:
		o = randOffsets32(rand.New(rand.NewPCG(1, uint64(n))), n)
	default:
		o = randOffsets64(rand.New(rand.NewPCG(2, uint64(n))), n)
	}
	return o.([]T)
}

// benchEach runs body on every path at every size, as
// impl=<path>/n=<size>.
func benchEach(b *testing.B, body func(b *testing.B, im *impl, n int)) {
	for _, im := range impls {
		for _, s := range benchSizes {
			b.Run(fmt.Sprintf("impl=%s/n=%s", im.name, s.name), func(b *testing.B) { body(b, im, s.n) })
		}
	}
}

func benchBits(n, off int) []byte {
	r := rand.New(rand.NewPCG(3, uint64(n)))
	b := make([]byte, (off+n+7)/8)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func benchRebase[T offset](b *testing.B, kernel func(*impl) func(dst, src []T, base T)) {
	benchEach(b, func(b *testing.B, im *impl, n int) {
		src := benchOffsets[T](n)
		dst := make([]T, n)
		f := kernel(im)
		b.SetBytes(int64(bitsOf[T]() / 8 * n))
		for b.Loop() {
			f(dst, src, 12345)
		}
	})
}

func BenchmarkRebaseOffsets32(b *testing.B) {
	benchRebase(b, func(im *impl) func(dst, src []int32, base int32) { return im.rebase32 })
}

func BenchmarkRebaseOffsets64(b *testing.B) {
	benchRebase(b, func(im *impl) func(dst, src []int64, base int64) { return im.rebase64 })
}

// The ValidOffsets inputs are valid, as real offsets are, so every call
// scans them to the end.

func benchValidOffsets[T offset](b *testing.B, valid func(*impl, []T, T) bool) {
	benchEach(b, func(b *testing.B, im *impl, n int) {
		o := benchOffsets[T](n)
		limit := o[n-1]
		b.SetBytes(int64(bitsOf[T]() / 8 * n))
		for b.Loop() {
			benchSinkBool = valid(im, o, limit)
		}
		if !benchSinkBool {
			b.Fatal("valid offsets refused")
		}
	})
}

func BenchmarkValidOffsets32(b *testing.B) { benchValidOffsets(b, validOffsets32) }

func BenchmarkValidOffsets64(b *testing.B) { benchValidOffsets(b, validOffsets64) }

// bitsImpl is one way to run the bitmap kernels: a path of this package or
// arrow-go's bitutil.
type bitsImpl struct {
	name      string
	copyBits  func(dst, src []byte, off, n int)
	countOnes func(b []byte, off, n int) int
}

func bitsImpls() []bitsImpl {
	var bs []bitsImpl
	for _, im := range impls {
		bs = append(bs, bitsImpl{
			name:      im.name,
			copyBits:  func(dst, src []byte, off, n int) { copyBits(im, dst, src, off, n) },
			countOnes: func(b []byte, off, n int) int { return countOnes(im, b, off, n) },
		})
	}
	return append(bs, bitsImpl{
		name:      "bitutil",
		copyBits:  func(dst, src []byte, off, n int) { bitutil.CopyBitmap(src, off, n, dst, 0) },
		countOnes: bitutil.CountSetBits,
	})
}

func BenchmarkCopyBits(b *testing.B) {
	for _, bi := range bitsImpls() {
		for _, off := range []int{3, 0} {
			for _, s := range benchSizes {
				b.Run(fmt.Sprintf("impl=%s/off=%d/n=%s", bi.name, off, s.name), func(b *testing.B) {
					src := benchBits(s.n, off)
					dst := make([]byte, (s.n+7)/8)
					b.SetBytes(int64(s.n / 8))
					for b.Loop() {
						bi.copyBits(dst, src, off, s.n)
					}
				})
			}
		}
	}
}

func BenchmarkCountOnes(b *testing.B) {
	for _, bi := range bitsImpls() {
		for _, off := range []int{3, 0} {
			for _, s := range benchSizes {
				b.Run(fmt.Sprintf("impl=%s/off=%d/n=%s", bi.name, off, s.name), func(b *testing.B) {
					bits := benchBits(s.n, off)
					b.SetBytes(int64(s.n / 8))
					for b.Loop() {
						benchSinkInt = bi.countOnes(bits, off, s.n)
					}
				})
			}
		}
	}
}

// BenchmarkCopy is copy() of the byte counts the kernels read: the floor
// for any kernel that reads (and writes) its whole input.
func BenchmarkCopy(b *testing.B) {
	seen := map[int]bool{}
	var counts []int
	for _, s := range benchSizes {
		for _, c := range []int{s.n / 8, s.n, 2 * s.n, 4 * s.n, 8 * s.n, 16 * s.n} {
			if !seen[c] {
				seen[c] = true
				counts = append(counts, c)
			}
		}
	}
	for _, c := range counts {
		b.Run("bytes="+sizeName(c), func(b *testing.B) {
			src := make([]byte, c)
			dst := make([]byte, c)
			b.SetBytes(int64(c))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

// sizeName writes a power-of-two-multiple byte count as 128, 4Ki or 8Mi.
func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMi", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKi", n>>10)
	}
	return fmt.Sprint(n)
}

func benchTransposition(b *testing.B, run func(im *impl, dst, src []byte, width int)) {
	for _, im := range impls {
		for _, w := range transposeWidths {
			for _, s := range benchSizes {
				b.Run(fmt.Sprintf("impl=%s/w=%d/n=%s", im.name, w, s.name), func(b *testing.B) {
					src := benchBits(8*w*s.n, 0)
					dst := make([]byte, len(src))
					b.SetBytes(int64(len(src)))
					for b.Loop() {
						run(im, dst, src, w)
					}
				})
			}
		}
	}
}

func BenchmarkTransposeBytes(b *testing.B) { benchTransposition(b, transposeBytes) }

func BenchmarkUntransposeBytes(b *testing.B) { benchTransposition(b, untransposeBytes) }

func benchOffsetsToLengths[T offset](b *testing.B, kernel func(im *impl, dst, offsets []T)) {
	benchEach(b, func(b *testing.B, im *impl, n int) {
		o := benchOffsets[T](n + 1)
		dst := make([]T, n)
		b.SetBytes(int64(bitsOf[T]() / 8 * n))
		for b.Loop() {
			kernel(im, dst, o)
		}
	})
}

func BenchmarkOffsetsToLengths32(b *testing.B) { benchOffsetsToLengths(b, offsetsToLengths32) }

func BenchmarkOffsetsToLengths64(b *testing.B) { benchOffsetsToLengths(b, offsetsToLengths64) }

// The LengthsToOffsets inputs are valid, as the lengths of real offsets
// are, so every call scans them to the end.

func benchLengthsToOffsets[T offset](b *testing.B, kernel func(im *impl, dst, lengths []T, limit T) bool) {
	benchEach(b, func(b *testing.B, im *impl, n int) {
		o := benchOffsets[T](n + 1)
		lengths := make([]T, n)
		deltasGeneric(lengths, o)
		limit := o[n] - o[0]
		dst := make([]T, n+1)
		b.SetBytes(int64(bitsOf[T]() / 8 * n))
		for b.Loop() {
			benchSinkBool = kernel(im, dst, lengths, limit)
		}
		if !benchSinkBool {
			b.Fatal("valid lengths refused")
		}
	})
}

func BenchmarkLengthsToOffsets32(b *testing.B) { benchLengthsToOffsets(b, lengthsToOffsets32) }

func BenchmarkLengthsToOffsets64(b *testing.B) { benchLengthsToOffsets(b, lengthsToOffsets64) }

// The scans. IsASCII's input is all ASCII, so every call reads it to the
// end; the maxima's inputs are random. n counts bytes for IsASCII and
// elements for the maxima.

var benchSinkUint uint64

func BenchmarkIsASCII(b *testing.B) {
	benchEach(b, func(b *testing.B, im *impl, n int) {
		r := rand.New(rand.NewPCG(4, uint64(n)))
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(r.IntN(128))
		}
		b.SetBytes(int64(n))
		for b.Loop() {
			benchSinkBool = im.isASCII(src)
		}
	})
}

func benchMax[T uint8 | uint16 | uint32 | uint64](b *testing.B, kernel func(*impl) func([]T) T, size int) {
	benchEach(b, func(b *testing.B, im *impl, n int) {
		r := rand.New(rand.NewPCG(5, uint64(n)))
		x := make([]T, n)
		for i := range x {
			x[i] = T(r.Uint64())
		}
		f := kernel(im)
		b.SetBytes(int64(size * n))
		for b.Loop() {
			benchSinkUint = uint64(f(x))
		}
	})
}

func BenchmarkMaxUint8(b *testing.B) {
	benchMax(b, func(im *impl) func([]uint8) uint8 { return im.max8 }, 1)
}

func BenchmarkMaxUint16(b *testing.B) {
	benchMax(b, func(im *impl) func([]uint16) uint16 { return im.max16 }, 2)
}

func BenchmarkMaxUint32(b *testing.B) {
	benchMax(b, func(im *impl) func([]uint32) uint32 { return im.max32 }, 4)
}

func BenchmarkMaxUint64(b *testing.B) {
	benchMax(b, func(im *impl) func([]uint64) uint64 { return im.max64 }, 8)
}

// The bit-packing benchmarks run every width on 8Ki values (the rows of
// the codec's batches; values and packed bytes fit L2 as in the codec),
// named
// Benchmark<Kernel>/w=<width>/impl=<path>; b.SetBytes is the unpacked
// bytes (4 or 8 per value) for packing and unpacking alike, so MB/s is
// values per second times the value size at every width. For the ratio of
// the paths per width: benchstat -col /impl bench.txt
func benchPack[T word](b *testing.B, unpack bool) {
	const n = 8 << 10
	bits := wordBits[T]()
	r := rand.New(rand.NewPCG(7, uint64(bits)))
	for w := 0; w <= bits; w++ {
		src := make([]T, n)
		for i := range src {
			src[i] = T(r.Uint64())&lowMask[T](w) + 1000
		}
		packed := make([]byte, PackedLen(n, w))
		packGeneric(packed, src, 1000, w)
		dst := make([]T, n)
		for _, im := range impls {
			b.Run(fmt.Sprintf("w=%d/impl=%s", w, im.name), func(b *testing.B) {
				b.SetBytes(int64(bits / 8 * n))
				for b.Loop() {
					if unpack {
						unpackWith(im, dst, packed, 1000, w)
					} else {
						packWith(im, packed, src, 1000, w)
					}
				}
			})
		}
	}
}

// packWith and unpackWith call im's kernel for T.
func packWith[T word](im *impl, dst []byte, src []T, base T, w int) {
	switch s := any(src).(type) {
	case []uint32:
		im.pack32(dst, s, uint32(base), w)
	case []uint64:
		im.pack64(dst, s, uint64(base), w)
	}
}

func unpackWith[T word](im *impl, dst []T, src []byte, base T, w int) {
	switch d := any(dst).(type) {
	case []uint32:
		im.unpack32(d, src, uint32(base), w)
	case []uint64:
		im.unpack64(d, src, uint64(base), w)
	}
}

func BenchmarkBitPack32(b *testing.B)   { benchPack[uint32](b, false) }
func BenchmarkBitPack64(b *testing.B)   { benchPack[uint64](b, false) }
func BenchmarkBitUnpack32(b *testing.B) { benchPack[uint32](b, true) }
func BenchmarkBitUnpack64(b *testing.B) { benchPack[uint64](b, true) }

// The ALP benchmarks: integers of up to 40 bits, as ALP's encoder emits
// them from decimals, turned into floats; b.SetBytes is the integers'
// bytes.
func BenchmarkALPDecode64(b *testing.B) {
	benchEach(b, func(b *testing.B, im *impl, n int) {
		r := rand.New(rand.NewPCG(8, uint64(n)))
		src := make([]int64, n)
		for i := range src {
			src[i] = int64(r.Uint64()) >> 24
		}
		dst := make([]float64, n)
		b.SetBytes(int64(8 * n))
		for b.Loop() {
			alpDecode64(im, dst, src, 1, 1e-4)
		}
	})
}

func BenchmarkALPDecode32(b *testing.B) {
	benchEach(b, func(b *testing.B, im *impl, n int) {
		r := rand.New(rand.NewPCG(9, uint64(n)))
		src := make([]int32, n)
		for i := range src {
			src[i] = int32(r.Uint32()) >> 8
		}
		dst := make([]float32, n)
		b.SetBytes(int64(4 * n))
		for b.Loop() {
			alpDecode32(im, dst, src, 1, 1e-2)
		}
	})
}

func benchMinMax[T uint32 | uint64 | int32 | int64](b *testing.B, kernel func(*impl) func([]T) (T, T)) {
	benchEach(b, func(b *testing.B, im *impl, n int) {
		r := rand.New(rand.NewPCG(10, uint64(n)))
		x := make([]T, n)
		for i := range x {
			x[i] = T(r.Uint64())
		}
		f := kernel(im)
		b.SetBytes(int64(unsafe.Sizeof(T(0))) * int64(n))
		for b.Loop() {
			lo, hi := f(x)
			benchSinkInt += int(lo) ^ int(hi)
		}
	})
}

func BenchmarkMinMax32(b *testing.B) {
	benchMinMax(b, func(im *impl) func([]uint32) (uint32, uint32) { return im.minmax32 })
}

func BenchmarkMinMax64(b *testing.B) {
	benchMinMax(b, func(im *impl) func([]uint64) (uint64, uint64) { return im.minmax64 })
}

func BenchmarkMinMaxInt32(b *testing.B) {
	benchMinMax(b, func(im *impl) func([]int32) (int32, int32) { return im.minmaxInt32 })
}

func BenchmarkMinMaxInt64(b *testing.B) {
	benchMinMax(b, func(im *impl) func([]int64) (int64, int64) { return im.minmaxInt64 })
}

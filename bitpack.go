package arrowpack

import (
	"math"
	"unsafe"
)

// The bit-packing kernels: frame of reference and bit-packing of 32-bit and
// 64-bit integers, in a block layout every SIMD width unpacks with whole
// registers. Generic versions are in bitpack_generic.go, vector glue in
// bitpack_vec.go, the assembly in codec_amd64.s (from asm/bitpack.go) and
// codec_arm64.s.
//
// # Layout
//
// n values of width w bits (w <= B, the value size in bits: 32 or 64) pack
// into PackedLen(n, w) bytes: n/256 whole blocks of 256 values, then the
// n%256 values of the tail.
//
// A block of 256 values takes 32*w bytes. It is L = 256/B lanes (8 of
// 32-bit words for BitPack32, 4 of 64-bit words for BitPack64) of w words
// each; word j of lane l is stored little-endian at word index j*L + l of
// the block (byte offset (j*L + l)*B/8). Lane l holds the B values i = k*L
// + l of the block, k = 0..B-1, value k at bits k*w .. k*w+w-1 of the lane,
// where bit b of the lane is bit b%B of the lane's word b/B. So word j of
// every lane sits in one 32-byte row: one AVX2 register (two NEON
// registers) holds the same word of all lanes, and every shift and mask
// step of the unpacking yields L consecutive values.
//
// The tail, after the last whole block, is a plain LSB-first bit stream:
// its value t is at bits t*w .. t*w+w-1, bit b of the tail being bit b%8 of
// its byte b/8; the bits after the last value, up to the byte boundary, are
// zero. It takes ceil((n%256)*w/8) bytes.
//
// Width 0 packs nothing: every value unpacks as base.

// packBlock is the number of values in a packed block.
const packBlock = 256

// PackedLen returns the number of bytes BitPack32 or BitPack64 writes for n
// values of width bits: 32*width bytes per whole block of 256 values, and
// ceil((n%256)*width/8) for the rest. It panics if n is negative, if
// width is outside 0..64 or if the length does not fit an int (which only
// a count far beyond any slice's can make it do).
func PackedLen(n, width int) int {
	if n < 0 || width < 0 || width > 64 {
		panic("arrowpack: PackedLen of a negative count or a width outside 0..64")
	}
	tail := (n%packBlock*width + 7) / 8
	if width > 0 && n/packBlock > (math.MaxInt-tail)/(packBlock/8*width) {
		panic("arrowpack: PackedLen past the largest int")
	}
	return n/packBlock*(packBlock/8)*width + tail
}

// BitPack32 packs the differences src[i] - base (wrapping around as Go's
// uint32 subtraction does) in width bits each into dst, in the layout
// described at the top of bitpack.go (frame of reference and
// bit-packing), and returns PackedLen(len(src), width), the number of bytes
// written. Only dst[:PackedLen(len(src), width)] is written.
//
// The caller makes sure that every src[i] - base is below 1<<width; for a
// signed column, pass uint32(x) and the uint32 of its signed minimum, whose
// differences are the same. Bits of a difference at or above width are
// dropped: it unpacks as base plus its low width bits. BitPack32 panics
// only on a width outside 0..32 or a dst shorter than PackedLen(len(src),
// width), or if dst overlaps src.
func BitPack32(dst []byte, src []uint32, base uint32, width int) int {
	return bitPack32(active, dst, src, base, width)
}

// BitPack64 is BitPack32 for 64-bit values, widths 0..64.
func BitPack64(dst []byte, src []uint64, base uint64, width int) int {
	return bitPack64(active, dst, src, base, width)
}

// BitUnpack32 is the inverse of BitPack32: it unpacks len(dst) values of
// width bits from src and sets dst[i] = value + base (wrapping around).
// It reads only src[:PackedLen(len(dst), width)] and writes all of dst.
// BitUnpack32 panics if width is outside 0..32, if src is shorter than
// PackedLen(len(dst), width), or if dst overlaps src. Any bytes of src
// unpack to some values without error: validating a width and a length
// against the bytes at hand is the caller's part.
func BitUnpack32(dst []uint32, src []byte, base uint32, width int) {
	bitUnpack32(active, dst, src, base, width)
}

// BitUnpack64 is BitUnpack32 for 64-bit values, widths 0..64.
func BitUnpack64(dst []uint64, src []byte, base uint64, width int) {
	bitUnpack64(active, dst, src, base, width)
}

// checkPack panics unless width fits values of bits bits and dst holds the
// packed bytes of n values, and returns dst cut to them.
func checkPack(fn string, dst []byte, n, width, bits int) []byte {
	if width < 0 || width > bits {
		panic("arrowpack: " + fn + " with a width past the value size")
	}
	size := PackedLen(n, width)
	if len(dst) < size {
		panic("arrowpack: " + fn + " with a packed buffer shorter than PackedLen")
	}
	return dst[:size]
}

func bitPack32(im *impl, dst []byte, src []uint32, base uint32, width int) int {
	dst = checkPack("BitPack32", dst, len(src), width, 32)
	if overlapBytes(dst, src) {
		panic("arrowpack: BitPack32 with overlapping dst and src")
	}
	im.pack32(dst, src, base, width)
	return len(dst)
}

func bitPack64(im *impl, dst []byte, src []uint64, base uint64, width int) int {
	dst = checkPack("BitPack64", dst, len(src), width, 64)
	if overlapBytes(dst, src) {
		panic("arrowpack: BitPack64 with overlapping dst and src")
	}
	im.pack64(dst, src, base, width)
	return len(dst)
}

func bitUnpack32(im *impl, dst []uint32, src []byte, base uint32, width int) {
	src = checkPack("BitUnpack32", src, len(dst), width, 32)
	if overlapBytes(src, dst) {
		panic("arrowpack: BitUnpack32 with overlapping dst and src")
	}
	im.unpack32(dst, src, base, width)
}

func bitUnpack64(im *impl, dst []uint64, src []byte, base uint64, width int) {
	src = checkPack("BitUnpack64", src, len(dst), width, 64)
	if overlapBytes(src, dst) {
		panic("arrowpack: BitUnpack64 with overlapping dst and src")
	}
	im.unpack64(dst, src, base, width)
}

// overlapBytes reports whether the bytes b and the elements x share memory.
func overlapBytes[T any](b []byte, x []T) bool {
	if len(x) == 0 {
		return false
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	xb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), len(x)*size)
	return overlap(b, xb)
}

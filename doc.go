// Module arrowpack encodes one Apache Arrow record batch into one block of
// bytes and decodes it back, several times faster than Arrow IPC, for the
// shuffle, exchange and spill paths of query engines. The encoder and
// decoder, streams and compression are in package codec
// (github.com/arrowpack/arrowpack/codec); start there.
//
// This root package, arrowpack, holds the bulk kernels the codec runs over
// every offset and validity buffer: rebasing and validating offsets,
// copying bitmaps to bit 0 and counting their set bits; the scans the
// decoder runs before trusting a buffer (IsASCII, MaxUint8 and the like);
// the transforms that make buffers compress better: byte transposition
// of fixed-width values and offsets turned into lengths and back; and the
// lightweight encodings' kernels: frame of reference and bit-packing
// (BitPack32, BitUnpack32 and their 64-bit twins), the min/max that choose
// their reference and width, and ALP's integer-to-float step.
//
// The kernels come in families, the same as the generator's files in asm/:
// offsets, bitmaps, transform, scan, estimate, bitpack, minmax and alp. For a family F, F.go holds the
// exported functions (their contracts and argument checks), F_generic.go
// the pure-Go reference versions, and F_vec.go the Go around the assembly
// (codec_amd64.s, generated from asm/F.go with avo, and the hand-written
// codec_arm64.s), which does whole vector blocks and leaves the tail to Go.
// kernels.go holds the impl table every path fills; codec_generic.go and
// kernels_vec.go fill it for the generic and the vector path. The path is
// chosen once, at start-up, from the CPU's features (AVX2 on amd64, ASIMD
// on arm64); Implementation reports which. Building with -tags purego
// forces the generic versions everywhere.
//
// The kernels know nothing of Arrow; package codec builds on them.
package arrowpack

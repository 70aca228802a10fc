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
// and the transforms that make buffers compress better: byte transposition
// of fixed-width values and offsets turned into lengths and back.
//
// Each kernel has a pure-Go reference version (codec_generic.go and
// transform_generic.go) and, on amd64 with AVX2 (codec_amd64.s, generated
// by the avo program in asm/) and on arm64 with ASIMD (codec_arm64.s), a
// vector version in assembly. The version is chosen once, at start-up,
// from the CPU's features; Implementation reports which. Building with
// -tags purego forces the generic versions everywhere.
//
// The kernels know nothing of Arrow; package codec builds on them.
package arrowpack

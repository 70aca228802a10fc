package arrowpack

import "testing"

// Fuzz targets: one per kernel case of kernels_harness_test.go. The fuzzer
// chooses the length n (elements, or bits for the bitmap kernels), the
// case's parameter k (bit offset, transposition width), the alignment of
// the slices, and the bytes the case builds its inputs from; every
// implementation this machine supports runs on the same inputs and must
// equal the plain definition, leaving the guard bytes around its slices as
// they were. The seed corpus is in testdata/fuzz/<FuzzName>/; `go test`
// runs it, `go test -run '^$' -fuzz '^FuzzName$' .` explores from it.

// fuzzMaxN bounds the length of non-bitmap inputs, so that each run stays
// short: far past every vector block and unrolled loop, which the table
// and guard tests run at 64Ki and more.
const fuzzMaxN = 1024

// fuzzKernel seeds f with inputs around the vector block sizes and runs
// the case named name on what the fuzzer makes of them.
func fuzzKernel(f *testing.F, name string) {
	c := kernelCase(name)
	for i, n := range []int{0, 1, 7, 31, 63, 64, 65, 127, 128, 129, 300} {
		data := make([]byte, n*c.elem+8)
		for j := range data {
			data[j] = byte(j*7 + i)
		}
		f.Add(data, uint16(n), uint8(i*5), uint8(i*13))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint16, align, k uint8) {
		nn := int(n)
		if !c.bits {
			nn %= fuzzMaxN + 1
		}
		kk := int(k) % c.ks
		for _, im := range c.paths() {
			if err := runHeap(c, im, nn, kk, int(align), newGen(data)); err != nil {
				t.Fatalf("%s %s n=%d k=%d align=%d: %v", im.name, c.name, nn, kk, int(align)%(64/c.elem), err)
			}
		}
	})
}

func FuzzRebaseOffsets32(f *testing.F)    { fuzzKernel(f, "rebase32") }
func FuzzRebaseOffsets64(f *testing.F)    { fuzzKernel(f, "rebase64") }
func FuzzValidOffsets32(f *testing.F)     { fuzzKernel(f, "validOffsets32") }
func FuzzValidOffsets64(f *testing.F)     { fuzzKernel(f, "validOffsets64") }
func FuzzCopyBits(f *testing.F)           { fuzzKernel(f, "copyBits") }
func FuzzCountOnes(f *testing.F)          { fuzzKernel(f, "countOnes") }
func FuzzTransposeBytes(f *testing.F)     { fuzzKernel(f, "transpose") }
func FuzzUntransposeBytes(f *testing.F)   { fuzzKernel(f, "untranspose") }
func FuzzOffsetsToLengths32(f *testing.F) { fuzzKernel(f, "offsetsToLengths32") }
func FuzzOffsetsToLengths64(f *testing.F) { fuzzKernel(f, "offsetsToLengths64") }
func FuzzLengthsToOffsets32(f *testing.F) { fuzzKernel(f, "lengthsToOffsets32") }
func FuzzLengthsToOffsets64(f *testing.F) { fuzzKernel(f, "lengthsToOffsets64") }
func FuzzIsASCII(f *testing.F)            { fuzzKernel(f, "isASCII") }
func FuzzMaxUint8(f *testing.F)           { fuzzKernel(f, "max8") }
func FuzzMaxUint16(f *testing.F)          { fuzzKernel(f, "max16") }
func FuzzMaxUint32(f *testing.F)          { fuzzKernel(f, "max32") }
func FuzzMaxUint64(f *testing.F)          { fuzzKernel(f, "max64") }
func FuzzCopyBitsAt(f *testing.F)         { fuzzKernel(f, "copyBitsAt") }
func FuzzByteHistogram(f *testing.F)      { fuzzKernel(f, "byteHistogram") }
func FuzzBitPack32(f *testing.F)          { fuzzKernel(f, "pack32") }
func FuzzBitPack64(f *testing.F)          { fuzzKernel(f, "pack64") }
func FuzzBitUnpack32(f *testing.F)        { fuzzKernel(f, "unpack32") }
func FuzzBitUnpack64(f *testing.F)        { fuzzKernel(f, "unpack64") }
func FuzzMinMax32(f *testing.F)           { fuzzKernel(f, "minmax32") }
func FuzzMinMax64(f *testing.F)           { fuzzKernel(f, "minmax64") }
func FuzzMinMaxInt32(f *testing.F)        { fuzzKernel(f, "minmaxInt32") }
func FuzzMinMaxInt64(f *testing.F)        { fuzzKernel(f, "minmaxInt64") }
func FuzzALPDecode64(f *testing.F)        { fuzzKernel(f, "alp64") }
func FuzzALPDecode32(f *testing.F)        { fuzzKernel(f, "alp32") }
func FuzzScatter32(f *testing.F)          { fuzzKernel(f, "scatter32") }
func FuzzScatter64(f *testing.F)          { fuzzKernel(f, "scatter64") }

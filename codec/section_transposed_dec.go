package codec

import (
	"github.com/arrowpack/arrowpack"
	"github.com/pierrec/lz4/v4"
)

// decodeTransposed fills raw, exactly, from a transposed LZ4 section
// (section_transposed_enc.go has the layout), checking every header field
// before it uses one: w 4 or 8, n from 1 to 2^20 and n*w at most r, an
// LZ4 block of at least one byte that may decode to n*w bytes (at most
// 255 a byte) and the tail exactly the rest of the section; the block must
// then decode to exactly n*w bytes.
func decodeTransposed(raw, src []byte) error {
	w, n, err := planesHead(src, "transposed")
	if err != nil {
		return err
	}
	if n == 0 || n > lightMaxValues || n*uint64(w) > uint64(len(raw)) {
		return corruptf("transposed section of %d values of %d bytes in %d raw bytes", n, w, len(raw))
	}
	vals := int(n) * w
	tail := len(raw) - vals
	if len(src) < transposedHeader+1+tail {
		return corruptf("transposed section of %d bytes, too short for its header, an LZ4 block and a tail of %d", len(src), tail)
	}
	block := src[transposedHeader : len(src)-tail]
	if uint64(vals) > 255*uint64(len(block)) {
		return corruptf("transposed section's LZ4 block of %d bytes cannot hold %d", len(block), vals)
	}
	sp := planeScratch.Get().(*[]byte)
	defer planeScratch.Put(sp)
	if cap(*sp) < vals {
		*sp = make([]byte, vals)
	}
	t := (*sp)[:vals]
	if got, err := lz4.UncompressBlock(block, t); err != nil || got != vals {
		return corruptf("transposed section: lz4 gave %d bytes of %d (%v)", got, vals, err)
	}
	arrowpack.UntransposeBytes(raw[:vals], t, w)
	copy(raw[vals:], src[len(src)-tail:])
	return nil
}

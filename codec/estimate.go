package codec

import (
	"encoding/binary"
	"math"

	"github.com/arrowpack/arrowpack"
)

// The compressibility estimate: the order-0 entropy of a sample of a piece
// of raw body, from a byte histogram (arrowpack.ByteHistogram), corrected
// for the sample's size (Miller-Madow). A piece whose estimate says it
// would shrink by less than the encoder's minimum savings is stored raw
// without being compressed: random float mantissas, hashes and packed
// bitmaps cost compressor time and give nothing back.

// DefaultMinSavings is the minimum savings WithMinSavings sets by default: a
// piece of a block is compressed only when it is estimated to shrink by at
// least 1/8 of its bytes.
const DefaultMinSavings = 0.125

// Sampling: a piece of at most sampleAll bytes is read whole; a longer one
// through sampleSpans spans of sampleSpan bytes spread evenly over it. The
// sample is small because deciding must cost a few percent of compressing,
// and LZ4 gets through bytes without matches at several GB/s.
const (
	sampleAll   = 256
	sampleSpan  = 64
	sampleSpans = 4
	maxSample   = sampleAll
)

// xlog2x[c] is c*log2(c) for every count c a sample can hold.
var xlog2x = func() *[maxSample + 1]float32 {
	var t [maxSample + 1]float32
	for c := 2; c <= maxSample; c++ {
		t[c] = float32(float64(c) * math.Log2(float64(c)))
	}
	return &t
}()

// sampleHistogram fills counts with the byte histogram of a sample of b and
// returns the sample's size.
func sampleHistogram(counts *[256]uint32, b []byte) int {
	if len(b) <= sampleAll {
		arrowpack.ByteHistogram(counts, b)
		return len(b)
	}
	step := len(b) / sampleSpans
	for i := range sampleSpans {
		arrowpack.ByteHistogram(counts, b[i*step:i*step+sampleSpan])
	}
	return sampleSpans * sampleSpan
}

// entropyBits estimates the bits per byte an order-0 entropy coder needs
// for b, from a sample, histogrammed in counts (which it clears first: the
// caller's room, since the kernel's dispatch makes a local array escape).
func entropyBits(counts *[256]uint32, b []byte) float64 {
	clear(counts[:])
	n := sampleHistogram(counts, b)
	if n == 0 {
		return 0
	}
	var sum float32
	distinct := 0
	for _, c := range counts {
		if c > 1 {
			sum += xlog2x[c]
		}
		if c > 0 {
			distinct++
		}
	}
	h := math.Log2(float64(n)) - float64(sum)/float64(n)
	// Miller-Madow: a sample of n bytes underestimates the entropy by about
	// (distinct-1)/(2n ln 2) bits.
	h += float64(distinct-1) / (2 * float64(n) * math.Ln2)
	return min(h, 8)
}

// matchSample is the most bytes of a piece the match estimate reads: a
// quarter of the piece, at least minMatchSample bytes, from its middle.
const (
	matchSample    = 512
	minMatchSample = 256
)

// matchSavings estimates the fraction of b that LZ-style matching (LZ4, and
// zstd at its fast levels, which do not entropy-code a block without
// matches) saves: a greedy LZ4-like parse of a sample of b with a small
// hash table of 4-byte sequences, counting matched bytes less 3 bytes of
// token and offset per match.
func matchSavings(b []byte) float64 {
	n := min(len(b), max(minMatchSample, len(b)/4), matchSample)
	if n < 8 {
		return 0
	}
	at := (len(b) - n) / 2
	s := b[at : at+n]
	var table [1 << 10]uint16 // 1 + the last position of a hash
	saved := 0
	for i := 0; i+4 <= len(s); {
		v := binary.LittleEndian.Uint32(s[i:])
		h := (v * 2654435761) >> 22
		cand := int(table[h]) - 1
		table[h] = uint16(i + 1)
		if cand < 0 || binary.LittleEndian.Uint32(s[cand:]) != v {
			i++
			continue
		}
		j := 4
		for i+j < len(s) && s[cand+j] == s[i+j] {
			j++
		}
		saved += j - 3
		i += j
	}
	return float64(saved) / float64(len(s))
}

// worth reports whether compressing b is estimated to save at least
// c.minSavings of its bytes. Its sample's entropy must leave room for that
// much, which rules out random bytes cheaply. Then LZ4 saves about what its
// matches do; zstd entropy-codes the literals too, but only of a block
// where it found matches (at its fast levels a block without any is stored
// raw), so it saves the better of the two once there are some matches.
func (c *compressor) worth(counts *[256]uint32, b []byte) bool {
	if c.minSavings <= 0 {
		return true
	}
	if c.minSavings >= 1 {
		return false
	}
	h := entropyBits(counts, b)
	if h > 8*(1-c.minSavings) {
		return false
	}
	if h < surelyCompressible {
		return true
	}
	m := matchSavings(b)
	if c.kind == Zstd && m >= minZstdMatches {
		m = max(m, 1-h/8)
	}
	return m >= c.minSavings
}

// surelyCompressible is the sample entropy, in bits per byte, below which
// a piece is compressed without looking for matches: on the benchmark
// batches such pieces compress, and the ones that do not cost LZ4 little.
const surelyCompressible = 5

// minZstdMatches is the match savings above which zstd is taken to
// entropy-code a piece's literals.
const minZstdMatches = 0.01

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
// through sampleSpans spans spread evenly over it, of an eighth of the piece
// split four ways, between minSpan and maxSpan bytes each. The sample is
// small because deciding must cost a few percent of compressing, and LZ4
// gets through bytes without matches at about a nanosecond a byte: a 1 KiB
// byte plane is read through 128 bytes, a piece of 2 KiB or more through
// 256.
const (
	sampleAll   = 128
	sampleSpans = 4
	minSpan     = 32
	maxSpan     = 64
	maxSample   = sampleSpans * maxSpan
)

// xlog2x[c] is c*log2(c) for every count c a sample can hold.
var xlog2x = func() *[maxSample + 1]float32 {
	var t [maxSample + 1]float32
	for c := 2; c <= maxSample; c++ {
		t[c] = float32(float64(c) * math.Log2(float64(c)))
	}
	return &t
}()

// sampleShape returns how entropyBits samples b: k spans of span bytes,
// the i-th starting at i*step.
func sampleShape(n int) (k, span, step int) {
	if n <= sampleAll {
		return 1, n, 0
	}
	span = min(maxSpan, max(minSpan, n/(8*sampleSpans)))
	return sampleSpans, span, n / sampleSpans
}

// entropyBits estimates the bits per byte an order-0 entropy coder needs
// for b, from a byte histogram of a sample counted in counts: the caller's
// room (the kernel's dispatch makes a local array escape), which must be
// all zero and is left all zero.
func entropyBits(counts *[256]uint32, b []byte) float64 {
	k, span, step := sampleShape(len(b))
	n := k * span
	if n == 0 {
		return 0
	}
	for i := range k {
		arrowpack.ByteHistogram(counts, b[i*step:i*step+span])
	}
	// Walk the sample rather than the 256 counts: each value's count is
	// taken once, at its first byte, and cleared for the next call.
	var sum float32
	distinct := 0
	for i := range k {
		for _, v := range b[i*step : i*step+span] {
			if c := counts[v]; c != 0 {
				sum += xlog2x[c]
				distinct++
				counts[v] = 0
			}
		}
	}
	h := math.Log2(float64(n)) - float64(sum)/float64(n)
	// Miller-Madow: a sample of n bytes underestimates the entropy by about
	// (distinct-1)/(2n ln 2) bits.
	h += float64(distinct-1) / (2 * float64(n) * math.Ln2)
	return min(max(h, 0), 8)
}

// looksConstant reports whether b, of at least 64 bytes, holds one byte
// value at its start and at seven more spots spread over it: the high byte
// planes of transposed integers, zeroed padding, all-valid bitmaps. Such a
// piece is compressed without a histogram; at worst a piece constant only
// at those spots costs the compressor a pass that saves less than hoped.
func looksConstant(b []byte) bool {
	if len(b) < 64 {
		return false
	}
	w := binary.LittleEndian.Uint64(b)
	if w != uint64(b[0])*0x0101010101010101 {
		return false
	}
	step := (len(b) - 8) / 7
	for i := 1; i < 8; i++ {
		if binary.LittleEndian.Uint64(b[i*step:]) != w {
			return false
		}
	}
	return true
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
	return parseSavings(b, (len(b)-n)/2, n, nil, 0)
}

// reachSavings is matchSavings with matches also into the reachWindow
// bytes before the sample, every reachStride-th of their positions a
// candidate: LZ4 matches across its 64 KiB window, and a sample alone
// misses repeats kilobytes apart (lines of generated code), which let
// LZ4 store a piece in a tenth of what the sample's parse implied.
func reachSavings(b []byte, rt *reachTable, minFar int) float64 {
	n := min(len(b), max(minMatchSample, len(b)/4), matchSample)
	return parseSavings(b, (len(b)-n)/2, n, rt, minFar)
}

// farSavings is reachSavings with a table of its own, for a piece the
// sample alone says is not worth compressing; a far match counts from 16
// bytes, as counting shorter ones made LZ4's encode of some real tables
// take 1.7 times as long for 9% fewer bytes (docs/light.md).
func farSavings(b []byte) float64 {
	var rt reachTable
	return reachSavings(b, &rt, 16)
}

// reachTable holds, per hash of 4 bytes, 1 + the last position before the
// sample reachSavings noted.
type reachTable [1 << 12]uint32

const (
	reachWindow = 32 << 10
	reachStride = 16
)

// parseSavings parses the n bytes of b from at, with the sample's earlier
// positions as candidates and, if rt is not nil, every reachStride-th
// position of the reachWindow bytes before it, whose matches count from
// minFar bytes.
func parseSavings(b []byte, at, n int, rt *reachTable, minFar int) float64 {
	if n < 8 {
		return 0
	}
	return float64(parseSaved(b, at, n, rt, minFar, nil)) / float64(n)
}

// parseSaved is parseSavings' parse: it returns the bytes saved and, if
// parts is not nil, adds to each of len(parts) equal parts of the sample
// (n a multiple of their count) its share: the bytes matched within it,
// less 3 for each match that starts in it.
func parseSaved(b []byte, at, n int, rt *reachTable, minFar int, parts []int) int {
	s := b[at : at+n]
	lo := max(0, at-reachWindow)
	if rt != nil {
		*rt = reachTable{}
		for p := lo; p+4 <= at; p += reachStride {
			rt[(binary.LittleEndian.Uint32(b[p:])*2654435761)>>20] = uint32(p + 1)
		}
	}
	var table [1 << 10]uint16 // 1 + the last position of a hash
	saved := 0
	for i := 0; i+4 <= len(s); {
		v := binary.LittleEndian.Uint32(s[i:])
		h := (v * 2654435761) >> 22
		cand := int(table[h]) - 1
		table[h] = uint16(i + 1)
		j := 0
		if cand >= 0 && binary.LittleEndian.Uint32(s[cand:]) == v {
			j = 4 + sharedPrefix(s[cand+4:], s[i+4:])
		}
		if rt != nil {
			if far := int(rt[(v*2654435761)>>20]) - 1; far >= lo && binary.LittleEndian.Uint32(b[far:]) == v {
				k := 4 + sharedPrefix(b[far+4:], s[i+4:])
				if k >= minFar {
					j = max(j, k)
				}
			}
		}
		if j == 0 {
			i++
			continue
		}
		saved += j - 3
		if parts != nil {
			creditParts(parts, len(s)/len(parts), i, j)
		}
		i += j
	}
	return saved
}

// creditParts adds a match of j bytes at i to parts of size bytes each.
func creditParts(parts []int, size, i, j int) {
	parts[i/size] -= 3
	for j > 0 {
		p := i / size
		k := min(j, (p+1)*size-i)
		parts[p] += k
		i, j = i+k, j-k
	}
}

// worth reports whether compressing b is estimated to save at least
// c.minSavings of its bytes. A piece that looks constant does.
//
// LZ4 and MinLZ save only what their matches do, which the greedy parse of
// matchSavings overestimates by about lzSlack (LZ4's parse skips ahead
// through literals and pays for literal runs): a piece of at least
// minMatchPiece is decided by the parse alone, a smaller one (where the
// parse would cost half what compressing does) by its sample's entropy,
// under lzSmallEntropy.
//
// For zstd the sample's entropy must leave room for the savings, which
// rules out random bytes cheaply. zstd at its fast levels entropy-codes
// literals too, but only in a block where it has some matches (a 1 KiB
// byte plane of 3.3 bits per byte and no matches, compressed alone, came
// out larger), so a piece under surelyCompressible bits per byte is
// compressed (its neighbours usually have matches), a smaller piece is
// otherwise stored raw, and a larger one with at least minZstdMatches
// saves the better of the matches' and the entropy's savings.
func (c *compressor) worth(counts *[256]uint32, b []byte) bool {
	ok, _ := c.worthSaving(counts, b, -1)
	return ok
}

// worthSaving is worth given b's match savings m if the caller has them
// (else m < 0); it also returns them if it parsed b, else m as given, so
// that no caller parses a piece twice.
func (c *compressor) worthSaving(counts *[256]uint32, b []byte, m float64) (bool, float64) {
	if c.minSavings <= 0 {
		return true, m
	}
	if c.minSavings >= 1 {
		return false, m
	}
	if looksConstant(b) {
		return true, m
	}
	if c.kind != Zstd && len(b) >= minMatchPiece {
		// LZ4 and MinLZ save what their matches do, whatever the entropy:
		// the match parse alone decides (on random bytes it finds none).
		if m < 0 {
			m = matchSavings(b)
		}
		if m > 0 && m < c.minSavings+lzSlack {
			// A sample without one match (random bytes) is not parsed
			// again: that would double LZ4's encode of random columns.
			m = max(m, farSavings(b))
		}
		return m >= c.minSavings+lzSlack, m
	}
	h := entropyBits(counts, b)
	if h > 8*(1-c.minSavings) {
		return false, m
	}
	if c.kind == Zstd && h < surelyCompressible {
		return true, m
	}
	if len(b) < minMatchPiece {
		// The match parse would read a quarter of the piece, at about
		// half LZ4's cost a byte: decide on the entropy alone.
		return c.kind != Zstd && h < lzSmallEntropy, m
	}
	if m < 0 {
		m = matchSavings(b)
	}
	if m >= minZstdMatches {
		return max(m, 1-h/8) >= c.minSavings, m
	}
	return m >= c.minSavings, m
}

// surelyCompressible is the sample entropy, in bits per byte, below which
// zstd compresses a piece without a look for matches: inside a section
// with matches elsewhere zstd entropy-codes its literals (lineitem's zstd
// block grew 4% when such pieces needed matches of their own).
const surelyCompressible = 5

// minMatchPiece is the smallest piece worth a match parse. A smaller one
// (1 KiB byte planes of transposed integers) is compressed by zstd below
// surelyCompressible bits per byte and by LZ4 and MinLZ below
// lzSmallEntropy, and stored raw otherwise: on the wide benchmark batch LZ4
// shrank such planes by 0.54 under 1 bit per byte, by 0.05 to 0.22 at 2 to
// 2.8 bits and not at all from 3.3 bits up, and zstd did not shrink them
// from 5 bits up.
const (
	minMatchPiece  = 2 << 10
	lzSmallEntropy = 2
)

// lzSlack is how much matchSavings overestimates what LZ4 saves: on the
// float64 columns of the wide benchmark batch an estimate of 0.16 went
// with 0.10 to 0.11 saved, 0.20 with 0.12 to 0.21, 0.27 with 0.38.
const lzSlack = 0.05

// minZstdMatches is the match savings from which zstd is taken to
// entropy-code a piece's literals: validity bitmaps with an estimate of
// 0.05 shrank by 0.43, byte planes with 0.02 or less did not shrink.
const minZstdMatches = 0.04

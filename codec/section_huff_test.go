package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/huff0"
	"github.com/minio/minlz"
)

// skewed returns n bytes of a skewed distribution (a few values often,
// most rarely), which Huffman coding shrinks.
func skewed(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.ExpFloat64() * 6)
	}
	return b
}

// huffSectionOf returns a Huffman section of the inner section z of codec
// inner, coded in streams streams.
func huffSectionOf(t testing.TB, inner Compression, z []byte, streams int) []byte {
	t.Helper()
	s := &huff0.Scratch{Reuse: huff0.ReusePolicyNone}
	var out []byte
	var err error
	if streams == 4 {
		out, _, err = huff0.Compress4X(z, s)
	} else {
		out, _, err = huff0.Compress1X(z, s)
	}
	if err != nil {
		t.Fatalf("huff0 cannot code the %d test bytes: %v", len(z), err)
	}
	h := []byte{byte(inner), byte(streams), 0, 0}
	h = binary.LittleEndian.AppendUint32(h, uint32(len(z)))
	return append(h, out...)
}

// decodeHuffGuarded decodes the Huffman section src into r bytes followed
// by guard bytes, and fails t if a guard byte changed.
func decodeHuffGuarded(t *testing.T, r int, src []byte) ([]byte, error) {
	t.Helper()
	buf := bytes.Repeat([]byte{0xa5}, r+64)
	raw := buf[:r:r]
	var d decompressor
	err := checkSection(codecHuff, uint64(r), src)
	if err == nil {
		err = d.decompressBody(raw, src, codecHuff)
	}
	for i, c := range buf[r:] {
		if c != 0xa5 {
			t.Fatalf("decoding wrote byte %d past the section's %d raw bytes", i, r)
		}
	}
	return raw, err
}

// TestHuffRoundTrip checks Huffman sections of raw, MinLZ and bit-packed
// inner sections, in one and four streams, decode to their raw bytes, also
// with the decoder's kept table of another section before them.
func TestHuffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	raw := skewed(rng, 5000)
	mz, err := minlz.Encode(nil, raw, minlz.LevelFastest)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]byte, 4096)
	for i := range 1024 {
		binary.LittleEndian.PutUint32(vals[4*i:], 1000+uint32(rng.ExpFloat64()*9))
	}
	c, _ := chooseBitpack(vals, 4, nil)
	c.bits = 8
	bp, _ := encodeBitpack(make([]byte, c.size(0)), vals, c, nil)
	for _, tc := range []struct {
		name  string
		inner Compression
		z     []byte
		want  []byte
	}{
		{"raw", None, raw, raw},
		{"minlz", MinLZ, mz, raw},
		{"bitpack", codecBitpack, bp, vals},
	} {
		for _, streams := range []int{1, 4} {
			src := huffSectionOf(t, tc.inner, tc.z, streams)
			got, err := decodeHuffGuarded(t, len(tc.want), src)
			if err != nil {
				t.Fatalf("%s in %d streams: %v", tc.name, streams, err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("%s in %d streams: decoded to other bytes", tc.name, streams)
			}
		}
	}
}

// TestHuffRejects builds hostile Huffman sections field by field and checks
// that each is refused as corrupt, before or while decoding, without
// writing past the section's raw bytes.
func TestHuffRejects(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	raw := skewed(rng, 3000)
	mz, err := minlz.Encode(nil, raw, minlz.LevelFastest)
	if err != nil {
		t.Fatal(err)
	}
	rawSec := huffSectionOf(t, None, raw, 4)
	mzSec := huffSectionOf(t, MinLZ, mz, 1)
	other := huffSectionOf(t, None, skewed(rng, len(raw)), 4) // another table
	// A bit-packed section of 4-byte values with a bad width byte, coded
	// correctly: the inner section's own checks refuse it.
	badBP := make([]byte, bitpackHeader+len(raw))
	badBP[0] = 3
	copy(badBP[bitpackHeader:], raw)
	shortMZ, _ := minlz.Encode(nil, raw[:len(raw)-8], minlz.LevelFastest)
	set := func(src []byte, at int, v ...byte) []byte {
		b := bytes.Clone(src)
		copy(b[at:], v)
		return b
	}
	m32 := func(src []byte, m int) []byte {
		b := bytes.Clone(src)
		binary.LittleEndian.PutUint32(b[4:], uint32(m))
		return b
	}
	for _, tc := range []struct {
		name string
		r    int
		src  []byte
		want string
	}{
		{"shorter than its header", len(raw), rawSec[:huffHeader], "shorter than its header"},
		{"inner codec zstd", len(raw), set(rawSec, 0, byte(Zstd)), "in 4 streams"},
		{"inner codec Huffman", len(raw), set(rawSec, 0, byte(codecHuff)), "in 4 streams"},
		{"inner codec unknown", len(raw), set(rawSec, 0, byte(maxCodec+1)), "in 4 streams"},
		{"2 streams", len(raw), set(rawSec, 1, 2), "in 2 streams"},
		{"0 streams", len(raw), set(rawSec, 1, 0), "in 0 streams"},
		{"reserved bytes", len(raw), set(rawSec, 2, 0, 1), "flags 256"},
		{"m 0", len(raw), m32(rawSec, 0), "decode to 0"},
		{"m past huff0's block", huff0.BlockSizeMax + 1, m32(rawSec, huff0.BlockSizeMax+1), "decode to 262144"},
		{"m past 8 bytes a coded byte", len(raw), m32(mzSec, 8*(len(mzSec)-huffHeader)+1), "coded bytes says"},
		{"raw inner of m other than r", len(raw) + 8, rawSec, "raw bytes codes"},
		{"r past the inner codec's bound", minlz.MaxBlockSize + 8, mzSec, "the most it can produce"},
		{"a table that does not parse", len(raw), set(rawSec, huffHeader, 127), "huffman table"},
		{"codes for one byte more", len(raw), m32(mzSec, len(mz)+1), "huffman codes"},
		{"codes for one byte less", len(raw), m32(mzSec, len(mz)-1), "huffman codes"},
		{"codes of another section's table", len(raw), append(bytes.Clone(mzSec[:huffHeader]), other[huffHeader:]...), "huffman"},
		{"a truncated stream", len(raw), mzSec[:len(mzSec)-1], "huffman codes"},
		{"an inner MinLZ block of other length", len(raw), huffSectionOf(t, MinLZ, shortMZ, 4), "inside a huffman section"},
		{"an inner bit-packed section refused", len(raw), huffSectionOf(t, codecBitpack, badBP, 4), "inside a huffman section"},
	} {
		_, err := decodeHuffGuarded(t, tc.r, tc.src)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a corrupt section error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestHuffTableKept checks that a decoder keeping the tables of earlier
// sections decodes each section with its own table, the kept one for the
// same table bytes, and keeps the tables of two sections that alternate
// (a block's two bitmaps) rather than reading each again.
func TestHuffTableKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 10))
	a, b := skewed(rng, 4000), bytes.Repeat([]byte("table two, other bytes "), 150)
	sa, sb := huffSectionOf(t, None, a, 4), huffSectionOf(t, None, b, 4)
	ts := new(huffTableSet)
	var seen [][]byte // the table bytes of the sections so far
	for i, want := range [][]byte{a, a, b, a, b, b, a} {
		src := sa
		if &want[0] == &b[0] {
			src = sb
		}
		ht, coded, err := ts.read(src[huffHeader:])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(seen, func(b []byte) bool { return bytes.Equal(b, ht.bytes) }) {
			seen = append(seen, slices.Clone(ht.bytes))
		}
		for j, tb := range seen {
			kept := false
			for k := range ts.t {
				kept = kept || bytes.Equal(ts.t[k].bytes, tb)
			}
			if !kept {
				t.Errorf("after section %d: table %d no longer kept", i, j)
			}
		}
		got, err := ht.s.Decoder().Decompress4X(make([]byte, 0, len(want)), coded)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("section %d: %v, decoded to other bytes: %t", i, err, !bytes.Equal(got, want))
		}
	}
}

// TestHuffCoderKeepsTables checks that an encoder's Huffman coder keeps a
// table for each of the sections of a block it codes, so that blocks alike
// reuse each section's table (and decoders skip reading it) rather than
// rebuilding the table of one section when the other's was built.
func TestHuffCoderKeepsTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 11))
	a, b := skewed(rng, 4000), bytes.Repeat([]byte("table two, other bytes "), 150)
	ka, kb := huffKey{inner: None}, huffKey{inner: LZ4}
	var h huffCoder
	for round := range 3 {
		for _, tc := range []struct {
			z   []byte
			key huffKey
		}{{a, ka}, {b, kb}} {
			_, out, reused := h.code(tc.z, 4, tc.key)
			if out == nil {
				t.Fatalf("round %d: huff0 does not code the test bytes", round)
			}
			if reused != (round > 0) {
				t.Errorf("round %d, key %v: table reused %t, want %t", round, tc.key, reused, round > 0)
			}
		}
	}
}

// TestHuffCoderCoversBytes checks that a table rebuilt for a section with
// a byte its kept table had no code for keeps codes for the bytes of the
// section before too: after sections with a rare byte x, then y, a third
// with x is coded with the kept table (without the counts of the first
// section the table has no code for x, and is built again), and every
// section decodes to its bytes with the table code returned.
func TestHuffCoderCoversBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 12))
	with := func(rare byte) []byte {
		z := skewed(rng, 3000)
		for i := range z {
			z[i] &= 31 // bytes 0..31, and the rare one above them
		}
		for i := 0; i < len(z); i += 500 {
			z[i] = rare
		}
		return z
	}
	key := huffKey{inner: None}
	var h huffCoder
	for i, tc := range []struct {
		z      []byte
		reused bool
	}{{with(200), false}, {with(201), false}, {with(200), true}, {with(201), true}} {
		table, out, reused := h.code(tc.z, 4, key)
		if out == nil {
			t.Fatalf("section %d: huff0 does not code the test bytes", i)
		}
		if reused != tc.reused {
			t.Errorf("section %d: table reused %t, want %t", i, reused, tc.reused)
		}
		var s huff0.Scratch
		st, coded, err := huff0.ReadTable(append(slices.Clone(table), out...), &s)
		if err != nil {
			t.Fatalf("section %d: %v", i, err)
		}
		got, err := st.Decoder().Decompress4X(make([]byte, 0, len(tc.z)), coded)
		if err != nil || !bytes.Equal(got, tc.z) {
			t.Fatalf("section %d: %v, decoded to other bytes: %t", i, err, !bytes.Equal(got, tc.z))
		}
	}
}

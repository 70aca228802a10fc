package codec

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/minio/minlz"
	"github.com/pierrec/lz4/v4"
)

// hostileSections returns a block of bombSchema of k sections of codec c,
// each z, declaring r raw bytes.
func hostileSections(c Compression, k, r int, z []byte) []byte {
	chunks := make([]testChunk, k)
	for i := range chunks {
		chunks[i] = testChunk{r: r, codec: c, z: z}
	}
	block := sectionsBlock(k*r/8, k*r, chunks)
	if c > Light {
		block[5] = byte(Light) // a lightweight section codec: the header says light
	}
	return block
}

// zstdHollow returns a zstd frame that declares n content bytes and is long
// enough to hold them (in RLE blocks) but holds one compressed block of
// junk: at most 128 KiB by its block header.
func zstdHollow(n int) []byte {
	z := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	z = append(z, 3<<6|1<<5) // 8-byte content size, single segment
	z = binary.LittleEndian.AppendUint64(z, uint64(n))
	junk := make([]byte, n/(32<<10))
	for i := range junk {
		junk[i] = byte(i*37 + 11)
	}
	hdr := uint32(1 | 2<<1 | len(junk)<<3) // the last block, compressed
	z = append(z, byte(hdr), byte(hdr>>8), byte(hdr>>16))
	return append(z, junk...)
}

// TestCorruptSectionsAllocateLittle decodes blocks of a few KB whose
// sections declare what their codecs' bounds allow (8 MiB a MinLZ section)
// but whose tags or blocks cannot produce it: the decoder must refuse them
// having allocated about the block's size, not the raw body they declare.
func TestCorruptSectionsAllocateLittle(t *testing.T) {
	const mib8 = 8 << 20
	prefix := make([]byte, 24)
	short := minlzRun(prefix, mib8-24-1000) // tags produce 1000 bytes short of the length it declares
	binary.PutUvarint(short[1:], mib8)
	badOffset := minlzRun(prefix, mib8-24)
	badOffset[1+4] = 0x02 | 5<<2 // a copy with a 16-bit offset past the output
	lz4Short := lz4Run(prefix, 255*1000)
	lz4Zero := lz4Run(prefix, 255*1000)
	lz4Zero[1+len(prefix)+1+0] = 0 // offset 0
	lz4Zero[1+len(prefix)+1+1] = 0
	huffShort := huffSectionOf(t, MinLZ, short, 1)
	for _, tc := range []struct {
		name string
		c    Compression
		k, r int
		z    []byte
	}{
		{"minlz short", MinLZ, 30, mib8, short},
		{"minlz offset", MinLZ, 30, mib8, badOffset},
		{"lz4 short", LZ4, 2, 255*1000 + 24 + 4000, lz4Short},
		{"lz4 offset 0", LZ4, 2, 255*1000 + 24, lz4Zero},
		{"zstd hollow", Zstd, 30, mib8, zstdHollow(mib8)},
		{"huffman of minlz short", codecHuff, 30, mib8, huffShort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			block := hostileSections(tc.c, tc.k, tc.r, tc.z)
			dec := must(NewDecoder(bombSchema))
			var err error
			got := allocated(func() { _, err = dec.Decode(block) })
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decode: %v, want ErrCorrupt", err)
			}
			t.Logf("%d-byte block declaring %d raw bytes: %d bytes allocated; %v", len(block), tc.k*tc.r, got, err)
			if limit := uint64(64*len(block) + 64<<10); got > limit {
				t.Errorf("%d bytes allocated for a %d-byte block, want at most %d", got, len(block), limit)
			}
			if _, err := ReadBlockInfo(block); !errors.Is(err, ErrCorrupt) {
				t.Errorf("ReadBlockInfo: %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestRawLenWalksAgree checks the walks against the codecs' decoders on
// sections compressed from random data and then mutated: a walk finds the
// length the decoder produces whenever the decoder succeeds (so it never
// refuses a section that decodes), and every walk of an encoder's output
// gives its length.
func TestRawLenWalksAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2))
	zdec := must(zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)))
	defer zdec.Close()
	for i := range 600 {
		src := skewed(rng, 1+rng.IntN(40000))
		if i%3 == 0 {
			src = append(src, make([]byte, rng.IntN(200000))...) // runs, which expand past walkRatio
		}
		zs := map[Compression][]byte{
			LZ4:   compressForTest(LZ4, src),
			MinLZ: must(minlz.Encode(nil, src, 1+i%3)),
			Zstd:  testZstd().EncodeAll(src, nil),
		}
		for c, z := range zs {
			if !walkAgrees(t, zdec, c, z, len(src)) {
				t.Fatalf("%s: the walk of an encoder's section of %d bytes does not give its length", c, len(src))
			}
			for range 8 {
				m := append([]byte(nil), z...)
				for range 1 + rng.IntN(3) {
					m[rng.IntN(len(m))] ^= byte(1 + rng.IntN(255))
				}
				walkAgrees(t, zdec, c, m, len(src))
			}
		}
	}
}

// walkAgrees decodes z (of codec c) into n bytes and walks it; it fails t
// if the decoder succeeds where the walk refuses, and reports whether the
// walk accepts n.
func walkAgrees(t *testing.T, zdec *zstd.Decoder, c Compression, z []byte, n int) bool {
	t.Helper()
	var decoded bool
	var ok bool
	switch c {
	case LZ4:
		dst := make([]byte, n)
		got, err := lz4.UncompressBlock(z, dst)
		decoded = err == nil && got == n
		w, wok := lz4RawLen(z, n)
		ok = wok && w == n
	case MinLZ:
		if sz, err := minlz.DecodedLen(z); err == nil && sz == n {
			got, err := minlz.Decode(make([]byte, n), z)
			decoded = err == nil && len(got) == n
		}
		ok = minlzRawLenOK(z, n) || isMinLZLiterals(z)
	case Zstd:
		// What unzstd refuses before decoding does not count.
		var fh zstd.Header
		if fh.Decode(z) == nil && !fh.Skippable && (fh.HasFCS && fh.FrameContentSize == uint64(n) || !fh.HasFCS && n < 256) {
			got, err := zdec.DecodeAll(z, nil)
			decoded = err == nil && len(got) == n
		}
		lo, hi, wok := zstdRawLen(z)
		ok = wok && lo <= uint64(n) && uint64(n) <= hi
	}
	if decoded && !ok {
		t.Fatalf("%s: a section of %d stored bytes decodes to %d, but its walk refuses it", c, len(z), n)
	}
	return ok
}

// isMinLZLiterals reports whether z is a MinLZ block stored as literals
// (declared length 0), which checkSection takes as it is and is not walked.
func isMinLZLiterals(z []byte) bool {
	return len(z) > 1 && z[0] == 0 && z[1] == 0
}

// BenchmarkRawLenWalk measures, side by side, walking a section that
// expands past walkRatio (what checkRawLen adds to a decode) and
// decompressing it: 1 MiB of mostly zeros with skewed bytes between.
func BenchmarkRawLenWalk(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 1))
	var src []byte
	for len(src) < 1<<20 {
		src = append(src, skewed(rng, 64)...)
		src = append(src, make([]byte, 1024)...)
	}
	for _, c := range []Compression{LZ4, MinLZ, Zstd} {
		var z []byte
		if c == MinLZ {
			z = must(minlz.Encode(nil, src, minlz.LevelFastest))
		} else {
			z = compressForTest(c, src)
		}
		s := sectionIn{raw: len(src), codec: c, src: z}
		if uint64(s.raw) <= walkRatio*uint64(len(z)) {
			b.Fatalf("%s: %d bytes stored for %d: not walked", c, len(z), len(src))
		}
		b.Run(c.String()+"/walk", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if err := checkRawLen(s); err != nil {
					b.Fatal(err)
				}
			}
		})
		d := &decompressor{maxBlock: DefaultMaxBlockSize}
		raw := make([]byte, len(src))
		b.Run(c.String()+"/decompress", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if err := d.decompressBody(raw, z, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzRawLen feeds the fuzzer's bytes as an LZ4, MinLZ and zstd section
// and checks that a walk accepts every section its codec's decoder decodes.
func FuzzRawLen(f *testing.F) {
	f.Add(lz4Run(make([]byte, 24), 5000), uint16(5024))
	f.Add(minlzRun(make([]byte, 24), 5000), uint16(5024))
	f.Add(zstdRLE(5000, 7, true), uint16(5000))
	f.Add(zstdHollow(1<<20), uint16(0))
	zdec := must(zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<20)))
	f.Fuzz(func(t *testing.T, z []byte, n uint16) {
		if n == 0 {
			return // a section declares at least 1 raw byte
		}
		for _, c := range []Compression{LZ4, MinLZ, Zstd} {
			walkAgrees(t, zdec, c, z, int(n))
		}
	})
}

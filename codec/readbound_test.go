package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/minio/minlz"
	"github.com/pierrec/lz4/v4"
)

// Allocation follows the bytes present: each attack below is built by
// structure (valid framing, hostile lengths) and what decoding or reading
// it allocates is counted and logged per input byte. The bound checked is
// decodeAllocBound of the input and of the raw bytes the input's sections
// can produce at most (codecCeiling, worked out here independently of the
// decoder), never of the raw length a header merely declares.

// codecCeiling is, per section codec, a simple upper bound on the raw
// bytes s stored bytes can produce: LZ4 expands at most 255 times, zstd
// at most 128 KiB per 4 bytes (an RLE block), a MinLZ block holds at most
// 8 MiB whatever its size.
func codecCeiling(c Compression, s int) int {
	switch c {
	case LZ4:
		return 255 * s
	case Zstd:
		return 32 << 10 * s
	case MinLZ:
		return 8 << 20
	}
	return s
}

// zeroBody is the raw body of a bombSchema batch of rows zeros: the row
// count, an absent validity bitmap and the values.
func zeroBody(rows int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(rows))
	b = binary.LittleEndian.AppendUint64(b, 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(8*rows))
	return append(b, make([]byte, 8*rows)...)
}

// sectionsBlock returns a block of bombSchema of rows rows whose body is
// the given sections (of their own codecs) declaring raw bytes in all.
func sectionsBlock(rows, raw int, chunks []testChunk) []byte {
	h := header{compression: chunks[0].codec, fingerprint: fingerprint(bombSchema), rows: rows, raw: raw}
	stored := chunkTable(uint64(len(chunks)), chunks, false)
	h.stored = len(stored)
	block := make([]byte, headerSize+len(stored))
	h.put(block)
	copy(block[headerSize:], stored)
	return block
}

// lz4Run returns an LZ4 block of prefix as literals followed by one match
// of offset 1 and length n (at least 4): prefix then n copies of its last
// byte, in len(prefix) + about n/255 bytes.
func lz4Run(prefix []byte, n int) []byte {
	lit := len(prefix)
	tok := byte(min(lit, 15))<<4 | byte(min(n-4, 15))
	z := []byte{tok}
	z = lz4Length(z, lit)
	z = append(z, prefix...)
	z = append(z, 1, 0) // offset 1
	return lz4Length(z, n-4)
}

// lz4Length appends the extra length bytes of a token nibble for v.
func lz4Length(z []byte, v int) []byte {
	if v < 15 {
		return z
	}
	for v -= 15; v >= 255; v -= 255 {
		z = append(z, 255)
	}
	return append(z, byte(v))
}

// zstdRLE returns a zstd frame of n copies of byte v made of RLE blocks of
// 128 KiB (4 bytes each), declaring n as its content size when fcs is set
// (a single-segment frame), else with a window of n rounded up to a power
// of two.
func zstdRLE(n int, v byte, fcs bool) []byte {
	z := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	if fcs {
		z = append(z, 3<<6|1<<5) // 8-byte content size, single segment
		z = binary.LittleEndian.AppendUint64(z, uint64(n))
	} else {
		// Window_Descriptor: exponent e, window 1 << (10 + e).
		e := 0
		for 1<<(10+e) < n {
			e++
		}
		z = append(z, 0, byte(e)<<3)
	}
	for n > 0 {
		size := min(n, 128<<10)
		n -= size
		last := 0
		if n == 0 {
			last = 1
		}
		hdr := uint32(last | 1<<1 | size<<3) // an RLE block
		z = append(z, byte(hdr), byte(hdr>>8), byte(hdr>>16), v)
	}
	return z
}

// minlzRun returns a MinLZ block of prefix (1 to 29 bytes) as literals
// then a repeat of offset 1 (its last byte) of n bytes, 31 <= n < 1<<24+30.
func minlzRun(prefix []byte, n int) []byte {
	z := binary.AppendUvarint([]byte{0}, uint64(len(prefix)+n))
	z = append(z, byte(len(prefix)-1)<<3) // literals
	z = append(z, prefix...)
	z = append(z, 31<<3|1<<2) // a repeat of 30 + a 3-byte length
	v := n - 30
	return append(z, byte(v), byte(v>>8), byte(v>>16))
}

// TestCodecMaxExpansion builds, for each codec, the section that expands
// most by its format and checks that the library decodes it to what the
// decoder's bound (sectionMaxRaw) says is the most, so that the bound is
// sound (never below what a section can produce) and tight.
func TestCodecMaxExpansion(t *testing.T) {
	t.Run("lz4", func(t *testing.T) {
		for _, k := range []int{0, 1, 2, 10, 1000} {
			// One literal, then a match of offset 1 and the longest
			// length k extra bytes give: 255k + 18.
			z := []byte{1<<4 | 15, 'x', 1, 0}
			if k == 0 {
				z[0] = 1<<4 | 14
			}
			for i := range k {
				if i < k-1 {
					z = append(z, 255)
				} else {
					z = append(z, 254)
				}
			}
			want := 1 + 18 + 255*k
			if k == 0 {
				want = 1 + 18
			}
			dst := make([]byte, want+64)
			n, err := lz4.UncompressBlock(z, dst)
			t.Logf("%d-byte LZ4 block: %d bytes (%v); the bound says %d", len(z), n, err, sectionMaxRaw(LZ4, len(z)))
			if err != nil || n != want {
				t.Fatalf("%d-byte LZ4 block decoded to %d bytes (%v), want %d", len(z), n, err, want)
			}
			if b := sectionMaxRaw(LZ4, len(z)); uint64(n) != b {
				t.Errorf("%d-byte LZ4 block decodes to %d bytes; the bound says %d", len(z), n, b)
			}
		}
	})
	t.Run("zstd", func(t *testing.T) {
		dec := must(zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)))
		defer dec.Close()
		for _, blocks := range []int{1, 2, 64} {
			z := zstdRLE(blocks<<17, 7, false)
			got, err := dec.DecodeAll(z, nil)
			if err != nil || len(got) != blocks<<17 {
				t.Fatalf("%d-byte zstd frame decoded to %d bytes (%v), want %d", len(z), len(got), err, blocks<<17)
			}
			if b := sectionMaxRaw(Zstd, len(z)); uint64(len(got)) != b {
				t.Errorf("%d-byte zstd frame decodes to %d bytes; the bound says %d", len(z), len(got), b)
			}
		}
	})
	t.Run("minlz", func(t *testing.T) {
		z := minlzRun([]byte{0}, minlz.MaxBlockSize-1)
		got, err := minlz.Decode(nil, z)
		if err != nil || len(got) != minlz.MaxBlockSize {
			t.Fatalf("%d-byte MinLZ block decoded to %d bytes (%v), want %d", len(z), len(got), err, minlz.MaxBlockSize)
		}
		if b := sectionMaxRaw(MinLZ, len(z)); b != minlz.MaxBlockSize {
			t.Errorf("a %d-byte MinLZ block decodes to %d bytes; the bound says %d", len(z), len(got), b)
		}
	})
}

// TestMinLZSectionCap decodes blocks of one MinLZ section holding a sound
// batch in 8 MiB, then 8 MiB + 8 and 64 MiB raw bytes: FORMAT.md caps a
// MinLZ section at 8 MiB, which ReadBlockInfo and Decode must enforce
// before allocating the raw body.
func TestMinLZSectionCap(t *testing.T) {
	for _, raw := range []int{minlz.MaxBlockSize, minlz.MaxBlockSize + 8, 64 << 20} {
		rows := (raw - 24) / 8
		body := zeroBody(rows)
		z := minlzRun(body[:24], min(len(body)-24, 1<<24-1))
		block := sectionsBlock(rows, len(body), []testChunk{{r: len(body), codec: MinLZ, z: z}})
		_, infoErr := ReadBlockInfo(block)
		var rec interface{ Release() }
		var err error
		spent := allocated(func() { rec, err = must(NewDecoder(bombSchema)).Decode(block) })
		if raw <= minlz.MaxBlockSize {
			if err != nil || infoErr != nil {
				t.Fatalf("a MinLZ section of %d bytes: %v; ReadBlockInfo: %v", raw, err, infoErr)
			}
			rec.Release()
			continue
		}
		t.Logf("a MinLZ section of %d raw bytes in a %d-byte block: %d bytes allocated; %v", raw, len(block), spent, err)
		if err == nil {
			rec.Release()
		}
		if !errors.Is(err, ErrCorrupt) || !errors.Is(infoErr, ErrCorrupt) {
			t.Errorf("a MinLZ section of %d raw bytes (cap %d): %v; ReadBlockInfo: %v; want ErrCorrupt", raw, minlz.MaxBlockSize, err, infoErr)
		}
		if bound := decodeAllocBound(len(block), 0); spent > bound {
			t.Errorf("%d bytes allocated before refusing the section, the bound is %d", spent, bound)
		}
	}
}

// readAttack is one hostile input and what reading it cost.
type readAttack struct {
	name      string
	in        int    // input bytes
	ceiling   int    // raw bytes its sections can produce at most
	allocated uint64 // heap bytes allocated
	err       error
}

func (a readAttack) String() string {
	return fmt.Sprintf("%s: %d input bytes (sections can produce %d) -> %d bytes allocated, %.1f per input byte; err: %v",
		a.name, a.in, a.ceiling, a.allocated, float64(a.allocated)/float64(a.in), a.err)
}

// check logs a and fails if it allocated past decodeAllocBound of its
// input and ceiling.
func (a readAttack) check(t *testing.T) {
	t.Helper()
	t.Log(a)
	if bound := decodeAllocBound(a.in, a.ceiling); a.allocated > bound {
		t.Errorf("%s: %d bytes allocated, the bound is %d", a.name, a.allocated, bound)
	}
}

// hostileDeclared returns a block of about 2 KB whose one section of codec
// c holds 2,000 random bytes compressed yet declares raw bytes.
func hostileDeclared(c Compression, raw int) []byte {
	src := make([]byte, 2000)
	rng := rand.New(rand.NewPCG(1, uint64(c)))
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	var z []byte
	if c == MinLZ {
		z = must(minlz.Encode(nil, src, minlz.LevelFastest))
	} else {
		z = compressForTest(c, src)
	}
	return sectionsBlock(raw/8, raw, []testChunk{{r: raw, codec: c, z: z}})
}

// TestReadBoundDeclaredRaw decodes blocks of about 2 KB whose one section
// declares a raw body of 256 MiB, far past what its stored bytes can
// produce: the decoder must refuse them before it allocates the body.
func TestReadBoundDeclaredRaw(t *testing.T) {
	for _, c := range []Compression{LZ4, Zstd, MinLZ} {
		t.Run(c.String(), func(t *testing.T) {
			block := hostileDeclared(c, 256<<20)
			dec := must(NewDecoder(bombSchema))
			a := readAttack{name: c.String() + " section declaring 256 MiB", in: len(block),
				ceiling: min(codecCeiling(c, len(block)), 256<<20)}
			a.allocated = allocated(func() { _, a.err = dec.Decode(block) })
			if !errors.Is(a.err, ErrCorrupt) {
				t.Errorf("decode: %v, want ErrCorrupt", a.err)
			}
			a.check(t)
			if a.allocated > uint64(decodeAllocBound(a.in, 0)) {
				t.Errorf("%d bytes allocated for a body the section cannot hold: the check must come first", a.allocated)
			}
		})
	}
}

// TestReadBoundMaxExpansion decodes blocks whose sections expand as much
// as their codecs allow and hold a sound batch of zeros: the decoder
// allocates the raw body (within 1/8 of it) and little else.
func TestReadBoundMaxExpansion(t *testing.T) {
	const rows = (8<<20 - 24) / 8 // 8 MiB of raw body, MinLZ's most
	body := zeroBody(rows)
	cases := []struct {
		c Compression
		z []byte
	}{
		{LZ4, lz4Run(body[:24], len(body)-24)},
		{Zstd, nil}, // below
		{MinLZ, minlzRun(body[:24], len(body)-24)},
	}
	// zstd: the 24 bytes as a raw block, then RLE blocks of zeros.
	zs := zstdRLE(len(body)-24, 0, true)
	binary.LittleEndian.PutUint64(zs[5:], uint64(len(body)))
	raw := append([]byte{byte(24<<3 | 0), 0, 0}, body[:24]...) // a raw block of 24 bytes
	cases[1].z = append(append(zs[:13:13], raw...), zs[13:]...)
	for _, tc := range cases {
		t.Run(tc.c.String(), func(t *testing.T) {
			block := sectionsBlock(rows, len(body), []testChunk{{r: len(body), codec: tc.c, z: tc.z}})
			dec := must(NewDecoder(bombSchema))
			a := readAttack{name: tc.c.String() + " section of the most expansion", in: len(block),
				ceiling: codecCeiling(tc.c, len(tc.z))}
			a.allocated = allocated(func() {
				var rec interface{ Release() }
				rec, a.err = dec.Decode(block)
				if a.err == nil {
					rec.Release()
				}
			})
			if a.err != nil {
				t.Fatalf("a sound block of %d raw bytes: %v", len(body), a.err)
			}
			a.check(t)
			if lim := uint64(len(body)+len(body)/8) + uint64(decodeAllocBound(a.in, 0)); a.allocated > lim {
				t.Errorf("%d bytes allocated for a raw body of %d", a.allocated, len(body))
			}
		})
	}
}

// TestPoolSizeClasses checks that the pool rounds no request up by more
// than 1/8 (and keeps 8-byte alignment), and hands a kept buffer back
// only for requests it fits as closely.
func TestPoolSizeClasses(t *testing.T) {
	var p blockPool
	sizes := []int{1, 8, 9, 64, 100, 1000, 4096, 4104, 1<<20 + 8, 3<<20 + 8, 1<<24 + 40, 64<<20 + 40}
	// Up, then down: a kept buffer must not serve a request it is much
	// larger than.
	down := slices.Clone(sizes)
	slices.Reverse(down)
	for _, n := range append(slices.Clone(sizes), down...) {
		b := p.Allocate(n)
		if len(b) != n || cap(b) > max(n+n/8, pad8(n)) {
			t.Errorf("Allocate(%d): len %d cap %d, want cap within 1/8 of the request", n, len(b), cap(b))
		}
		if !aligned(b) {
			t.Errorf("Allocate(%d) is not 8-byte aligned", n)
		}
		p.Free(b)
	}
}

// TestPoolKeepsFew frees buffers of many sizes to one pool: it keeps at
// most poolKeep of them.
func TestPoolKeepsFew(t *testing.T) {
	var p blockPool
	var bufs [][]byte
	for i := range 64 {
		bufs = append(bufs, p.Allocate(1<<10+i*1<<10))
	}
	for _, b := range bufs {
		p.Free(b)
	}
	if n, bytes := p.kept(); n > poolKeep {
		t.Errorf("the pool keeps %d buffers (%d bytes), at most %d wanted", n, bytes, poolKeep)
	}
}

// TestPoolRounding decodes a sound zstd block of a little over 16 MiB: its
// raw body must not take 32 MiB.
func TestPoolRounding(t *testing.T) {
	rows := 1<<21 + 1
	body := zeroBody(rows)
	z := compressForTest(Zstd, body)
	block := sectionsBlock(rows, len(body), []testChunk{{r: len(body), codec: Zstd, z: z}})
	dec := must(NewDecoder(bombSchema))
	var err error
	got := allocated(func() {
		rec, derr := dec.Decode(block)
		if err = derr; err == nil {
			rec.Release()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a %d-byte block of %d raw bytes: %d bytes allocated", len(block), len(body), got)
	if lim := uint64(len(body)+len(body)/8) + uint64(decodeAllocBound(len(block), 0)); got > lim {
		t.Errorf("%d bytes allocated for a raw body of %d, want at most %d", got, len(body), lim)
	}
}

// liveAfterGC returns the heap in use after a garbage collection.
func liveAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestDecoderIdleHolds decodes four hostile blocks of about 2 KB, declaring
// raw bodies of 256, 192, 128 and 96 MiB, with one Decoder, and checks
// what the Decoder still holds after a garbage collection.
func TestDecoderIdleHolds(t *testing.T) {
	dec := must(NewDecoder(bombSchema))
	before := liveAfterGC()
	in := 0
	for i, mib := range []int{256, 192, 128, 96} {
		block := hostileDeclared([]Compression{LZ4, Zstd, LZ4, Zstd}[i], mib<<20)
		in += len(block)
		if _, err := dec.Decode(block); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("decode: %v, want ErrCorrupt", err)
		}
	}
	held := int64(liveAfterGC()) - int64(before)
	t.Logf("after 4 hostile decodes (%d input bytes), the Decoder holds %d bytes", in, held)
	if held > int64(decodeAllocBound(in, 0)) {
		t.Errorf("an idle Decoder holds %d bytes after decoding %d bytes of hostile blocks", held, in)
	}
	runtime.KeepAlive(dec)
}

// streamPrefix returns the stream header and schema of bombSchema.
func streamPrefix() []byte { return streamHeader(ipcSchema(bombSchema)) }

// TestReadBoundStreamFrame reads a stream cut short right after a frame
// header that claims a block of 256 MiB + 40 bytes (and a few bytes of it):
// the Reader must allocate about what the stream held.
func TestReadBoundStreamFrame(t *testing.T) {
	s := streamPrefix()
	var fh [frameHeaderSize]byte
	binary.LittleEndian.PutUint64(fh[:], 256<<20+headerSize)
	s = append(s, fh[:]...)
	s = append(s, bytes.Repeat([]byte{0xa5}, max(8, 176-len(s)))...)
	a := readAttack{name: "a stream frame claiming 256 MiB + 40", in: len(s)}
	a.allocated = allocated(func() {
		rd, err := NewReader(bytes.NewReader(s))
		if err != nil {
			a.err = err
			return
		}
		for rd.Next() {
		}
		a.err = rd.Err()
	})
	if !errors.Is(a.err, ErrCorrupt) {
		t.Errorf("read: %v, want ErrCorrupt", a.err)
	}
	a.check(t)
}

// TestReadBoundStreamSchema reads a 24-byte stream header that claims a
// schema of 64 MiB.
func TestReadBoundStreamSchema(t *testing.T) {
	s := streamHeader(nil)
	binary.LittleEndian.PutUint64(s[8:], maxSchemaSize)
	a := readAttack{name: "a stream header claiming a 64 MiB schema", in: len(s)}
	a.allocated = allocated(func() { _, a.err = NewReader(bytes.NewReader(s)) })
	if !errors.Is(a.err, ErrCorrupt) {
		t.Errorf("read: %v, want ErrCorrupt", a.err)
	}
	a.check(t)
}

// TestReadBoundTruncatedStream reads a sound stream of one block of about
// 8 MiB cut in the middle of the block: the Reader allocates about what it
// read, not the whole block.
func TestReadBoundTruncatedStream(t *testing.T) {
	rows := 1 << 20
	body := zeroBody(rows)
	raw := make([]byte, headerSize+len(body))
	h := header{fingerprint: fingerprint(bombSchema), rows: rows, stored: len(body), raw: len(body)}
	h.put(raw)
	copy(raw[headerSize:], body)
	s := streamPrefix()
	var fh [frameHeaderSize]byte
	binary.LittleEndian.PutUint64(fh[:], uint64(len(raw)))
	s = append(append(s, fh[:]...), raw[:len(raw)/64]...)
	a := readAttack{name: "a stream cut 1/64 into an 8 MiB block", in: len(s)}
	a.allocated = allocated(func() {
		rd, err := NewReader(bytes.NewReader(s))
		if err != nil {
			a.err = err
			return
		}
		for rd.Next() {
		}
		a.err = rd.Err()
	})
	if !errors.Is(a.err, ErrCorrupt) {
		t.Errorf("read: %v, want ErrCorrupt", a.err)
	}
	a.check(t)
	if lim := uint64(4*len(s) + 256<<10); a.allocated > lim {
		t.Errorf("%d bytes allocated reading %d bytes of a stream, want at most %d", a.allocated, len(s), lim)
	}
}

package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/zstd"
	"github.com/minio/minlz"
	"github.com/pierrec/lz4/v4"
)

// Decompression bombs: blocks built by hand whose chunks decompress to far
// more than the raw length they declare. A Decoder must refuse them with
// ErrCorrupt having allocated no more than a small multiple of the declared
// sizes, and must stop decompressing sibling chunks once one has failed.

// bombSchema is the schema of the bomb blocks: one int64 column.
var bombSchema = arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)

// bombRaw is a valid raw block of bombSchema (rows 0..n-1, no nulls).
func bombRaw(t testing.TB, n int) []byte {
	t.Helper()
	b := array.NewInt64Builder(memory.NewGoAllocator())
	for i := range n {
		b.Append(int64(i))
	}
	col := b.NewArray()
	rec := array.NewRecordBatch(bombSchema, []arrow.Array{col}, int64(n))
	col.Release()
	defer rec.Release()
	return must(must(NewEncoder(bombSchema)).Append(nil, rec))
}

// chunkSpec is one section of a hand-built compressed body: the raw length
// it declares and its compressed bytes (in the block's codec).
type chunkSpec struct {
	raw int
	z   []byte
}

// buildCompressed returns a block with raw's header (its compression set to
// c) whose body is the section table of chunks, each of codec c, declaring
// a raw body of rawLen bytes.
func buildCompressed(raw []byte, c Compression, rawLen int, chunks []chunkSpec) []byte {
	stored := 8
	for _, ch := range chunks {
		stored += 8 + bufferSize(len(ch.z))
	}
	b := make([]byte, headerSize+stored)
	copy(b, raw[:headerSize])
	b[5] = byte(c)
	binary.LittleEndian.PutUint16(b[6:], 0)
	binary.LittleEndian.PutUint64(b[24:], uint64(stored))
	binary.LittleEndian.PutUint64(b[32:], uint64(rawLen))
	w := writer{buf: b, pos: headerSize}
	w.word(uint64(len(chunks)))
	for _, ch := range chunks {
		w.word(uint64(ch.raw)<<8 | uint64(c))
		w.bytes(ch.z)
	}
	return b
}

// zstdStream compresses n zero bytes with the streaming zstd encoder, whose
// frame does not declare its content size.
func zstdStream(t testing.TB, n int) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := must(zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1)))
	zero := make([]byte, 1<<20)
	for ; n > 0; n -= len(zero) {
		if _, err := enc.Write(zero[:min(n, len(zero))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// zstdLying is a zstd frame of n zero bytes that declares want as its
// content size (a single-segment frame header rewritten by hand).
func zstdLying(t testing.TB, n int, want uint64) []byte {
	t.Helper()
	z := must(zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))).EncodeAll(make([]byte, n), nil)
	var h zstd.Header
	if err := h.Decode(z); err != nil || !h.HasFCS {
		t.Fatalf("EncodeAll frame: %+v, %v", h, err)
	}
	// Frame_Header_Descriptor: FCS field of 8 bytes, single segment.
	fcsAt := h.HeaderSize - 8
	if z[4]>>6 != 3 {
		// Re-encode the header with an 8-byte content size.
		old := z[4] >> 6
		sizes := [4]int{0, 2, 4, 8}
		n := sizes[old]
		if old == 0 && z[4]&0x20 != 0 {
			n = 1
		}
		body := z[h.HeaderSize:]
		hdr := bytes.Clone(z[:h.HeaderSize-n])
		hdr[4] = hdr[4]&0x3f | 3<<6
		hdr = binary.LittleEndian.AppendUint64(hdr, 0)
		z = append(hdr, body...)
		fcsAt = len(hdr) - 8
	}
	binary.LittleEndian.PutUint64(z[fcsAt:], want)
	return z
}

// bombLimit is the most a refused bomb block may make a Decoder allocate:
// a small multiple of the declared raw length plus the state of a zstd
// block decoder (one zstd block of 128 KiB and its literals).
func bombLimit(block []byte, rawLen int) uint64 {
	return uint64(4*(len(block)+rawLen) + 1<<20)
}

func TestDecompressionBombs(t *testing.T) {
	rawBlock := bombRaw(t, 64)
	rawBody := rawBlock[headerSize:]
	n := len(rawBody)
	const boom = 256 << 20 // what each bomb chunk decompresses to
	stream := zstdStream(t, boom)
	lying := zstdLying(t, boom, uint64(n))
	validZ := must(zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))).EncodeAll(rawBody, nil)
	// A valid frame with a bomb frame after it.
	trailing := append(bytes.Clone(validZ), stream...)
	// An LZ4 block of 8 MiB of zeros (LZ4 expands at most ~255 times),
	// for a chunk declaring n.
	lz := make([]byte, lz4.CompressBlockBound(8<<20))
	lzn := must(lz4.CompressBlock(make([]byte, 8<<20), lz, nil))
	lz = lz[:lzn]

	// A MinLZ block of 8 MiB of zeros, for a chunk declaring n.
	mz := must(minlz.Encode(nil, make([]byte, 8<<20), minlz.LevelFastest))
	// A valid block of the same raw body, to warm a decoder up with: the
	// zstd decoder's state is made on first use.
	good := buildCompressed(rawBlock, Zstd, n, []chunkSpec{{n, validZ}})
	// checkBomb decodes block with dec, warmed up first, and checks that it
	// fails with ErrCorrupt, having allocated no more than bombLimit.
	checkBomb := func(t *testing.T, dec *Decoder, block []byte) {
		t.Helper()
		must(dec.Decode(good)).Release()
		var err error
		got := allocated(func() { _, err = dec.Decode(block) })
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("decode: %v, want ErrCorrupt", err)
		}
		t.Logf("%d-byte block: %d bytes allocated", len(block), got)
		if lim := bombLimit(block, n); got > lim {
			t.Fatalf("a %d-byte block declaring %d raw bytes allocated %d bytes, limit %d (%v)", len(block), n, got, lim, err)
		}
	}

	cases := []struct {
		name string
		c    Compression
		z    []byte
	}{
		{"zstd without content size", Zstd, stream},
		{"zstd lying about its content size", Zstd, lying},
		{"zstd frame after the chunk's frame", Zstd, trailing},
		{"lz4", LZ4, lz},
		{"minlz", MinLZ, mz},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			block := buildCompressed(rawBlock, tc.c, n, []chunkSpec{{n, tc.z}})
			if len(block) > 64<<10 {
				t.Fatalf("bomb block of %d bytes: not a bomb", len(block))
			}
			checkBomb(t, must(NewDecoder(bombSchema)), block)
		})
	}

	// Six bomb chunks, decompressed two at a time.
	t.Run("six chunks in parallel", func(t *testing.T) {
		chunks := make([]chunkSpec, 6)
		for i := range chunks {
			chunks[i] = chunkSpec{8, stream}
		}
		chunks[5].raw = n - 5*8
		block := buildCompressed(rawBlock, Zstd, n, chunks)
		checkBomb(t, must(NewDecoder(bombSchema, WithConcurrency(2))), block)
	})
}

// TestParallelStopsAfterFailure checks that once a section fails no further
// section starts: the first two sections are corrupt, the others large and
// valid. With two goroutines, the third section can only start once one of
// the first two has given its slot back, which it does after failing.
func TestParallelStopsAfterFailure(t *testing.T) {
	const size = 4 << 20
	zero := make([]byte, size)
	z := must(zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))).EncodeAll(zero, nil)
	var chunks []chunkSpec
	// A frame that declares size bytes and is long enough to hold them
	// (checkSection passes it) but whose one block is garbage.
	garbage := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	garbage = append(garbage, 3<<6|1<<5)
	garbage = binary.LittleEndian.AppendUint64(garbage, size)
	const blockHdr = 1 | 2<<1 | 200<<3 // the last block, compressed, 200 bytes
	garbage = append(garbage, blockHdr&0xff, blockHdr>>8, 0)
	garbage = append(garbage, bytes.Repeat([]byte{0xff}, 200)...)
	bad := chunkSpec{size, garbage}
	chunks = append(chunks, bad, bad)
	for range 6 {
		chunks = append(chunks, chunkSpec{size, z})
	}
	stored := 8
	for _, ch := range chunks {
		stored += 8 + bufferSize(len(ch.z))
	}
	body := make([]byte, stored)
	w := writer{buf: body}
	w.word(uint64(len(chunks)))
	for _, ch := range chunks {
		w.word(uint64(ch.raw)<<8 | uint64(Zstd))
		w.bytes(ch.z)
	}
	d := &decompressor{maxBlock: DefaultMaxBlockSize, concurrency: 2, pool: &blockPool{}}
	raw := make([]byte, len(chunks)*size)
	started, err := d.decompressParallel(raw, body, header{compression: Zstd, raw: len(raw)})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("decompress: %v, want ErrCorrupt", err)
	}
	// The second may or may not start, depending on whether the first
	// failed before the second slot was taken; none after it can.
	if started < 1 || started > 2 {
		t.Fatalf("%d of %d sections started, want no more than the 2 corrupt ones", started, len(chunks))
	}
}

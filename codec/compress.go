package codec

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// A compressed block's body is a word holding the compressed length c, then
// c bytes of LZ4 block or zstd frame, then zero padding to a multiple of 8.
// The header's raw length is the length of the body once decompressed, a
// body laid out exactly as an uncompressed block's.

// compressor compresses block bodies for one Encoder. Its codec state is
// kept across blocks; it is safe for concurrent use.
type compressor struct {
	kind  Compression
	level int
	lz4   sync.Pool // *lz4.Compressor or *lz4.CompressorHC
	zstd  *zstd.Encoder
	bufs  sync.Pool // *[]byte: room for compressed output
}

func newCompressor(kind Compression, level int) (*compressor, error) {
	c := &compressor{kind: kind, level: level}
	switch kind {
	case LZ4:
		c.lz4.New = func() any {
			if level > 0 {
				return &lz4.CompressorHC{Level: lz4.CompressionLevel(1 << (8 + level))}
			}
			return &lz4.Compressor{}
		}
	case Zstd:
		lvl := zstd.SpeedDefault
		if level > 0 {
			lvl = zstd.EncoderLevelFromZstd(level)
		}
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("%w: zstd: %v", ErrUnsupported, err)
		}
		c.zstd = enc
	default:
		return nil, fmt.Errorf("%w: compression %s", ErrUnsupported, kind)
	}
	return c, nil
}

// bound is the most bytes compressing n bytes can take.
func (c *compressor) bound(n int) int {
	if c.kind == LZ4 {
		return lz4.CompressBlockBound(n)
	}
	return c.zstd.MaxEncodedSize(n)
}

// compress returns src compressed, in a buffer the caller gives back with
// release.
func (c *compressor) compress(src []byte) (*[]byte, []byte) {
	bp, _ := c.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	if need := c.bound(len(src)); cap(*bp) < need {
		*bp = make([]byte, need)
	}
	out := (*bp)[:cap(*bp)]
	if c.kind == Zstd {
		return bp, c.zstd.EncodeAll(src, out[:0])
	}
	var n int
	var err error
	switch z := c.lz4.Get().(type) {
	case *lz4.Compressor:
		n, err = z.CompressBlock(src, out)
		c.lz4.Put(z)
	case *lz4.CompressorHC:
		n, err = z.CompressBlock(src, out)
		c.lz4.Put(z)
	}
	if err != nil || n == 0 {
		// Cannot happen with a buffer of CompressBlockBound bytes; store
		// the block raw if it does.
		return bp, nil
	}
	return bp, out[:n]
}

func (c *compressor) release(bp *[]byte) { c.bufs.Put(bp) }

// decompressor decompresses block bodies for one Decoder; it is safe for
// concurrent use. The zstd decoder is made on first use.
type decompressor struct {
	maxBlock int
	pool     blockPool // memory for decompressed blocks
	zstdOnce sync.Once
	zstd     *zstd.Decoder
	zstdErr  error
}

// decompress returns the raw block (header and body) of a compressed one:
// block's header, with the compression and flags cleared, and the
// decompressed body, in an 8-byte aligned buffer from d.pool that goes back
// to it on its last Release. h has been checked by parseHeader.
func (d *decompressor) decompress(block []byte, h header) (*memory.Buffer, error) {
	if h.raw > d.maxBlock {
		return nil, corruptf("block body of %d bytes once decompressed is above the limit of %d (WithMaxBlockSize)", h.raw, d.maxBlock)
	}
	body := block[headerSize:]
	if len(body) < 8 {
		return nil, corruptf("compressed body of %d bytes has no length word", len(body))
	}
	clen := binary.LittleEndian.Uint64(body)
	if clen > uint64(len(body)-8) || 8+pad8(int(clen)) != len(body) {
		return nil, corruptf("compressed length %d does not fit a body of %d bytes", clen, len(body))
	}
	out := d.pool.Allocate(headerSize + h.raw)
	copy(out, block[:headerSize])
	out[5] = byte(None)
	binary.LittleEndian.PutUint16(out[6:], 0) // the decoder undoes h.flags
	binary.LittleEndian.PutUint64(out[24:], uint64(h.raw))
	if err := d.decompressBody(out[headerSize:], body[8:8+int(clen)], h.compression); err != nil {
		d.pool.Free(out)
		return nil, err
	}
	return memory.NewBufferWithAllocator(out, &d.pool), nil
}

// decompressBody fills raw, exactly, with src decompressed.
func (d *decompressor) decompressBody(raw, src []byte, c Compression) error {
	switch c {
	case LZ4:
		n, err := lz4.UncompressBlock(src, raw)
		if err != nil {
			return corruptf("lz4: %v", err)
		}
		if n != len(raw) {
			return corruptf("lz4 body decompressed to %d bytes, the header says %d", n, len(raw))
		}
	case Zstd:
		d.zstdOnce.Do(func() {
			d.zstd, d.zstdErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0),
				zstd.WithDecoderMaxMemory(uint64(d.maxBlock)))
		})
		if d.zstdErr != nil {
			return fmt.Errorf("%w: zstd: %v", ErrUnsupported, d.zstdErr)
		}
		got, err := d.zstd.DecodeAll(src, raw[:0])
		if err != nil {
			return corruptf("zstd: %v", err)
		}
		if len(got) != len(raw) || (len(got) > 0 && &got[0] != &raw[0]) {
			return corruptf("zstd body decompressed to %d bytes, the header says %d", len(got), len(raw))
		}
	}
	return nil
}

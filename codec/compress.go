package codec

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// A compressed block's body is a word holding the number of chunks k, then
// k chunks: a word holding the chunk's raw length, then its compressed bytes
// as a buffer (a word holding their length c, the c bytes of LZ4 block or
// zstd frame, zero padding to a multiple of 8). The raw body, laid out as an
// uncompressed block's (with the header flags' transforms applied), is the
// chunks' raw bytes one after another. Chunks compress and decompress
// independently, so WithConcurrency can spread them over goroutines.

// minChunk is the smallest raw chunk an encoder splits a body into: below
// it a goroutine costs more than it saves and compression loses context.
const minChunk = 128 << 10

// chunkCount returns how many chunks an encoder with concurrency n splits a
// raw body of size bytes into.
func chunkCount(size, n int) int {
	return max(1, min(n, size/minChunk))
}

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
		// EncodeAll runs on as many goroutines as the zstd encoder has
		// states; an Encoder is shared by goroutines, so give it one per
		// processor.
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl),
			zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)))
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

// chunkOut is one compressed chunk: its raw length, its compressed bytes and
// the pooled buffer holding them.
type chunkOut struct {
	raw int
	bp  *[]byte
	z   []byte
}

// compressBody compresses body in k chunks (on k goroutines when k > 1) and
// returns the compressed body's size, or -1 when some chunk did not
// compress. one is room for a single chunk, so that k == 1 allocates
// nothing. The caller releases the chunks and writes them with putBody.
func (c *compressor) compressBody(body []byte, k int, one *[1]chunkOut) ([]chunkOut, int) {
	var chunks []chunkOut
	if k == 1 {
		chunks = one[:]
		chunks[0].raw = len(body)
		chunks[0].bp, chunks[0].z = c.compress(body)
	} else {
		chunks = c.compressParallel(body, k)
	}
	stored := 8
	for _, ch := range chunks {
		if ch.z == nil {
			return chunks, -1
		}
		stored += 8 + bufferSize(len(ch.z))
	}
	return chunks, stored
}

// compressParallel compresses body in k chunks of equal length (rounded up
// to a multiple of 8), one goroutine each.
func (c *compressor) compressParallel(body []byte, k int) []chunkOut {
	chunks := make([]chunkOut, k)
	size := pad8((len(body) + k - 1) / k)
	var wg sync.WaitGroup
	for i := range chunks {
		part := body[min(i*size, len(body)):min((i+1)*size, len(body))]
		chunks[i].raw = len(part)
		wg.Go(func() { chunks[i].bp, chunks[i].z = c.compress(part) })
	}
	wg.Wait()
	return chunks
}

// putBody writes the compressed body of chunks after the header.
func putBody(w *writer, chunks []chunkOut) {
	w.word(uint64(len(chunks)))
	for _, ch := range chunks {
		w.word(uint64(ch.raw))
		w.bytes(ch.z)
	}
}

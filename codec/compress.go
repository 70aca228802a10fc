package codec

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
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

// decompressor decompresses block bodies for one Decoder; it is safe for
// concurrent use. The zstd decoder is made on first use.
type decompressor struct {
	maxBlock    int
	concurrency int
	pool        blockPool // memory for decompressed blocks
	zstdOnce    sync.Once
	zstd        *zstd.Decoder
	zstdErr     error
}

// chunkIn is one chunk of a compressed body: where its raw bytes go in the
// raw body and its compressed bytes.
type chunkIn struct {
	at, raw int
	src     []byte
}

// chunks reads the chunk table of a compressed body, checking that the
// chunks fill it exactly and add up to raw bytes, and calls fn for each.
func chunks(body []byte, raw int, fn func(chunkIn) error) error {
	r := reader{buf: body}
	k, err := r.word()
	if err != nil {
		return err
	}
	// A chunk takes at least 16 bytes of body.
	if k == 0 || k > uint64(len(body)/16) {
		return corruptf("compressed body of %d bytes says it has %d chunks", len(body), k)
	}
	at := 0
	for i := range int(k) {
		n, err := r.word()
		if err != nil {
			return err
		}
		if n > uint64(raw-at) {
			return corruptf("chunk %d of %d raw bytes overflows a raw body of %d", i, n, raw)
		}
		src, err := r.anyBuffer("compressed chunk")
		if err != nil {
			return err
		}
		if err := fn(chunkIn{at: at, raw: int(n), src: src}); err != nil {
			return fmt.Errorf("chunk %d: %w", i, err)
		}
		at += int(n)
	}
	if at != raw {
		return corruptf("chunks add up to %d raw bytes, the header says %d", at, raw)
	}
	if r.pos != len(body) {
		return corruptf("%d bytes after the last chunk", len(body)-r.pos)
	}
	return nil
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
	// Check the whole chunk table before allocating anything.
	nchunks := 0
	if err := chunks(body, h.raw, func(chunkIn) error { nchunks++; return nil }); err != nil {
		return nil, err
	}
	out := d.pool.Allocate(headerSize + h.raw)
	copy(out, block[:headerSize])
	out[5] = byte(None)
	binary.LittleEndian.PutUint16(out[6:], 0) // the decoder undoes h.flags
	binary.LittleEndian.PutUint64(out[24:], uint64(h.raw))
	raw := out[headerSize:]
	var err error
	if d.concurrency > 1 && nchunks > 1 {
		err = d.decompressParallel(raw, body, h)
	} else {
		err = chunks(body, h.raw, func(c chunkIn) error {
			return d.decompressBody(raw[c.at:c.at+c.raw:c.at+c.raw], c.src, h.compression)
		})
	}
	if err != nil {
		d.pool.Free(out)
		return nil, err
	}
	return memory.NewBufferWithAllocator(out, &d.pool), nil
}

// decompressParallel decompresses the chunks of body into raw on up to
// d.concurrency goroutines and returns the first error.
func (d *decompressor) decompressParallel(raw, body []byte, h header) error {
	var (
		wg    sync.WaitGroup
		slots = make(chan struct{}, d.concurrency)
		mu    sync.Mutex
		first error
	)
	_ = chunks(body, h.raw, func(c chunkIn) error {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := d.decompressBody(raw[c.at:c.at+c.raw:c.at+c.raw], c.src, h.compression); err != nil {
				err = fmt.Errorf("chunk at raw byte %d: %w", c.at, err)
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
		return nil
	})
	wg.Wait()
	return first
}

// decompressBody fills raw, exactly, with src decompressed. raw's capacity
// must end with it: zstd may write past the length it decodes, up to the
// capacity, and chunks decompressed in parallel lie side by side.
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

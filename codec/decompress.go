package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

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

// eachChunk reads the chunk table of a compressed body, checking that the
// chunks fill it exactly and add up to raw bytes, and calls fn for each.
func eachChunk(body []byte, raw int, fn func(chunkIn) error) error {
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
	if err := eachChunk(body, h.raw, func(chunkIn) error { nchunks++; return nil }); err != nil {
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
		_, err = d.decompressParallel(raw, body, h)
	} else {
		err = eachChunk(body, h.raw, func(c chunkIn) error {
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
// d.concurrency goroutines and returns the first error. Once a chunk has
// failed no further chunk starts. It also returns how many chunks started.
func (d *decompressor) decompressParallel(raw, body []byte, h header) (int, error) {
	var (
		wg      sync.WaitGroup
		slots   = make(chan struct{}, d.concurrency)
		mu      sync.Mutex
		first   error
		failed  atomic.Bool
		started int
	)
	_ = eachChunk(body, h.raw, func(c chunkIn) error {
		slots <- struct{}{}
		if failed.Load() {
			<-slots
			return errStop
		}
		started++
		wg.Go(func() {
			defer func() { <-slots }()
			if err := d.decompressBody(raw[c.at:c.at+c.raw:c.at+c.raw], c.src, h.compression); err != nil {
				err = fmt.Errorf("chunk at raw byte %d: %w", c.at, err)
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				failed.Store(true)
			}
		})
		return nil
	})
	wg.Wait()
	return started, first
}

// errStop ends a walk over the chunks early; it never reaches a caller.
var errStop = errors.New("stop")

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
		return d.unzstd(raw, src)
	}
	return nil
}

// unzstd fills raw, exactly, with the zstd frame src decompressed, never
// allocating more than about len(raw) bytes whatever src holds: the frame
// must declare raw's length as its content size (when it is at least 256
// bytes), which is checked before decoding, and decoding stops at raw's capacity (WithDecodeAllCapLimit), so
// a frame that would decompress past it (a bomb, a frame without a content
// size, frames concatenated after it) fails after at most one zstd block.
func (d *decompressor) unzstd(raw, src []byte) error {
	if len(raw) == 0 {
		// EncodeAll writes nothing for nothing.
		if len(src) != 0 {
			return corruptf("zstd: %d bytes for an empty chunk", len(src))
		}
		return nil
	}
	var fh zstd.Header
	if err := fh.Decode(src); err != nil {
		return corruptf("zstd frame header: %v", err)
	}
	// A frame of fewer than 256 bytes may omit its content size (EncodeAll
	// does); decoding it is bounded by raw's capacity all the same.
	if fh.Skippable || fh.HasFCS && fh.FrameContentSize != uint64(len(raw)) || !fh.HasFCS && len(raw) >= 256 {
		return corruptf("zstd frame declares %d content bytes (known: %t), the chunk holds %d", fh.FrameContentSize, fh.HasFCS && !fh.Skippable, len(raw))
	}
	d.zstdOnce.Do(func() {
		d.zstd, d.zstdErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0),
			zstd.WithDecoderMaxMemory(uint64(d.maxBlock)),
			zstd.WithDecoderMaxWindow(uint64(max(d.maxBlock, zstd.MinWindowSize))),
			zstd.WithDecodeAllCapLimit(true))
	})
	if d.zstdErr != nil {
		return fmt.Errorf("%w: zstd: %v", ErrUnsupported, d.zstdErr)
	}
	got, err := d.zstd.DecodeAll(src, raw[:0:len(raw)])
	if err != nil {
		return corruptf("zstd: %v", err)
	}
	if len(got) != len(raw) || &got[0] != &raw[0] {
		return corruptf("zstd body decompressed to %d bytes, the header says %d", len(got), len(raw))
	}
	return nil
}

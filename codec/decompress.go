package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/zstd"
	"github.com/minio/minlz"
	"github.com/pierrec/lz4/v4"
)

// decompressor decompresses block bodies for one Decoder; it is safe for
// concurrent use. The zstd decoder is made on first use.
type decompressor struct {
	maxBlock    int
	concurrency int
	pool        *blockPool // memory for decompressed blocks
	zstdOnce    sync.Once
	zstd        *zstd.Decoder
	zstdErr     error
}

// sectionIn is one section of a compressed body: where its raw bytes go in
// the raw body, how it is stored and its stored bytes.
type sectionIn struct {
	at, raw int
	codec   Compression
	src     []byte
}

// eachSection reads the section table of a compressed body, checking that
// the sections fill it exactly, that each is of a known codec, is not
// empty, declares a raw length its codec can produce from its stored bytes
// (checkSection) and that they add up to raw bytes, and calls fn for each.
func eachSection(body []byte, raw int, fn func(sectionIn) error) error {
	r := reader{buf: body}
	k, err := r.word()
	if err != nil {
		return err
	}
	// A section takes at least 16 bytes of body.
	if k == 0 || k > uint64(len(body)/16) {
		return corruptf("compressed body of %d bytes says it has %d sections", len(body), k)
	}
	at := 0
	for i := range int(k) {
		desc, err := r.word()
		if err != nil {
			return err
		}
		codec, n := Compression(desc&0xff), desc>>8
		if codec > maxCodec {
			return fmt.Errorf("%w: %w: section %d has codec %d, unknown to this version of arrowpack", ErrUnsupported, ErrCorrupt, i, codec)
		}
		if n == 0 || n > uint64(raw-at) {
			return corruptf("section %d of %d raw bytes in a raw body of %d with %d left", i, n, raw, raw-at)
		}
		src, err := r.anyBuffer("section")
		if err != nil {
			return err
		}
		if err := checkSection(codec, n, src); err != nil {
			return fmt.Errorf("section %d: %w", i, err)
		}
		if err := fn(sectionIn{at: at, raw: int(n), codec: codec, src: src}); err != nil {
			return fmt.Errorf("section %d: %w", i, err)
		}
		at += int(n)
	}
	if at != raw {
		return corruptf("sections add up to %d raw bytes, the header says %d", at, raw)
	}
	if r.pos != len(body) {
		return corruptf("%d bytes after the last section", len(body)-r.pos)
	}
	return nil
}

// checkSection checks, before anything is allocated for it, that a section
// of codec c storing src can decompress to n raw bytes: no more than the
// most its codec can produce from len(src) bytes (sectionMaxRaw), and for
// MinLZ exactly the length the block declares.
func checkSection(c Compression, n uint64, src []byte) error {
	switch c {
	case None:
		if uint64(len(src)) != n {
			return corruptf("raw section of %d bytes stores %d", n, len(src))
		}
		return nil
	case MinLZ:
		// A MinLZ block states its decoded length, at most 8 MiB; Decode
		// also takes Snappy and S2 blocks, which are not MinLZ sections.
		ok, m, err := minlz.IsMinLZ(src)
		if err != nil || !ok || uint64(m) != n {
			return corruptf("minlz section of %d raw bytes (at most %d) declares %d (MinLZ: %t, %v)", n, minlz.MaxBlockSize, m, ok, err)
		}
	case codecHuff:
		return checkHuff(n, src)
	}
	if max := sectionMaxRaw(c, len(src)); n > max {
		return corruptf("%s section of %d stored bytes declares %d raw bytes; the most %s can produce from them is %d", c, len(src), n, c, max)
	}
	return nil
}

// sectionMaxRaw returns the most raw bytes a section of codec c can
// decompress to from s stored bytes, by the codec's format (FORMAT.md,
// "Bounds", derives each):
//
//   - LZ4: a block is sequences of a token, literals and a match of offset
//     2 bytes; a match's length is 4 + its nibble (at most 18 without extra
//     bytes) + its extra bytes (255 each, the last below 255). Literals cost
//     a byte each, so output <= L + 18T + 255E for s >= L + 3T + E bytes of
//     L literals, T matches and E extra bytes, and the first match needs a
//     literal before it: at most 255s - 1001 (one literal, one match), and s
//     without a match.
//   - zstd: a frame header takes at least 6 bytes (magic, descriptor and a
//     window descriptor or content size byte); every block that produces a
//     byte takes at least 4 (a 3-byte header, then an RLE byte, raw bytes
//     or the literals and sequences headers) and produces at most 128 KiB
//     (Block_Maximum_Size): at most (s-6)/4 x 128 KiB.
//   - MinLZ: one block, at most 8 MiB (a repeat of 4 bytes copies up to
//     16 MiB, so 11 bytes reach the cap).
//   - the lightweight codecs (bit-packed, ALP, FSST, byte planes):
//     lightMaxRaw.
func sectionMaxRaw(c Compression, s int) uint64 {
	n := uint64(s)
	if lightweight(c) || c == codecHuff {
		return lightMaxRaw(c, s)
	}
	switch c {
	case LZ4:
		return max(n, 255*n-min(255*n, 1001))
	case Zstd:
		if n < 6 {
			return 0
		}
		return (n - 6) / 4 * (128 << 10)
	case MinLZ:
		return minlz.MaxBlockSize
	}
	return n
}

// decompress returns the raw block (header and body) of a compressed one:
// block's header, with the compression and flags cleared, and the
// decompressed body, in an 8-byte aligned buffer from d.pool that goes back
// to it on its last Release. h has been checked by parseHeader, and h.raw
// against WithMaxBlockSize by the Decoder.
func (d *decompressor) decompress(block []byte, h header) (*memory.Buffer, error) {
	body := block[headerSize:]
	// Check the whole section table, and what its sections really decode
	// to, before allocating anything.
	ncomp := 0
	if err := eachSection(body, h.raw, func(s sectionIn) error {
		if s.codec != None {
			ncomp++
		}
		return checkRawLen(s)
	}); err != nil {
		return nil, err
	}
	out := d.pool.Allocate(headerSize + h.raw)
	copy(out, block[:headerSize])
	out[5] = byte(None)
	binary.LittleEndian.PutUint16(out[6:], 0) // the decoder undoes h.flags
	binary.LittleEndian.PutUint64(out[24:], uint64(h.raw))
	raw := out[headerSize:]
	var err error
	if d.concurrency > 1 && ncomp > 1 {
		_, err = d.decompressParallel(raw, body, h)
	} else {
		err = eachSection(body, h.raw, func(s sectionIn) error {
			return d.decompressBody(raw[s.at:s.at+s.raw:s.at+s.raw], s.src, s.codec)
		})
	}
	if err != nil {
		d.pool.Free(out)
		return nil, err
	}
	return memory.NewBufferWithAllocator(out, d.pool), nil
}

// decompressParallel decompresses the sections of body into raw, the
// compressed ones on up to d.concurrency goroutines, and returns the first
// error. Once a section has failed no further section starts. It also
// returns how many compressed sections started.
func (d *decompressor) decompressParallel(raw, body []byte, h header) (int, error) {
	var (
		wg      sync.WaitGroup
		slots   = make(chan struct{}, d.concurrency)
		mu      sync.Mutex
		first   error
		failed  atomic.Bool
		started int
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		failed.Store(true)
	}
	_ = eachSection(body, h.raw, func(s sectionIn) error {
		dst := raw[s.at : s.at+s.raw : s.at+s.raw]
		if s.codec == None {
			copy(dst, s.src)
			return nil
		}
		slots <- struct{}{}
		if failed.Load() {
			<-slots
			return errStop
		}
		started++
		wg.Go(func() {
			defer func() { <-slots }()
			if err := d.decompressBody(dst, s.src, s.codec); err != nil {
				fail(fmt.Errorf("section at raw byte %d: %w", s.at, err))
			}
		})
		return nil
	})
	wg.Wait()
	return started, first
}

// errStop ends a walk over the chunks early; it never reaches a caller.
var errStop = errors.New("stop")

// sectionDecoders holds the decoder of each lightweight section codec,
// a row a codec: the table that says which codecs are lightweight.
var sectionDecoders = [maxCodec + 1]func(raw, src []byte) error{
	codecBitpack:    decodeBitpack,
	codecALP:        decodeALP,
	codecFSST:       decodeFSST,
	codecPlanes:     decodePlanes,
	codecRLE:        decodeRLE,
	codecDict:       decodeIntDict,
	codecStrDict:    decodeStrDict,
	codecFront:      decodeFront,
	codecTransposed: decodeTransposed,
}

// decompressBody fills raw, exactly, with src stored with codec c. raw's
// capacity must end with it: zstd may write past the length it decodes, up
// to the capacity, and sections decompressed in parallel lie side by side.
func (d *decompressor) decompressBody(raw, src []byte, c Compression) error {
	if lightweight(c) {
		return sectionDecoders[c](raw, src)
	}
	switch c {
	case None:
		copy(raw, src) // eachSection checked the lengths
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
	case codecHuff:
		return d.unhuff(raw, src)
	case MinLZ:
		// checkSection made sure src is a MinLZ block of len(raw) bytes.
		got, err := minlz.Decode(raw, src)
		if err != nil {
			return corruptf("minlz: %v", err)
		}
		if len(got) != len(raw) || &got[0] != &raw[0] {
			return corruptf("minlz section decompressed to %d bytes, it holds %d", len(got), len(raw))
		}
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
			return corruptf("zstd: %d bytes for an empty section", len(src))
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
		return corruptf("zstd frame declares %d content bytes (known: %t), the section holds %d", fh.FrameContentSize, fh.HasFCS && !fh.Skippable, len(raw))
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

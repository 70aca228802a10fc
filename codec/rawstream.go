package codec

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

// A RawBlock is one block of a stream as its frame holds it: the bytes of
// the block, not checked, and the CRC32C the frame gives for them.
type RawBlock struct {
	Bytes []byte
	CRC   uint32
}

// Checksum returns the CRC32C (Castagnoli) of block, as a stream's frame
// and a RawBlock give it.
func Checksum(block []byte) uint32 { return crc32.Checksum(block, castagnoli) }

// Verify checks the block's bytes against its checksum, with an error
// wrapping ErrCorrupt when they differ.
func (b RawBlock) Verify() error {
	if got := Checksum(b.Bytes); got != b.CRC {
		return corruptf("block checksum %#08x, its frame says %#08x", got, b.CRC)
	}
	return nil
}

// A RawReader reads the frames of an arrowpack stream (or of several
// streams of one schema, one after another, as a Reader does) as raw
// blocks, without decoding them: to pass stored blocks on as they are. It
// checks the framing as a Reader does (stream headers, schemas, frame
// lengths against WithMaxBlockSize, the end frame's block count), but not
// the blocks themselves: Decode, RawBlock.Verify and ReadBlockInfo check
// them on demand. A RawReader is not safe for concurrent use.
type RawReader struct {
	rd *Reader
}

// NewRawReader reads the stream header from r and returns a RawReader for
// the stream's blocks. Options are a Reader's.
func NewRawReader(r io.Reader, opts ...Option) (*RawReader, error) {
	rd, err := NewReader(r, opts...)
	if err != nil {
		return nil, err
	}
	return &RawReader{rd: rd}, nil
}

// Schema returns the stream's schema.
func (r *RawReader) Schema() *arrow.Schema { return r.rd.schema }

// Next reads the next block, into dst when its capacity is enough and into
// new memory otherwise (allocated as the bytes arrive, as a Reader does, not
// from the length the frame claims). At the clean end of the input it returns io.EOF;
// a malformed frame, a truncated stream or a read error end the reading
// with an error (wrapping ErrCorrupt for the first two) that every later
// call returns. The block's bytes are not checked.
func (r *RawReader) Next(dst []byte) (RawBlock, error) {
	rd := r.rd
	if rd.err != nil {
		return RawBlock{}, rd.err
	}
	for {
		b, err := r.frame(dst)
		if err != nil {
			rd.err = err
			return RawBlock{}, err
		}
		if b.Bytes != nil {
			rd.blocks++
			return b, nil
		}
	}
}

// frame reads one frame: a block, or an empty RawBlock at an end frame
// followed by another stream, or io.EOF at the end of the input.
func (r *RawReader) frame(dst []byte) (RawBlock, error) {
	rd := r.rd
	var fh [frameHeaderSize]byte
	if err := rd.readFull(fh[:], "frame header"); err != nil {
		return RawBlock{}, err
	}
	n := binary.LittleEndian.Uint64(fh[:])
	if n == 0 {
		if count := binary.LittleEndian.Uint64(fh[8:]); count != rd.blocks {
			return RawBlock{}, corruptf("end frame counts %d blocks, the stream held %d", count, rd.blocks)
		}
		var magic [4]byte
		if n, err := io.ReadFull(rd.r, magic[:]); err != nil {
			switch {
			case err == io.EOF:
				return RawBlock{}, io.EOF
			case err == io.ErrUnexpectedEOF:
				return RawBlock{}, corruptf("%d stray bytes after an end frame", n)
			default:
				return RawBlock{}, fmt.Errorf("reading after an end frame: %w", err)
			}
		}
		if _, err := rd.readStreamHeader(magic[:]); err != nil {
			return RawBlock{}, err
		}
		rd.blocks = 0
		return RawBlock{}, nil
	}
	if binary.LittleEndian.Uint32(fh[12:]) != 0 {
		return RawBlock{}, corruptf("frame header has nonzero reserved bytes")
	}
	if n < headerSize || n%8 != 0 || n > uint64(rd.cfg.maxBlock)+headerSize {
		return RawBlock{}, corruptf("frame of %d bytes: not a block of at most %d bytes (WithMaxBlockSize)", n, rd.cfg.maxBlock+headerSize)
	}
	if uint64(cap(dst)) >= n {
		buf := dst[:n]
		if err := rd.readFull(buf, "block"); err != nil {
			return RawBlock{}, err
		}
		return RawBlock{Bytes: buf, CRC: binary.LittleEndian.Uint32(fh[8:])}, nil
	}
	// Into new memory as the bytes arrive, as a Reader reads a block, not
	// sized from the length the frame claims.
	buf, err := rd.readGrowing(int(n), "block", func(k int) []byte { return make([]byte, k) }, nil)
	if err != nil {
		return RawBlock{}, err
	}
	return RawBlock{Bytes: buf, CRC: binary.LittleEndian.Uint32(fh[8:])}, nil
}

// Decode verifies b's checksum and decodes it with the stream's Decoder
// (see Decoder.Decode: the batch may alias b's bytes).
func (r *RawReader) Decode(b RawBlock) (arrow.RecordBatch, error) {
	if err := b.Verify(); err != nil {
		return nil, err
	}
	return r.rd.dec.Decode(b.Bytes)
}

// A RawWriter writes an arrowpack stream of blocks encoded already, with
// their checksums: to store blocks received as they came. It trusts what
// it is given beyond the framing: blocks must be blocks of the stream's
// schema and their checksums right, or a Reader will refuse the stream
// (Decode, or RawBlock.Verify, checks them first). A RawWriter is not safe
// for concurrent use.
type RawWriter struct {
	w      io.Writer
	blocks uint64
	err    error
	closed bool
}

// NewRawWriter writes a stream header for schema to w and returns a
// RawWriter for blocks of it.
func NewRawWriter(w io.Writer, schema *arrow.Schema) (*RawWriter, error) {
	_, err := NewWriter(w, schema) // writes the stream header
	if err != nil {
		return nil, err
	}
	return &RawWriter{w: w}, nil
}

// WriteBlock writes one frame holding block, whose CRC32C is crc. A block
// whose length no Reader would accept (0, under a block header, or not a
// multiple of 8) is refused with an error wrapping ErrInvalidBatch and the
// stream stays as it was. After a write error every later call fails with
// it; after Close, WriteBlock fails with an error wrapping ErrClosed.
func (w *RawWriter) WriteBlock(block []byte, crc uint32) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("%w: WriteBlock after Close", ErrClosed)
	}
	if len(block) < headerSize || len(block)%8 != 0 {
		return fmt.Errorf("%w: a block of %d bytes: not a whole block", ErrInvalidBatch, len(block))
	}
	var fh [frameHeaderSize]byte
	binary.LittleEndian.PutUint64(fh[:], uint64(len(block)))
	binary.LittleEndian.PutUint32(fh[8:], crc)
	if _, err := w.w.Write(fh[:]); err != nil {
		w.err = err
		return err
	}
	if _, err := w.w.Write(block); err != nil {
		w.err = err
		return err
	}
	w.blocks++
	return nil
}

// Close writes the end frame. It does not close the underlying writer;
// more streams may follow in it.
func (w *RawWriter) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return nil
	}
	w.closed = true
	var end [frameHeaderSize]byte
	binary.LittleEndian.PutUint64(end[8:], w.blocks)
	if _, err := w.w.Write(end[:]); err != nil {
		w.err = err
		return err
	}
	return nil
}

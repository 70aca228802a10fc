package codec

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
)

// A RawBlock is one block of a stream as its frame holds it: the bytes of
// the block, not checked, and the CRC32C the frame gives for them.
type RawBlock struct {
	Bytes []byte
	CRC   uint32
}

// Checksum returns the CRC32C (Castagnoli) of block, as a stream's frame
// and a RawBlock give it: arrowpack.UpdateCRC32C(0, block), the values of
// hash/crc32 with the Castagnoli table, computed faster where the CPU
// allows.
func Checksum(block []byte) uint32 { return arrowpack.UpdateCRC32C(0, block) }

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
	rd  *Reader
	mem *memSource // the stream, when it is held in memory (NewRawReaderBytes)
}

// memSource is a stream held in memory, read from the start.
type memSource struct {
	data []byte
	off  int
}

func (m *memSource) Read(p []byte) (int, error) {
	if m.off == len(m.data) {
		return 0, io.EOF
	}
	n := copy(p, m.data[m.off:])
	m.off += n
	return n, nil
}

// take returns the next n bytes, not copied, or false when fewer are left.
func (m *memSource) take(n uint64) ([]byte, bool) {
	if n > uint64(len(m.data)-m.off) {
		return nil, false
	}
	b := m.data[m.off : m.off+int(n) : m.off+int(n)]
	m.off += int(n)
	return b, true
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

// NewRawReaderBytes returns a RawReader of the stream (or streams) held in
// data: a file mapped into memory, say. The blocks Next returns are slices
// of data, not copies, whatever buffer it is given, with their capacity cut
// at their end; nothing writes to data, so it may be mapped read-only. Options
// and checks are NewRawReader's: a frame claiming more bytes than data
// holds is ErrCorrupt, as a truncated stream.
func NewRawReaderBytes(data []byte, opts ...Option) (*RawReader, error) {
	src := &memSource{data: data}
	rd, err := NewReader(src, opts...)
	if err != nil {
		return nil, err
	}
	return &RawReader{rd: rd, mem: src}, nil
}

// Schema returns the stream's schema.
func (r *RawReader) Schema() *arrow.Schema { return r.rd.schema }

// Next reads the next block, into dst when its capacity is enough and into
// new memory otherwise (allocated as the bytes arrive, as a Reader does, not
// from the length the frame claims); from a RawReader of NewRawReaderBytes
// it returns a slice of its bytes instead. At the clean end of the input it
// returns io.EOF; a malformed frame, a truncated stream or a read error end the reading
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
	n, crc, err := rd.frameHeader()
	if err != nil || n == 0 {
		return RawBlock{}, err
	}
	if r.mem != nil {
		buf, ok := r.mem.take(n)
		if !ok {
			left := len(r.mem.data) - r.mem.off
			r.mem.off = len(r.mem.data)
			return RawBlock{}, corruptf("stream truncated in a block (%d of %d bytes)", left, n)
		}
		rd.read += int64(n)
		return RawBlock{Bytes: buf, CRC: crc}, nil
	}
	if uint64(cap(dst)) >= n {
		buf := dst[:n]
		if err := rd.readFull(buf, "block"); err != nil {
			return RawBlock{}, err
		}
		return RawBlock{Bytes: buf, CRC: crc}, nil
	}
	// Into new memory as the bytes arrive, as a Reader reads a block, not
	// sized from the length the frame claims.
	buf, err := rd.readGrowing(int(n), "block", func(k int) []byte { return make([]byte, k) }, nil)
	if err != nil {
		return RawBlock{}, err
	}
	return RawBlock{Bytes: buf, CRC: crc}, nil
}

// Decode verifies b's checksum and decodes it with the stream's Decoder
// (see Decoder.Decode: the batch may alias b's bytes).
func (r *RawReader) Decode(b RawBlock) (arrow.RecordBatch, error) {
	if err := b.Verify(); err != nil {
		return nil, err
	}
	return r.rd.dec.Decode(b.Bytes)
}

// DecodeBuffer is Decode for a block held in a reference-counted buffer,
// whose CRC32C is crc: the batch's arrays retain buf while they alias it
// (see Decoder.DecodeBuffer), so its memory is given back only once the
// last of them is released. The caller keeps its own reference to buf.
func (r *RawReader) DecodeBuffer(buf *memory.Buffer, crc uint32) (arrow.RecordBatch, error) {
	if err := (RawBlock{Bytes: buf.Bytes(), CRC: crc}).Verify(); err != nil {
		return nil, err
	}
	return r.rd.dec.DecodeBuffer(buf)
}

// A RawWriter writes an arrowpack stream of blocks encoded already, with
// their checksums: to store blocks received as they came. It trusts what
// it is given beyond the framing: blocks must be blocks of the stream's
// schema and their checksums right, or a Reader will refuse the stream
// (Decode, or RawBlock.Verify, checks them first). A RawWriter is not safe
// for concurrent use.
type RawWriter struct {
	w      io.Writer
	fh     [frameHeaderSize]byte
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
	if err := writeFrame(w.w, &w.fh, block, crc); err != nil {
		w.err = err
		return err
	}
	w.blocks++
	return nil
}

// writeFrame writes a frame holding block, whose CRC32C is crc, building
// its header in fh (the writer's, as a local would escape to the heap
// through w: an allocation a block).
func writeFrame(w io.Writer, fh *[frameHeaderSize]byte, block []byte, crc uint32) error {
	binary.LittleEndian.PutUint64(fh[:], uint64(len(block)))
	binary.LittleEndian.PutUint32(fh[8:], crc)
	if _, err := w.Write(fh[:]); err != nil {
		return err
	}
	_, err := w.Write(block)
	return err
}

// writeEndFrame writes the end frame of a stream of blocks blocks.
func writeEndFrame(w io.Writer, blocks uint64) error {
	var end [frameHeaderSize]byte
	binary.LittleEndian.PutUint64(end[8:], blocks)
	_, err := w.Write(end[:])
	return err
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
	w.err = writeEndFrame(w.w, w.blocks)
	return w.err
}

package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// The stream layout (see FORMAT.md): a stream header with the schema, then
// frames of one block each, then an end frame. Streams may follow one
// another in one file.
//
//	stream header: magic "APKS", version uint8 (1), 3 zero bytes,
//	               schema length uint64, schema CRC32C uint32, 4 zero bytes,
//	               the schema as an Arrow IPC stream (schema message and
//	               end-of-stream marker), zero padding to a multiple of 8
//	frame:         block length uint64 (> 0), block CRC32C uint32,
//	               4 zero bytes, the block
//	end frame:     uint64 0, then the number of blocks in the stream uint64
const (
	streamHeaderSize = 24
	frameHeaderSize  = 16
	streamVersion    = 1
	// maxSchemaSize bounds the serialized schema a Reader accepts.
	maxSchemaSize = 64 << 20
)

var (
	streamMagic = [4]byte{'A', 'P', 'K', 'S'}
	castagnoli  = crc32.MakeTable(crc32.Castagnoli)
)

// A Writer writes record batches of one schema to an io.Writer as an
// arrowpack stream: the schema once, then one checksummed block per batch.
// A Writer is not safe for concurrent use.
type Writer struct {
	w      io.Writer
	enc    *Encoder
	buf    []byte
	blocks uint64
	err    error
	closed bool
}

// NewWriter writes a stream header for schema to w and returns a Writer for
// batches of it. Options are the Encoder's (WithCompression, say).
func NewWriter(w io.Writer, schema *arrow.Schema, opts ...Option) (*Writer, error) {
	enc, err := NewEncoder(schema, opts...)
	if err != nil {
		return nil, err
	}
	var sb bytes.Buffer
	iw := ipc.NewWriter(&sb, ipc.WithSchema(schema))
	if err := iw.Close(); err != nil {
		return nil, fmt.Errorf("%w: serializing the schema: %v", ErrUnsupported, err)
	}
	sch := sb.Bytes()
	hdr := make([]byte, streamHeaderSize, streamHeaderSize+pad8(len(sch)))
	copy(hdr, streamMagic[:])
	hdr[4] = streamVersion
	binary.LittleEndian.PutUint64(hdr[8:], uint64(len(sch)))
	binary.LittleEndian.PutUint32(hdr[16:], crc32.Checksum(sch, castagnoli))
	hdr = append(hdr, sch...)
	hdr = append(hdr, make([]byte, pad8(len(sch))-len(sch))...)
	if _, err := w.Write(hdr); err != nil {
		return nil, err
	}
	return &Writer{w: w, enc: enc}, nil
}

// Write appends rec to the stream as one block. After an error every later
// Write fails with the same error.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("%w: Write after Close", ErrClosed)
	}
	buf, err := w.enc.Append(w.buf[:0], rec)
	if err != nil {
		return err // the stream is still good: nothing was written
	}
	w.buf = buf
	var fh [frameHeaderSize]byte
	binary.LittleEndian.PutUint64(fh[:], uint64(len(buf)))
	binary.LittleEndian.PutUint32(fh[8:], crc32.Checksum(buf, castagnoli))
	if _, err := w.w.Write(fh[:]); err != nil {
		w.err = err
		return err
	}
	if _, err := w.w.Write(buf); err != nil {
		w.err = err
		return err
	}
	w.blocks++
	return nil
}

// Close writes the end frame. It does not close the underlying writer; more
// streams may follow in it.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return nil
	}
	w.closed = true
	var end [frameHeaderSize]byte
	binary.LittleEndian.PutUint64(end[8:], w.blocks)
	_, w.err = w.w.Write(end[:])
	return w.err
}

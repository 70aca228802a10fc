package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

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

var streamMagic = [4]byte{'A', 'P', 'K', 'S'}

// A Writer writes record batches of one schema to an io.Writer as an
// arrowpack stream: the schema once, then checksummed blocks, by default
// one per batch. With WithBlockRows or WithBlockSize it coalesces small
// batches into larger blocks (see those options). A Writer is not safe for
// concurrent use.
type Writer struct {
	w      io.Writer
	fh     [frameHeaderSize]byte
	enc    *Encoder
	buf    []byte
	blocks uint64
	err    error
	closed bool

	// Coalescing: the batches written but not yet in a block, and their
	// rows and uncompressed block bytes.
	maxRows, maxSize int // 0 and 0: no coalescing
	pending          []arrow.RecordBatch
	pendRows         int
	pendSize         int
}

// WithBlockRows makes a Writer coalesce batches: it retains the batches
// handed to Write until the next one would take the pending rows past n,
// then writes the pending ones as one block (AppendBatches); Flush and
// Close write what is pending. A batch of more than n rows makes a block of
// its own. Blocks decode as one batch each, so a reader sees fewer, larger
// batches. Without WithBlockRows and WithBlockSize, a Writer writes one
// block per batch.
//
// While batches are pending the Writer holds a reference to each (it
// retains them and releases them once written): at most n rows, or the
// WithBlockSize bytes, of them, plus nothing else; the bytes held are those
// of the batches' arrays, which for a slice include the parent it was cut
// from. 0 turns the option off; NewWriter refuses a negative n with an
// error wrapping ErrUnsupported.
func WithBlockRows(n int) Option {
	return blockTarget("WithBlockRows", n, func(cfg *config) *int { return &cfg.blockRows })
}

// WithBlockSize makes a Writer coalesce batches, like WithBlockRows, into
// blocks of up to about n bytes: a batch is added to the pending ones
// unless the sum of their uncompressed block sizes would pass n. Each
// batch is sized when written. (A coalescing Writer checks each batch in
// its Write, with or without WithBlockSize, so an invalid batch is refused
// by its own Write and never held.) With both options, a block ends at
// whichever target comes first. 0 turns the option off; NewWriter refuses
// a negative n with an error wrapping ErrUnsupported.
func WithBlockSize(n int) Option {
	return blockTarget("WithBlockSize", n, func(cfg *config) *int { return &cfg.blockSize })
}

// blockTarget is the option named name that sets the coalescing target
// field returns to n, refusing a negative n.
func blockTarget(name string, n int, field func(*config) *int) Option {
	return func(cfg *config) {
		if n < 0 {
			cfg.fail(fmt.Errorf("%w: %s(%d): the target must not be negative", ErrUnsupported, name, n))
			return
		}
		*field(cfg) = n
	}
}

// NewWriter writes a stream header for schema to w and returns a Writer for
// batches of it. Options are the Encoder's (WithCompression, say).
func NewWriter(w io.Writer, schema *arrow.Schema, opts ...Option) (*Writer, error) {
	enc, err := newEncoder("NewWriter", schema, opts)
	if err != nil {
		return nil, err
	}
	var sb bytes.Buffer
	iw := ipc.NewWriter(&sb, ipc.WithSchema(schema))
	if err := iw.Close(); err != nil {
		return nil, fmt.Errorf("%w: serializing the schema: %v", ErrUnsupported, err)
	}
	if _, err := w.Write(streamHeader(sb.Bytes())); err != nil {
		return nil, err
	}
	ww := &Writer{w: w, enc: enc}
	if enc.cfg.blockRows > 0 || enc.cfg.blockSize > 0 {
		ww.maxRows, ww.maxSize = math.MaxInt, math.MaxInt
		if enc.cfg.blockRows > 0 {
			ww.maxRows = enc.cfg.blockRows
		}
		if enc.cfg.blockSize > 0 {
			ww.maxSize = enc.cfg.blockSize
		}
	}
	return ww, nil
}

// streamHeader returns the stream header for the serialized schema sch,
// then sch and its padding.
func streamHeader(sch []byte) []byte {
	hdr := make([]byte, streamHeaderSize, streamHeaderSize+pad8(len(sch)))
	copy(hdr, streamMagic[:])
	hdr[4] = streamVersion
	binary.LittleEndian.PutUint64(hdr[8:], uint64(len(sch)))
	binary.LittleEndian.PutUint32(hdr[16:], Checksum(sch))
	hdr = append(hdr, sch...)
	return append(hdr, make([]byte, pad8(len(sch))-len(sch))...)
}

// Write appends rec to the stream: as one block, or, when the Writer
// coalesces (WithBlockRows, WithBlockSize), to the pending batches, writing
// those as one block first if rec would take them past a target. A batch
// the encoder refuses (another schema, an invalid batch) gets an error and
// leaves the stream as it was. After an I/O error every later Write fails
// with the same error; after Close, Write fails with an error wrapping
// ErrClosed.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("%w: Write after Close", ErrClosed)
	}
	if w.maxRows == 0 {
		return w.writeBlock(rec)
	}
	// Sizing a batch walks all of it, as writing does, less the copying:
	// only a size target needs it. Either way the batch is checked here,
	// so that an invalid one is refused by its own Write.
	size := headerSize
	if w.maxSize < math.MaxInt {
		var err error
		if size, err = w.enc.blockSize(rec); err != nil {
			return err
		}
	} else if err := w.enc.check(rec); err != nil {
		return err
	}
	rows := int(rec.NumRows())
	if len(w.pending) > 0 && (rows > w.maxRows-w.pendRows || size-headerSize > w.maxSize-w.pendSize) {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	rec.Retain()
	w.pending = append(w.pending, rec)
	w.pendRows += rows
	w.pendSize += size - headerSize
	if len(w.pending) == 1 {
		w.pendSize += headerSize
	}
	if w.pendRows >= w.maxRows || w.pendSize >= w.maxSize {
		return w.Flush()
	}
	return nil
}

// Flush writes the batches a coalescing Writer holds as one block. It does
// nothing when none are pending. Should the batches not fit one block
// together (dictionaries whose union overflows their index type, say), or
// one of them be invalid, each is written as a block of its own and Flush
// returns the error of the first that could not be written, if any.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if len(w.pending) == 0 {
		return nil
	}
	err := w.writeBlock(w.pending...)
	if (errors.Is(err, ErrUnsupported) || errors.Is(err, ErrInvalidBatch)) && len(w.pending) > 1 {
		err = nil
		for _, rec := range w.pending {
			if e := w.writeBlock(rec); e != nil && err == nil {
				err = e
			}
			if w.err != nil {
				break
			}
		}
	}
	for i, rec := range w.pending {
		rec.Release()
		w.pending[i] = nil
	}
	w.pending, w.pendRows, w.pendSize = w.pending[:0], 0, 0
	return err
}

// writeBlock writes recs as one block.
func (w *Writer) writeBlock(recs ...arrow.RecordBatch) error {
	buf, err := w.enc.AppendBatches(w.buf[:0], recs...)
	if err != nil {
		return err // the stream is still good: nothing was written
	}
	w.buf = buf
	if err := writeFrame(w.w, &w.fh, buf, Checksum(buf)); err != nil {
		w.err = err
		return err
	}
	w.blocks++
	return nil
}

// Close writes the pending batches, if any, then the end frame. It does
// not close the underlying writer; more streams may follow in it.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return nil
	}
	if err := w.Flush(); err != nil {
		return err
	}
	w.closed = true
	w.err = writeEndFrame(w.w, w.blocks)
	return w.err
}

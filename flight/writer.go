package flight

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/arrowpack/arrowpack/codec"
)

// A Writer writes record batches of one schema to a Flight data stream as
// arrowpack blocks: the counterpart of arrow-go's flight.NewRecordWriter.
// The first FlightData it sends carries the schema as a standard IPC schema
// message (and the descriptor set with SetFlightDescriptor); each batch
// then goes as one arrowpack block, split over several FlightData when it is
// larger than the message size limit. A Writer is not safe for concurrent
// use.
type Writer struct {
	stream  aflight.DataStreamWriter
	enc     *codec.Encoder
	schema  []byte // the IPC schema message (data_header)
	descr   *aflight.FlightDescriptor
	maxMsg  int
	started bool
	raw     msgSender  // the stream's SendMsg, when it is gRPC's own stream
	buf     []byte     // the block buffer, when not sending through raw
	lastLen int        // the size of the last block
	co      *coalescer // with codec.WithBlockRows or WithBlockSize
	meta    []byte
	err     error
}

// NewWriter returns a Writer of batches of schema to stream. Options are
// the codec's Writer options: codec.WithCompression, say, and
// codec.WithBlockRows or WithBlockSize, with which the Writer coalesces
// small batches into larger blocks as a codec.Writer does (holding them
// until a target is reached, a Flush, WriteMetadata, WriteWithAppMetadata
// or Close). Nothing is sent before the first Write, WriteMetadata or
// Close, so that a descriptor can still be set.
func NewWriter(stream aflight.DataStreamWriter, schema *arrow.Schema, opts ...codec.Option) (*Writer, error) {
	if stream == nil {
		return nil, fmt.Errorf("%w: arrowpack flight: nil stream", codec.ErrInvalidBatch)
	}
	if schema == nil {
		return nil, fmt.Errorf("%w: arrowpack flight: nil schema", codec.ErrSchemaMismatch)
	}
	enc, err := codec.NewEncoder(schema, opts...)
	if err != nil {
		return nil, err
	}
	hdr, err := schemaMessage(schema)
	if err != nil {
		return nil, err
	}
	co, err := newCoalescer(schema, opts)
	if err != nil {
		return nil, err
	}
	w := &Writer{stream: stream, enc: enc, schema: hdr, maxMsg: DefaultMaxMessageSize, co: co}
	if grpcOwn(stream) {
		w.raw, _ = stream.(msgSender)
	}
	return w, nil
}

// schemaCapture keeps the metadata of the first IPC payload written to it.
type schemaCapture struct{ hdr []byte }

func (c *schemaCapture) Start() error { return nil }
func (c *schemaCapture) Close() error { return nil }
func (c *schemaCapture) WritePayload(p ipc.Payload) error {
	m := p.Meta()
	defer m.Release()
	if c.hdr == nil {
		c.hdr = append([]byte(nil), m.Bytes()...)
	}
	return nil
}

// schemaMessage returns the flatbuffer IPC schema message of schema, as the
// data_header of a FlightData carries it.
func schemaMessage(schema *arrow.Schema) ([]byte, error) {
	c := &schemaCapture{}
	w := ipc.NewWriterWithPayloadWriter(c, ipc.WithSchema(schema))
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("%w: arrowpack flight: writing the IPC schema message: %v", codec.ErrUnsupported, err)
	}
	if c.hdr == nil {
		return nil, fmt.Errorf("%w: arrowpack flight: arrow-go wrote no IPC schema message", codec.ErrUnsupported)
	}
	return c.hdr, nil
}

// SetFlightDescriptor sets the descriptor sent with the first FlightData
// (the schema message), as a DoPut needs. It has no effect once that has
// been sent.
func (w *Writer) SetFlightDescriptor(d *aflight.FlightDescriptor) { w.descr = d }

// SetMaxMessageSize sets the largest data_body of one FlightData; larger
// blocks are split. The default, DefaultMaxMessageSize, fits gRPC's default
// receive limit. Values below 1 KiB count as 1 KiB.
func (w *Writer) SetMaxMessageSize(n int) { w.maxMsg = max(n, 1<<10) }

// Schema returns the schema the Writer writes.
func (w *Writer) Schema() *arrow.Schema { return w.enc.Schema() }

// start sends the schema message once.
func (w *Writer) start() error {
	if w.started {
		return nil
	}
	w.started = true
	fd := &aflight.FlightData{FlightDescriptor: w.descr, DataHeader: w.schema}
	w.descr = nil
	return w.stream.Send(fd)
}

// Write sends rec as one arrowpack block. After an error every later call
// fails with the same error.
func (w *Writer) Write(rec arrow.RecordBatch) error { return w.WriteWithAppMetadata(rec, nil) }

// WriteWithAppMetadata sends rec as one arrowpack block with meta as the
// application metadata of its (last) FlightData. A Reader returns it from
// LatestAppMetadata after the batch. A coalescing Writer (see NewWriter)
// sends the batches it holds with rec as one block, then meta.
func (w *Writer) WriteWithAppMetadata(rec arrow.RecordBatch, meta []byte) error {
	if w.err != nil {
		return w.err
	}
	if rec == nil {
		return fmt.Errorf("%w: arrowpack flight: nil record batch", codec.ErrInvalidBatch)
	}
	if err := w.start(); err != nil {
		w.err = err
		return err
	}
	if w.co != nil {
		return w.coalesce(rec, meta)
	}
	// Sent through gRPC's own stream, the block is encoded into a pooled
	// buffer that Codec hands to gRPC by reference; it returns to the pool
	// once gRPC has written it and this Writer is done with it. Otherwise
	// the stream copies the message before Send returns and one buffer
	// serves every block.
	dst := w.buf[:0]
	if w.raw != nil {
		dst = blocks.get(w.lastLen + w.lastLen/8)[:0]
	}
	block, err := w.enc.Append(dst, rec)
	if err != nil {
		if w.raw != nil {
			blocks.put(dst)
		}
		return err // the stream is still sound: nothing of this batch was sent
	}
	w.lastLen = len(block)
	if w.raw == nil {
		w.buf = block
		return w.send(block, codec.Checksum(block), nil, meta)
	}
	sb := newSendBlock(block, nil)
	defer sb.release()
	return w.send(block, codec.Checksum(block), sb, meta)
}

// writeRaw sends a block encoded already, of this Writer's schema, whose
// CRC32C is crc, as it is: a stored block passed through. owner, if not
// nil, holds the block's bytes (and gets a reference while gRPC does).
func (w *Writer) writeRaw(block []byte, crc uint32, owner *sendBlock) error {
	if w.err != nil {
		return w.err
	}
	if err := w.start(); err != nil {
		w.err = err
		return err
	}
	if w.co != nil {
		if err := w.flushCoalesced(); err != nil { // the batches before it go first
			return err
		}
	}
	if w.raw == nil {
		owner = nil
	}
	return w.send(block, crc, owner, nil)
}

// send sends block, whose CRC32C is crc, in one FlightData or several of at
// most the message size, with meta after the marker of the last. owner,
// when not nil, is the sendBlock of the block, for sending through
// w.raw.
func (w *Writer) send(block []byte, crc uint32, owner *sendBlock, meta []byte) error {
	for off := 0; ; {
		n := min(len(block)-off, w.maxMsg)
		last := off+n == len(block)
		w.meta = appendMarker(w.meta[:0], last, len(block), crc)
		if last {
			w.meta = append(w.meta, meta...)
		}
		// gRPC marshals the message before Send returns, so the metadata
		// buffer can be reused for the next one (the block is either
		// copied or referenced by the codec).
		fd := &aflight.FlightData{DataBody: block[off : off+n], AppMetadata: w.meta}
		var err error
		if owner != nil {
			err = w.raw.SendMsg(&sendMsg{FlightData: fd, owner: owner})
		} else {
			err = w.stream.Send(fd)
		}
		if err != nil {
			w.err = err
			return err
		}
		off += n
		if last {
			return nil
		}
	}
}

// errMarkerMetadata is returned by WriteMetadata for metadata a Reader
// would take for an arrowpack block.
var errMarkerMetadata = errors.New("app_metadata starts with the arrowpack marker \"APKF\"")

// WriteMetadata sends a FlightData holding only meta as its application
// metadata, as arrow-go's Writer.WriteMetadata does. Metadata that starts
// with the arrowpack marker "APKF" is refused with an error wrapping
// codec.ErrInvalidBatch.
func (w *Writer) WriteMetadata(meta []byte) error {
	if w.err != nil {
		return w.err
	}
	if hasMarker(meta) {
		return fmt.Errorf("%w: arrowpack flight: %v", codec.ErrInvalidBatch, errMarkerMetadata)
	}
	if err := w.start(); err != nil {
		w.err = err
		return err
	}
	if w.co != nil {
		if err := w.flushCoalesced(); err != nil { // the batches before it go first
			return err
		}
	}
	if err := w.stream.Send(&aflight.FlightData{AppMetadata: meta}); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Flush sends the batches a coalescing Writer holds as one block; it does
// nothing when none are held, or when the Writer does not coalesce.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.co == nil {
		return nil
	}
	if err := w.start(); err != nil {
		w.err = err
		return err
	}
	return w.flushCoalesced()
}

// Close sends the batches a coalescing Writer holds, and the schema message
// if nothing was sent yet, so that an empty stream still has its schema. It
// does not close the stream: a client ends a DoPut with CloseSend, a
// server's DoGet by returning.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if err := w.start(); err != nil {
		w.err = err
		return err
	}
	if w.co != nil {
		if err := w.co.cw.Close(); err != nil {
			return err
		}
		return w.drain(nil)
	}
	return nil
}

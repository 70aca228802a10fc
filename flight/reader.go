package flight

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
	"github.com/arrowpack/arrowpack/codec"
)

// A Reader reads the record batches of a Flight data stream: arrowpack
// blocks as a Writer sends them, standard Arrow IPC FlightData as arrow-go's
// flight.NewRecordWriter (or any Flight producer) sends them, or a mix of
// both. It is the counterpart of arrow-go's flight.NewRecordReader and
// implements array.RecordReader, arrio.Reader and flight.MessageReader.
//
// Every batch it returns is sound all the way down: arrowpack blocks are
// checked by the codec's Decoder, IPC batches with
// array.ValidateRecordFull. Malformed input ends the reading with an error
// wrapping codec.ErrCorrupt (or codec.ErrSchemaMismatch,
// codec.ErrUnsupported); an error of the stream (a gRPC status, say) is
// returned as it is. The Reader never panics on its input, allocates at
// most codec.WithMaxBlockSize for a block or an IPC batch from a size it
// read, and a stream that ends in the middle of a split block is an error,
// never a shorter batch. A Reader is not safe for concurrent use.
type Reader struct {
	stream   aflight.DataStreamReader
	raw      msgReceiver // the stream's RecvMsg, when it is gRPC's own stream
	cur      *recvMsg    // what the last message was received into through raw
	opts     []codec.Option
	maxBlock int
	schema   *arrow.Schema
	dec      *codec.Decoder
	ipcr     *ipc.Reader
	msgs     *messageReader
	mem      *cappedAllocator

	refs    atomic.Int64
	rec     arrow.RecordBatch
	meta    []byte
	descr   *aflight.FlightDescriptor
	pending []byte
	block   codec.RawBlock // the block of the current batch, if arrowpack
	blkBuf  *memory.Buffer // holds block's bytes, when they are pooled
	plen    uint64
	pcrc    uint32 // the CRC32C the split block's markers give
	prun    uint32 // the CRC32C of its bytes so far
	err     error
	done    bool
}

// NewReader reads the schema message from stream and returns a Reader of
// the batches that follow. Options are the codec's Decoder options
// (codec.WithAllocator, codec.WithMaxBlockSize). A stream whose first data
// message is not an IPC schema message (an arrowpack block, say) is refused
// with an error wrapping codec.ErrCorrupt.
func NewReader(stream aflight.DataStreamReader, opts ...codec.Option) (_ *Reader, err error) {
	if stream == nil {
		return nil, fmt.Errorf("%w: arrowpack flight: nil stream", codec.ErrCorrupt)
	}
	// The limit on a block, decompressed, and on what one IPC batch may
	// hold: codec.WithMaxBlockSize's, as the Decoder's.
	maxBlock, err := codec.MaxBlockSize(opts...)
	if err != nil {
		return nil, err
	}
	r := &Reader{stream: stream, opts: opts, maxBlock: maxBlock}
	r.refs.Store(1)
	if grpcOwn(stream) {
		r.raw, _ = stream.(msgReceiver)
	}
	r.mem = &cappedAllocator{mem: memory.DefaultAllocator, limit: int64(r.maxBlock)}
	r.msgs = &messageReader{r: r}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: arrowpack flight: malformed schema message: %v", codec.ErrCorrupt, p)
		}
	}()
	// Like arrow-go, skip leading messages that carry no data (a descriptor
	// or app_metadata alone).
	for {
		fd, err := r.recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%w: arrowpack flight: stream ended before its schema message", codec.ErrCorrupt)
			}
			return nil, err
		}
		if hasMarker(fd.AppMetadata) {
			return nil, fmt.Errorf("%w: arrowpack flight: arrowpack block before the schema message", codec.ErrCorrupt)
		}
		if len(fd.DataHeader) > 0 {
			r.msgs.peeked = fd
			break
		}
		r.meta = fd.AppMetadata
	}
	schema, err := verifySchema(r.msgs.peeked.DataHeader)
	if err != nil {
		return nil, err
	}
	r.ipcr, err = ipc.NewReaderFromMessageReader(r.msgs, ipc.WithAllocator(r.mem), ipc.WithSchema(schema))
	if err != nil {
		return nil, fmt.Errorf("%w: arrowpack flight: reading the schema message: %v", codec.ErrCorrupt, err)
	}
	r.schema = r.ipcr.Schema()
	return r, nil
}

// recv returns the next FlightData and notes its descriptor. Through gRPC's
// own stream it receives into a recvMsg (r.cur), so that with Codec the
// body comes in a pooled buffer with its checksum.
func (r *Reader) recv() (*aflight.FlightData, error) {
	var fd *aflight.FlightData
	r.cur = nil
	if r.raw != nil {
		m := &recvMsg{FlightData: new(aflight.FlightData)}
		if r.pending != nil {
			m.seed = r.prun
		}
		if err := r.raw.RecvMsg(m); err != nil {
			return nil, err
		}
		fd, r.cur = m.FlightData, m
	} else {
		var err error
		if fd, err = r.stream.Recv(); err != nil {
			return nil, err
		}
	}
	if fd == nil {
		return nil, fmt.Errorf("%w: arrowpack flight: nil FlightData", codec.ErrCorrupt)
	}
	if fd.FlightDescriptor != nil {
		r.descr = fd.FlightDescriptor
	}
	return fd, nil
}

// Schema returns the stream's schema.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Next advances to the next batch and reports whether there is one. At the
// end of the stream, or on an error, it returns false; Err tells which.
func (r *Reader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	r.dropRaw()
	if r.err != nil || r.done {
		return false
	}
	rec, err := r.next()
	switch {
	case err != nil:
		r.err = err
		r.pending = nil
		return false
	case rec == nil:
		r.done = true
		return false
	}
	r.rec = rec
	return true
}

// next returns the next batch, nil at the end of the stream.
func (r *Reader) next() (rec arrow.RecordBatch, err error) {
	defer func() {
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("%w: arrowpack flight: malformed message: %v", codec.ErrCorrupt, p)
		}
	}()
	for {
		fd, err := r.recv()
		if errors.Is(err, io.EOF) {
			if r.pending != nil {
				return nil, fmt.Errorf("%w: arrowpack flight: stream ended after %d of the %d bytes of a split block", codec.ErrCorrupt, len(r.pending), r.plen)
			}
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if hasMarker(fd.AppMetadata) {
			rec, err := r.part(fd)
			if rec != nil || err != nil {
				return rec, err
			}
			continue
		}
		if r.pending != nil {
			return nil, fmt.Errorf("%w: arrowpack flight: a split block is interrupted by another message after %d of its %d bytes", codec.ErrCorrupt, len(r.pending), r.plen)
		}
		if len(fd.DataHeader) == 0 {
			if len(fd.DataBody) > 0 {
				return nil, fmt.Errorf("%w: arrowpack flight: FlightData with a %d-byte body but neither an IPC header nor an arrowpack marker", codec.ErrCorrupt, len(fd.DataBody))
			}
			r.meta = fd.AppMetadata // app_metadata alone
			continue
		}
		return r.ipcBatch(fd)
	}
}

// part takes one FlightData of an arrowpack block and returns the batch
// once the block is whole.
func (r *Reader) part(fd *aflight.FlightData) (arrow.RecordBatch, error) {
	if len(fd.DataHeader) != 0 {
		return nil, fmt.Errorf("%w: arrowpack flight: app_metadata claims an arrowpack block but the message carries a %d-byte IPC header", codec.ErrCorrupt, len(fd.DataHeader))
	}
	m, user, err := parseMarker(fd.AppMetadata)
	if err != nil {
		return nil, err
	}
	if m.blockLen > uint64(r.maxBlock)+wireSlack {
		return nil, r.overLimit(fmt.Sprintf("a block of %d bytes", m.blockLen))
	}
	body := fd.DataBody
	if r.pending == nil && m.last {
		if uint64(len(body)) != m.blockLen {
			return nil, fmt.Errorf("%w: arrowpack flight: block of %d bytes in a message that says %d", codec.ErrCorrupt, len(body), m.blockLen)
		}
		if rm := r.cur; rm != nil {
			return r.decode(body, rm.buffer(), rm.checksum(), m.crc, user)
		}
		return r.decode(body, nil, codec.Checksum(body), m.crc, user)
	}
	if len(body) == 0 && !m.last {
		return nil, fmt.Errorf("%w: arrowpack flight: empty part of a split block", codec.ErrCorrupt)
	}
	if r.pending == nil {
		r.plen, r.pcrc, r.prun = m.blockLen, m.crc, 0
		// Grow with what arrives, never from the length the marker claims.
		r.pending = make([]byte, 0, len(body))
	} else if m.blockLen != r.plen || m.crc != r.pcrc {
		return nil, fmt.Errorf("%w: arrowpack flight: part of a %d-byte block inside a %d-byte one", codec.ErrCorrupt, m.blockLen, r.plen)
	}
	if uint64(len(body)) > r.plen-uint64(len(r.pending)) {
		return nil, fmt.Errorf("%w: arrowpack flight: parts of a split block exceed its %d bytes", codec.ErrCorrupt, r.plen)
	}
	r.pending = append(r.pending, body...)
	if rm := r.cur; rm != nil {
		r.prun = rm.checksum()
		rm.buffer().Release() // the bytes are copied: give them back
	} else {
		r.prun = arrowpack.UpdateCRC32C(r.prun, body)
	}
	if !m.last {
		return nil, nil
	}
	if uint64(len(r.pending)) != r.plen {
		return nil, fmt.Errorf("%w: arrowpack flight: split block has %d of its %d bytes at its last part", codec.ErrCorrupt, len(r.pending), r.plen)
	}
	block := r.pending
	r.pending = nil
	return r.decode(block, nil, r.prun, r.pcrc, user)
}

// decode checks and decodes one whole arrowpack block, whose CRC32C is got
// and should be want. buf, if not nil, holds the block's bytes; decode
// releases the reference to it the caller gave it.
func (r *Reader) decode(block []byte, buf *memory.Buffer, got, want uint32, user []byte) (arrow.RecordBatch, error) {
	if buf != nil {
		defer buf.Release() // the batch's arrays, and blkBuf, hold their own references
	}
	if got != want {
		return nil, fmt.Errorf("%w: arrowpack flight: block checksum %#08x, its marker says %#08x", codec.ErrCorrupt, got, want)
	}
	if info, err := codec.ReadBlockInfo(block); err == nil && info.RawSize > r.maxBlock {
		return nil, r.overLimit(fmt.Sprintf("a block of %d bytes once decompressed", info.RawSize))
	}
	if r.dec == nil {
		dec, err := codec.NewDecoder(r.schema, r.opts...)
		if err != nil {
			return nil, err
		}
		r.dec = dec
	}
	// The block is the Reader's own (gRPC unmarshals every message into
	// new memory, or Codec into a buffer of buf's), so the batch may alias
	// it.
	var rec arrow.RecordBatch
	var err error
	if buf != nil {
		rec, err = r.dec.DecodeBuffer(buf)
	} else {
		rec, err = r.dec.Decode(block)
	}
	if err != nil {
		return nil, err
	}
	r.meta = user
	r.block = codec.RawBlock{Bytes: block, CRC: got}
	if buf != nil {
		buf.Retain()
		r.blkBuf = buf
	}
	return rec, nil
}

// rawBlock returns the arrowpack block the current batch was decoded from,
// as it came, and its CRC32C (checked); ok is false for an IPC batch. The
// bytes are the Reader's until the next call of Next or Release.
func (r *Reader) rawBlock() (b codec.RawBlock, ok bool) {
	return r.block, r.block.Bytes != nil
}

// dropRaw forgets the current batch's block.
func (r *Reader) dropRaw() {
	if r.blkBuf != nil {
		r.blkBuf.Release()
		r.blkBuf = nil
	}
	r.block = codec.RawBlock{}
}

// ipcBatch reads a batch from IPC messages starting with fd.
func (r *Reader) ipcBatch(fd *aflight.FlightData) (arrow.RecordBatch, error) {
	r.msgs.peeked = fd
	r.msgs.err = nil
	r.mem.reset()
	if !r.ipcr.Next() {
		if err := r.ipcr.Err(); err != nil {
			if r.msgs.err != nil {
				return nil, r.msgs.err // the stream's own error, or ours
			}
			if r.mem.over() {
				return nil, r.overLimit("an IPC batch whose buffers take more bytes")
			}
			return nil, fmt.Errorf("%w: arrowpack flight: IPC message: %v", codec.ErrCorrupt, err)
		}
		return nil, fmt.Errorf("%w: arrowpack flight: IPC message of type %s where a record batch was expected", codec.ErrCorrupt, messageType(fd))
	}
	rec := r.ipcr.RecordBatch()
	if err := array.ValidateRecordFull(rec); err != nil {
		return nil, fmt.Errorf("%w: arrowpack flight: IPC batch is invalid: %v", codec.ErrCorrupt, err)
	}
	rec.Retain()
	r.meta = r.msgs.meta
	return rec, nil
}

// errOverLimit marks the errors of blocks and IPC batches over a Reader's
// limit (codec.WithMaxBlockSize), which a Server reports as
// ResourceExhausted.
var errOverLimit = errors.New("over the limit")

// overLimit returns the error of what (a block, an IPC batch) being over the
// Reader's limit: ErrCorrupt to a client, errOverLimit to a Server.
func (r *Reader) overLimit(what string) error {
	return fmt.Errorf("%w: arrowpack flight: %s, %w of %d bytes (codec.WithMaxBlockSize)", codec.ErrCorrupt, what, errOverLimit, r.maxBlock)
}

// RecordBatch returns the current batch. The Reader releases it at the next
// call of Next or at Release; Retain it to keep it longer.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.rec }

// Record returns the current batch.
//
// Deprecated: Use RecordBatch instead.
func (r *Reader) Record() arrow.RecordBatch { return r.rec }

// Read returns the next batch, or nil and io.EOF at the end of the stream,
// as arrio.Reader asks. The Reader releases the batch at the next call.
func (r *Reader) Read() (arrow.RecordBatch, error) {
	if r.Next() {
		return r.rec, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	return nil, io.EOF
}

// Err returns the error that ended the reading, or nil at a clean end.
func (r *Reader) Err() error { return r.err }

// LatestAppMetadata returns the application metadata of the current batch
// (without the arrowpack marker), or of the last FlightData that carried
// metadata alone.
func (r *Reader) LatestAppMetadata() []byte { return r.meta }

// LatestFlightDescriptor returns the last descriptor the stream carried
// (a DoPut's, on its first message).
func (r *Reader) LatestFlightDescriptor() *aflight.FlightDescriptor { return r.descr }

// Chunk returns the current batch with the descriptor and metadata.
func (r *Reader) Chunk() aflight.StreamChunk {
	return aflight.StreamChunk{Data: r.rec, Desc: r.descr, AppMetadata: r.meta}
}

// Retain adds a reference to the Reader.
func (r *Reader) Retain() { r.refs.Add(1) }

// Release removes a reference; at the last one the current batch is
// released. The stream is not closed.
func (r *Reader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	r.dropRaw()
	if r.ipcr != nil {
		r.ipcr.Release()
	}
	r.pending = nil
}

var _ aflight.MessageReader = (*Reader)(nil)

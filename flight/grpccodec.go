package flight

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync/atomic"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers "proto", which Codec falls back to
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// Codec is a gRPC codec (encoding.CodecV2) for Flight that moves the
// data_body of a FlightData without protobuf's copies; every other message,
// and any FlightData it does not parse as below, goes through gRPC's
// protobuf codec. It is named "proto": the bytes on the wire and the content
// type are exactly protobuf's, so either end may use it or not.
//
// On send, the fields before data_body are written by hand and the body is
// handed to gRPC by reference when a Writer sent it (the block returns to
// the Writer's pool when gRPC has written it), copied once into one of
// gRPC's pooled buffers otherwise. On receive, FlightData is parsed across
// gRPC's buffers: a body that lies in one buffer is used in place, a body
// split over several is gathered once into an 8-byte aligned buffer, which a
// Reader takes from a pool and gives back when the batch decoded from it is
// released, computing the block's CRC32C while the bytes are hot. A field
// other than FlightData's four, or one of them twice, makes the message go
// through protobuf instead.
//
// Install it on a server with GRPCServerOptions (grpc.ForceServerCodecV2) and on
// a client with GRPCDialOptions or GRPCCallOptions (grpc.ForceCodecV2); it is not
// registered for the whole process.
var Codec encoding.CodecV2 = &wireCodec{proto: encoding.GetCodecV2("proto")}

// wireCodec is Codec; proto is gRPC's protobuf codec, captured at start-up so
// that it stays protobuf's even if someone registers Codec globally.
type wireCodec struct {
	proto encoding.CodecV2
}

// Name returns "proto": the codec speaks protobuf's wire format.
func (c *wireCodec) Name() string { return "proto" }

// Protobuf tags of FlightData's fields, all of wire type 2 (length-delimited).
const (
	tagDescriptor = 1<<3 | 2
	tagHeader     = 2<<3 | 2
	tagMetadata   = 3<<3 | 2
	tagBody       = 1000<<3 | 2
)

// sendMsg is what a Writer sends a FlightData as when the stream is gRPC's
// own: its body is a slice of owner, which the codec keeps a reference to
// until gRPC has written the bytes. The embedded message makes it a
// protobuf message too, so gRPC's own codec sends it as the FlightData it
// is.
type sendMsg struct {
	*aflight.FlightData
	owner *sendBlock
}

// sendBlock is a block being sent, shared by the FlightData of its parts
// and the Writer: its buffer goes back to the pool at the last release
// (or, for a block of a mapped file, its reference to the mapping is
// released). It is the mem.BufferPool of the gRPC buffers that alias it.
type sendBlock struct {
	buf  []byte
	refs atomic.Int32
	m    *fileMap // the mapping buf is a slice of, or nil for a pooled buf
	lost runtime.Cleanup
}

// liveBlocks counts the sendBlocks not yet given back and the received
// bodies handed out by recvMsg.buffer and not yet released: tests check
// that it comes back to zero.
var liveBlocks atomic.Int64

// newSendBlock returns a sendBlock of buf, a slice of m if m is not nil
// (the caller gave the sendBlock a reference to m), with one reference.
func newSendBlock(buf []byte, m *fileMap) *sendBlock {
	s := &sendBlock{buf: buf, m: m}
	s.refs.Store(1)
	liveBlocks.Add(1)
	s.lost = runtime.AddCleanup(s, dropBlock, m)
	return s
}

// dropBlock is the cleanup of a sendBlock that became unreachable with
// references never released: gRPC drops the data of a stream that has
// ended without giving its buffers back (loopyWriter.preprocessData, as of
// v1.83). The garbage collector takes a pooled buffer; a block of a
// mapping releases its reference to it, so that the file is unmapped.
func dropBlock(m *fileMap) {
	if m != nil {
		m.release()
	}
	liveBlocks.Add(-1)
}

func (s *sendBlock) retain() { s.refs.Add(1) }

func (s *sendBlock) release() {
	if s.refs.Add(-1) == 0 {
		s.lost.Stop()
		if s.m != nil {
			s.m.release()
			s.m = nil
		} else {
			blocks.put(s.buf)
		}
		s.buf = nil
		liveBlocks.Add(-1)
	}
}

// Get is never called: gRPC only gives buffers back to the pool they came
// with.
func (s *sendBlock) Get(n int) *[]byte { b := make([]byte, n); return &b }

// Put is gRPC giving back a reference to the block.
func (s *sendBlock) Put(*[]byte) { s.release() }

// Marshal writes a FlightData as protobuf would, its body by reference
// when it can; other messages go through protobuf.
func (c *wireCodec) Marshal(v any) (mem.BufferSlice, error) {
	var fd *aflight.FlightData
	var owner *sendBlock
	switch m := v.(type) {
	case *sendMsg:
		fd, owner = m.FlightData, m.owner
	case *aflight.FlightData:
		fd = m
	default:
		return c.proto.Marshal(v)
	}
	if fd == nil || len(fd.ProtoReflect().GetUnknown()) != 0 {
		return c.proto.Marshal(v)
	}
	var desc []byte
	if fd.FlightDescriptor != nil {
		var err error
		if desc, err = proto.Marshal(fd.FlightDescriptor); err != nil {
			return nil, err
		}
	}
	// Room for the three fields and the body's tag and length.
	head := make([]byte, 0, len(desc)+len(fd.DataHeader)+len(fd.AppMetadata)+4*(2+binary.MaxVarintLen64))
	if fd.FlightDescriptor != nil {
		// A message field is written when set, even if empty.
		head = appendField(head, tagDescriptor, desc)
	}
	if len(fd.DataHeader) > 0 {
		head = appendField(head, tagHeader, fd.DataHeader)
	}
	if len(fd.AppMetadata) > 0 {
		head = appendField(head, tagMetadata, fd.AppMetadata)
	}
	body := fd.DataBody
	if len(body) == 0 {
		return mem.BufferSlice{mem.SliceBuffer(head)}, nil
	}
	head = binary.AppendUvarint(head, tagBody)
	head = binary.AppendUvarint(head, uint64(len(body)))
	out := mem.BufferSlice{mem.SliceBuffer(head)}
	if owner != nil && !mem.IsBelowBufferPoolingThreshold(len(body)) {
		owner.retain()
		b := body[:len(body):len(body)]
		out = append(out, mem.NewBuffer(&b, owner))
	} else {
		out = append(out, mem.Copy(body, mem.DefaultBufferPool()))
	}
	return out, nil
}

// appendField appends a length-delimited field.
func appendField(dst []byte, tag uint64, b []byte) []byte {
	dst = binary.AppendUvarint(dst, tag)
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// recvMsg is what a Reader receives a FlightData into when the stream is
// gRPC's own. With Codec the body's bytes are the Reader's to keep or give
// back (buffer), and their CRC32C, continued from seed, comes with them;
// with gRPC's own codec the embedded FlightData is filled as usual and the
// rest stays empty.
type recvMsg struct {
	*aflight.FlightData
	seed uint32 // CRC32C of the bytes of the block before this body

	crc    uint32     // CRC32C of the block up to the end of this body, continued from seed
	crcSet bool       // crc was computed
	pooled []byte     // the body, gathered into a buffer of blocks
	inGRPC mem.Buffer // the buffer of gRPC's the body lies in, referenced
}

// checksum returns the CRC32C of the block up to the end of this message's
// body, given that of the bytes before it (seed, as received with).
func (m *recvMsg) checksum() uint32 {
	if m.crcSet {
		return m.crc
	}
	return arrowpack.UpdateCRC32C(m.seed, m.DataBody)
}

// buffer returns the body as a reference-counted buffer whose bytes are
// given back (to the pool, or to gRPC) when its last reference is released.
// The caller owns the returned reference. Without Codec it is a plain
// buffer of the body.
func (m *recvMsg) buffer() *memory.Buffer {
	switch {
	case m.pooled != nil:
		liveBlocks.Add(1)
		b := memory.NewBufferWithAllocator(m.pooled, poolAllocator{})
		m.pooled = nil
		return b
	case m.inGRPC != nil:
		liveBlocks.Add(1)
		b := memory.NewBufferWithAllocator(m.DataBody, grpcAllocator{m.inGRPC})
		m.inGRPC = nil
		return b
	}
	return memory.NewBufferWithAllocator(m.DataBody, keepAllocator{})
}

// grpcAllocator releases a buffer of gRPC's that an arrow buffer aliased.
type grpcAllocator struct{ b mem.Buffer }

func (a grpcAllocator) Allocate(n int) []byte { return alignedBytes(n, n) }
func (a grpcAllocator) Reallocate(n int, b []byte) []byte {
	return keepAllocator{}.Reallocate(n, b)
}
func (a grpcAllocator) Free([]byte) {
	a.b.Free()
	liveBlocks.Add(-1)
}

// Unmarshal parses a FlightData across gRPC's buffers; other messages, and
// FlightData with fields it does not know or repeated ones, go through
// protobuf.
func (c *wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	var fd *aflight.FlightData
	var rm *recvMsg
	switch m := v.(type) {
	case *recvMsg:
		fd, rm = m.FlightData, m
	case *aflight.FlightData:
		fd = m
	default:
		return c.proto.Unmarshal(data, v)
	}
	if fd == nil {
		return c.proto.Unmarshal(data, v)
	}
	if ok, err := parseFlightData(data, fd, rm); ok || err != nil {
		return err
	}
	fd.Reset()
	return c.proto.Unmarshal(data, fd)
}

// wireCursor reads protobuf across the buffers of a message.
type wireCursor struct {
	bufs mem.BufferSlice
	i    int    // current buffer
	cur  []byte // what is left of it
}

func (w *wireCursor) advance() bool {
	for len(w.cur) == 0 {
		w.i++
		if w.i >= len(w.bufs) {
			return false
		}
		w.cur = w.bufs[w.i].ReadOnlyData()
	}
	return true
}

func (w *wireCursor) done() bool { return !w.advance() }

// uvarint reads a varint; ok is false when it is malformed or cut short.
func (w *wireCursor) uvarint() (uint64, bool) {
	var x uint64
	for s := uint(0); s < 64; s += 7 {
		if !w.advance() {
			return 0, false
		}
		b := w.cur[0]
		w.cur = w.cur[1:]
		if s == 63 && b > 1 {
			return 0, false
		}
		x |= uint64(b&0x7f) << s
		if b < 0x80 {
			return x, true
		}
	}
	return 0, false
}

// remaining returns the bytes left, from the current position.
func (w *wireCursor) remaining() int {
	n := len(w.cur)
	for _, b := range w.bufs[min(w.i+1, len(w.bufs)):] {
		n += b.Len()
	}
	return n
}

// copyOut copies the next len(dst) bytes into dst, which remaining said
// are there, and updates crc over them when crcOn.
func (w *wireCursor) copyOut(dst []byte, crc *uint32, crcOn bool) {
	for len(dst) > 0 {
		w.advance()
		n := copy(dst, w.cur)
		if crcOn {
			*crc = arrowpack.UpdateCRC32C(*crc, dst[:n])
		}
		w.cur = w.cur[n:]
		dst = dst[n:]
	}
}

// parseFlightData fills fd (and rm, if not nil) from data. It returns false
// without an error when the message is not one it parses (an unknown or
// repeated field, say), leaving it to protobuf, and an error when the
// message is malformed.
func parseFlightData(data mem.BufferSlice, fd *aflight.FlightData, rm *recvMsg) (ok bool, err error) {
	w := wireCursor{bufs: data, i: -1}
	var seen uint8
	var pooled []byte
	var inGRPC mem.Buffer
	defer func() {
		if !ok || err != nil {
			if rm != nil {
				rm.crcSet = false
			}
			if pooled != nil {
				blocks.put(pooled)
			}
			if inGRPC != nil {
				inGRPC.Free()
			}
			return
		}
		if rm != nil {
			rm.pooled, rm.inGRPC = pooled, inGRPC
		}
	}()
	*fd = aflight.FlightData{}
	for !w.done() {
		tag, ok := w.uvarint()
		if !ok {
			return false, nil
		}
		var bit uint8
		switch tag {
		case tagDescriptor:
			bit = 1
		case tagHeader:
			bit = 2
		case tagMetadata:
			bit = 4
		case tagBody:
			bit = 8
		default:
			return false, nil
		}
		if seen&bit != 0 {
			return false, nil
		}
		seen |= bit
		n, ok := w.uvarint()
		if !ok || n > uint64(w.remaining()) {
			return false, nil // protobuf says what is wrong
		}
		if tag != tagBody {
			b := make([]byte, n)
			w.copyOut(b, nil, false)
			switch tag {
			case tagDescriptor:
				fd.FlightDescriptor = &aflight.FlightDescriptor{}
				if err := proto.Unmarshal(b, fd.FlightDescriptor); err != nil {
					return false, fmt.Errorf("grpc: failed to unmarshal FlightData's flight_descriptor: %w", err)
				}
			case tagHeader:
				fd.DataHeader = b
			case tagMetadata:
				fd.AppMetadata = b
			}
			continue
		}
		if n == 0 {
			fd.DataBody = []byte{}
			continue
		}
		w.advance()
		if uint64(len(w.cur)) >= n {
			// The body lies in one of gRPC's buffers: use it in place,
			// keeping a reference that the Reader gives back (or that
			// nobody does: the garbage collector then takes the bytes).
			fd.DataBody = w.cur[:n:n]
			w.bufs[w.i].Ref()
			if rm != nil {
				inGRPC = w.bufs[w.i]
			}
			w.cur = w.cur[n:]
			continue
		}
		var body []byte
		if rm != nil {
			pooled = blocks.get(int(n))
			body = pooled
			rm.crc, rm.crcSet = rm.seed, true
			w.copyOut(body, &rm.crc, true)
		} else {
			body = alignedBytes(int(n), int(n))
			w.copyOut(body, nil, false)
		}
		fd.DataBody = body
	}
	return true, nil
}

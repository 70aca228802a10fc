package flight

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
)

// errStored marks an error of a stored stream (its framing or a block
// that does not decode), which a Server reports as DataLoss.
var errStored = errors.New("stored stream")

// sendStored sends the blocks of a stored stream to a DoGet stream. To a
// client that asked for arrowpack, a block whose compression is the one it
// asked for (any, when it named none) goes as it is stored, with its stored
// checksum: no decoding, no encoding, but the checksum checked as the bytes
// are read, so that a block damaged on disk is the server's DataLoss
// naming the stream, not a checksum error at the client (which checks it
// again, for the wire). Other blocks are decoded (checksum checked)
// and encoded again with opts (the server's options and the compression
// asked for). A client that did not ask for arrowpack gets Arrow IPC.
//
// charge is called before each block is sent, with the block's info and
// whether it is decoded, so that the caller can account for what the block
// holds until the next call. m, when not nil, is the mapping rr reads
// (NewRawReaderBytes): blocks passed through are sent by reference from it.
func sendStored(stream aflight.FlightService_DoGetServer, rr *codec.RawReader, m *fileMap, ap bool, comp codec.Compression, set bool, opts []codec.Option, charge func(codec.BlockInfo, bool) error) error {
	if !ap {
		iw := aflight.NewRecordWriter(stream, ipc.WithSchema(rr.Schema()))
		defer iw.Close()
		err := eachStored(rr, m, nil, func(b codec.RawBlock, sb *sendBlock) error {
			info, err := codec.ReadBlockInfo(b.Bytes)
			if err != nil {
				return fmt.Errorf("%w: %w", errStored, err)
			}
			if err := charge(info, true); err != nil {
				return err
			}
			rec, err := decodeStored(rr, b, sb)
			if err != nil {
				return fmt.Errorf("%w: %w", errStored, err)
			}
			defer rec.Release()
			return iw.Write(rec)
		})
		if err != nil {
			return err
		}
		return iw.Close()
	}
	if set {
		opts = append(opts[:len(opts):len(opts)], codec.WithCompression(comp))
	}
	w, err := NewWriter(stream, rr.Schema(), opts...)
	if err != nil {
		return err
	}
	err = eachStored(rr, m, w, func(b codec.RawBlock, sb *sendBlock) error {
		info, err := codec.ReadBlockInfo(b.Bytes)
		if err != nil {
			return fmt.Errorf("%w: %w", errStored, err)
		}
		pass := !set || info.Compression == comp
		if err := charge(info, !pass); err != nil {
			return err
		}
		if pass {
			if err := b.Verify(); err != nil {
				return fmt.Errorf("%w: %w", errStored, err)
			}
			return w.writeRaw(b.Bytes, b.CRC, sb)
		}
		rec, err := decodeStored(rr, b, sb)
		if err != nil {
			return fmt.Errorf("%w: %w", errStored, err)
		}
		defer rec.Release()
		return w.Write(rec)
	})
	if err != nil {
		return err
	}
	return w.Close()
}

// decodeStored decodes b, which sb holds when it is not nil: the batch's
// arrays then keep a reference to sb (to the pooled buffer or the mapping
// the block lies in) until they are released, so that a batch a coalescing
// Writer holds on to keeps its bytes.
func decodeStored(rr *codec.RawReader, b codec.RawBlock, sb *sendBlock) (arrow.RecordBatch, error) {
	if sb == nil {
		return rr.Decode(b) // b is in memory of its own
	}
	sb.retain()
	mb := memory.NewBufferWithAllocator(b.Bytes, sendAllocator{sb})
	defer mb.Release()
	return rr.DecodeBuffer(mb, b.CRC)
}

// sendAllocator is the allocator of an arrow buffer of a sendBlock's bytes:
// releasing the buffer releases a reference to the sendBlock.
type sendAllocator struct{ s *sendBlock }

func (a sendAllocator) Allocate(n int) []byte { return alignedBytes(n, n) }
func (a sendAllocator) Reallocate(n int, b []byte) []byte {
	return keepAllocator{}.Reallocate(n, b)
}
func (a sendAllocator) Free([]byte) { a.s.release() }

// eachStored calls f with every block of rr, held by a sendBlock that gRPC
// (and batches decoded from it) may keep a reference to: a slice of m, the
// mapping rr reads, if not nil; or else, when w sends through gRPC's own
// stream, a pooled buffer the block is read into; or else none (the block
// is read into memory of its own).
func eachStored(rr *codec.RawReader, m *fileMap, w *Writer, f func(codec.RawBlock, *sendBlock) error) error {
	last := 0
	for {
		var dst []byte
		pooled := m == nil && w != nil && w.raw != nil
		if pooled {
			dst = blocks.get(last + last/8)
		}
		b, err := rr.Next(dst)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %w", errStored, err)
		}
		last = len(b.Bytes)
		var sb *sendBlock
		switch {
		case m != nil:
			sb = m.block(b.Bytes)
		case pooled:
			sb = newSendBlock(b.Bytes, nil)
		}
		err = f(b, sb)
		if sb != nil {
			sb.release()
		}
		if err != nil {
			return err
		}
	}
}

// storeBatch writes the current batch of r to rw: its arrowpack block as
// it came (the Reader has checked its checksum and decoded it), an IPC
// batch encoded with enc into *buf.
func storeBatch(r *Reader, rw *codec.RawWriter, enc *codec.Encoder, buf *[]byte) error {
	if b, ok := r.rawBlock(); ok {
		return rw.WriteBlock(b.Bytes, b.CRC)
	}
	block, err := enc.Append((*buf)[:0], r.RecordBatch())
	if err != nil {
		return err
	}
	*buf = block
	return rw.WriteBlock(block, codec.Checksum(block))
}

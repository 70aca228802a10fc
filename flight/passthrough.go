package flight

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/arrowpack/arrowpack/codec"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// errStored marks an error of a stored stream (its framing or a block
// that does not decode), which a Server reports as DataLoss.
var errStored = errors.New("stored stream")

// sendStored sends the blocks of a stored stream to a DoGet stream. To a
// client that asked for arrowpack, a block whose compression is the one it
// asked for (any, when it named none) goes as it is stored, with its stored
// checksum, which the client's Reader checks: no decoding, no encoding, no
// checksumming on the server. Other blocks are decoded (checksum checked)
// and encoded again with opts (the server's options and the compression
// asked for). A client that did not ask for arrowpack gets Arrow IPC.
func sendStored(stream aflight.FlightService_DoGetServer, rr *codec.RawReader, ap bool, comp codec.Compression, set bool, opts []codec.Option) error {
	if !ap {
		iw := aflight.NewRecordWriter(stream, ipc.WithSchema(rr.Schema()))
		defer iw.Close()
		err := eachStored(rr, nil, func(b codec.RawBlock, _ *sendBlock) error {
			rec, err := rr.Decode(b)
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
	err = eachStored(rr, w, func(b codec.RawBlock, sb *sendBlock) error {
		info, err := codec.ReadBlockInfo(b.Bytes)
		if err != nil {
			return fmt.Errorf("%w: %w", errStored, err)
		}
		if !set || info.Compression == comp {
			return w.writeRaw(b.Bytes, b.CRC, sb)
		}
		rec, err := rr.Decode(b)
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

// eachStored calls f with every block of rr, read into a pooled buffer
// held by a sendBlock (when w sends through gRPC's own stream) that gRPC
// may keep a reference to.
func eachStored(rr *codec.RawReader, w *Writer, f func(codec.RawBlock, *sendBlock) error) error {
	last := 0
	for {
		var dst []byte
		pooled := w != nil && w.raw != nil
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
		if pooled {
			sb = newSendBlock(b.Bytes)
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

// storeBlocks writes the batches r reads to rw: an arrowpack block as it
// came (the Reader has checked its checksum and decoded it), an IPC batch
// encoded with enc.
func storeBlocks(r *Reader, rw *codec.RawWriter, enc *codec.Encoder) error {
	var buf []byte
	for r.Next() {
		if b, ok := r.rawBlock(); ok {
			if err := rw.WriteBlock(b.Bytes, b.CRC); err != nil {
				return err
			}
			continue
		}
		block, err := enc.Append(buf[:0], r.RecordBatch())
		if err != nil {
			return err
		}
		buf = block
		if err := rw.WriteBlock(block, codec.Checksum(block)); err != nil {
			return err
		}
	}
	return r.Err()
}

// openRaw opens the stored stream of key for its raw blocks.
func (s *Server) openRaw(key string) (*os.File, *codec.RawReader, error) {
	f, err := os.Open(filepath.Join(s.dir, key+fileExt))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, status.Errorf(codes.NotFound, "arrowpack flight: no stream stored under %s", key)
		}
		return nil, nil, statusOf(err, "arrowpack flight: %s", key)
	}
	// Unbuffered: a block is read straight into the buffer it is sent
	// from (two reads a block), not copied once more out of a bufio.Reader.
	r, err := codec.NewRawReader(f)
	if err != nil {
		f.Close()
		return nil, nil, status.Errorf(codes.DataLoss, "arrowpack flight: stored stream %s: %v", key, err)
	}
	return f, r, nil
}

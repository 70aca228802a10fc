package flight

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack/codec"
)

// coalescer gathers a Writer's batches into blocks as codec.WithBlockRows
// and WithBlockSize ask, by writing them to a codec.Writer (which does the
// coalescing, and checksums each block) and reading the frames it wrote
// back as raw blocks to send.
type coalescer struct {
	cw  *codec.Writer
	rr  *codec.RawReader
	buf bytes.Buffer // whole frames the codec.Writer wrote, not yet sent
}

// newCoalescer returns a coalescer of batches of schema, or nil when opts
// set no block target.
func newCoalescer(schema *arrow.Schema, opts []codec.Option) (*coalescer, error) {
	rows, size, err := codec.BlockTargets(opts...)
	if err != nil || (rows == 0 && size == 0) {
		return nil, err
	}
	c := &coalescer{}
	if c.cw, err = codec.NewWriter(&c.buf, schema, opts...); err != nil {
		return nil, err
	}
	if c.rr, err = codec.NewRawReader(&c.buf); err != nil {
		return nil, fmt.Errorf("arrowpack flight: reading back the coalescing writer's stream header: %w", err)
	}
	return c, nil
}

// coalesce adds rec to the batches the Writer holds, sending those as one
// block when they reach a target; with meta, it sends them at once and
// meta with them.
func (w *Writer) coalesce(rec arrow.RecordBatch, meta []byte) error {
	if err := w.co.cw.Write(rec); err != nil {
		return err // a batch the encoder refused: nothing was written
	}
	if meta != nil {
		if err := w.co.cw.Flush(); err != nil {
			return err
		}
	}
	return w.drain(meta)
}

// flushCoalesced sends the batches the Writer holds, if any.
func (w *Writer) flushCoalesced() error {
	if err := w.co.cw.Flush(); err != nil {
		return err
	}
	return w.drain(nil)
}

// drain sends the blocks the codec.Writer has written, meta with the last.
func (w *Writer) drain(meta []byte) error {
	for w.co.buf.Len() > 0 {
		var dst []byte
		if w.raw != nil {
			dst = blocks.get(w.lastLen + w.lastLen/8)
		}
		b, err := w.co.rr.Next(dst)
		if err != nil && dst != nil {
			blocks.put(dst)
		}
		if errors.Is(err, io.EOF) {
			return nil // the end frame, at Close
		}
		if err != nil {
			w.err = fmt.Errorf("arrowpack flight: reading back a coalesced block: %w", err)
			return w.err
		}
		w.lastLen = len(b.Bytes)
		var m []byte
		if w.co.buf.Len() == 0 {
			m = meta
		}
		if w.raw == nil {
			err = w.send(b.Bytes, b.CRC, nil, m)
		} else {
			sb := newSendBlock(b.Bytes, nil)
			err = w.send(b.Bytes, b.CRC, sb, m)
			sb.release()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

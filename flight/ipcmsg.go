package flight

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
)

// messageReader hands the IPC messages of a Reader's stream to arrow-go's
// ipc.Reader: first the message the Reader peeked, then further ones (the
// dictionaries before a batch) straight from the stream.
type messageReader struct {
	r      *Reader
	peeked *aflight.FlightData
	meta   []byte // app_metadata of the last message handed out
	err    error  // the last error handed out
}

func (m *messageReader) Message() (*ipc.Message, error) {
	fd := m.peeked
	m.peeked = nil
	if fd == nil {
		var err error
		if fd, err = m.r.recv(); err != nil {
			if !errors.Is(err, io.EOF) {
				m.err = err
			}
			return nil, err
		}
	}
	switch {
	case hasMarker(fd.AppMetadata):
		m.err = fmt.Errorf("%w: arrowpack flight: arrowpack block where an IPC message was expected", codec.ErrCorrupt)
		return nil, m.err
	case len(fd.DataHeader) == 0:
		m.err = fmt.Errorf("%w: arrowpack flight: FlightData without an IPC header where an IPC message was expected", codec.ErrCorrupt)
		return nil, m.err
	}
	if len(fd.DataBody) > m.r.maxBlock {
		m.err = m.r.overLimit(fmt.Sprintf("an IPC message with a body of %d bytes", len(fd.DataBody)))
		return nil, m.err
	}
	m.meta = fd.AppMetadata
	return ipc.NewMessage(memory.NewBufferBytes(fd.DataHeader), memory.NewBufferBytes(fd.DataBody)), nil
}

func (m *messageReader) Retain()  {}
func (m *messageReader) Release() {}

// messageType names the type of the IPC message in fd's header.
func messageType(fd *aflight.FlightData) (name string) {
	defer func() {
		if recover() != nil {
			name = "unknown"
		}
	}()
	msg := ipc.NewMessage(memory.NewBufferBytes(fd.DataHeader), memory.NewBufferBytes(fd.DataBody))
	return msg.Type().String()
}

// cappedAllocator is the allocator of IPC batches: arrow-go's IPC reader
// allocates decompressed buffers from the sizes a message claims, so the
// bytes one batch allocates are capped, and going over the cap panics (which
// the Reader turns into an error) before any memory is taken.
type cappedAllocator struct {
	mem    memory.Allocator
	limit  int64
	used   atomic.Int64
	passed atomic.Bool // the limit was passed since the last reset
}

func (a *cappedAllocator) reset() { a.used.Store(0); a.passed.Store(false) }

// over reports whether an allocation since the last reset would have
// passed the limit.
func (a *cappedAllocator) over() bool { return a.passed.Load() }

func (a *cappedAllocator) take(n int) {
	if n > 0 && a.used.Add(int64(n)) > a.limit {
		a.passed.Store(true)
		panic(fmt.Sprintf("IPC batch needs more than %d bytes of buffers", a.limit))
	}
}

func (a *cappedAllocator) Allocate(size int) []byte {
	a.take(size)
	return a.mem.Allocate(size)
}

func (a *cappedAllocator) Reallocate(size int, b []byte) []byte {
	a.take(size - len(b))
	return a.mem.Reallocate(size, b)
}

func (a *cappedAllocator) Free(b []byte) { a.mem.Free(b) }

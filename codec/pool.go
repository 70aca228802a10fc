package codec

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// blockPool hands out 8-byte aligned buffers for blocks and takes them back
// when the last array decoded from one is released, so that a Reader (for the
// blocks it reads) and a Decoder (for the blocks it decompresses) reuse
// memory without a batch someone retained ever seeing its bytes change.
type blockPool struct {
	free sync.Pool // *[]byte: buffers to reuse
	// headers holds emptied *[]byte, so that giving a buffer back takes no
	// allocation (a bare []byte put into a sync.Pool is boxed anew each
	// time).
	headers sync.Pool
}

var _ memory.Allocator = (*blockPool)(nil)

// Allocate returns size bytes of 8-byte aligned memory.
func (p *blockPool) Allocate(size int) []byte {
	if h, ok := p.free.Get().(*[]byte); ok {
		b := *h
		*h = nil
		p.headers.Put(h)
		if cap(b) >= size {
			return b[:size]
		}
	}
	return unsafeBytes(make([]uint64, (size+7)/8))[:size]
}

// Reallocate is not used by the codec; it returns a new buffer.
func (p *blockPool) Reallocate(size int, b []byte) []byte {
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free takes b back for reuse.
func (p *blockPool) Free(b []byte) {
	h, ok := p.headers.Get().(*[]byte)
	if !ok {
		h = new([]byte)
	}
	*h = b[:cap(b)]
	p.free.Put(h)
}

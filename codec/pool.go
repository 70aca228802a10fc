package codec

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// blockPool hands out 8-byte aligned buffers for blocks and takes them back
// when the last array decoded from one is released, so that a Reader (for the
// blocks it reads) and a Decoder (for the blocks it decompresses) reuse
// memory without a batch someone retained ever seeing its bytes change.
type blockPool struct{ free sync.Pool }

var _ memory.Allocator = (*blockPool)(nil)

// Allocate returns size bytes of 8-byte aligned memory.
func (p *blockPool) Allocate(size int) []byte {
	if b, ok := p.free.Get().([]byte); ok && cap(b) >= size {
		return b[:size]
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
	p.free.Put(b[:cap(b)])
}

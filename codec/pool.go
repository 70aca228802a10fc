package codec

import (
	"math/bits"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// blockPool hands out 8-byte aligned buffers for blocks and takes them back
// when the last array decoded from one is released, so that a Reader (for the
// blocks it reads) and a Decoder (for the blocks it decompresses) reuse
// memory without a batch someone retained ever seeing its bytes change.
//
// It keeps up to poolKeep freed buffers per power-of-two size class. A
// sync.Pool, which it replaced, is emptied by every GC: under a steady
// stream of LZ4 lineitem blocks with a GC every 8 blocks it let 124-164 KB
// per decode be allocated again, against 27-34 KB here, and 660-970 KB
// against 108-126 KB with a GC every block (BenchmarkDecodePool). What it
// holds is bounded: poolKeep buffers of at most twice the block size for
// each size class in use.
type blockPool struct {
	mu   sync.Mutex
	free [64][][]byte // by class: cap is 1<<class bytes
}

// poolKeep is how many freed buffers a blockPool keeps per size class.
const poolKeep = 4

var _ memory.Allocator = (*blockPool)(nil)

// sizeClass returns the power-of-two class that holds size bytes.
func sizeClass(size int) int { return bits.Len(uint(max(size, 8) - 1)) }

// Allocate returns size bytes of 8-byte aligned memory.
func (p *blockPool) Allocate(size int) []byte {
	c := sizeClass(size)
	p.mu.Lock()
	if l := p.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		p.free[c] = l[:len(l)-1]
		p.mu.Unlock()
		return b[:size]
	}
	p.mu.Unlock()
	return unsafeBytes(make([]uint64, (1<<c)/8))[:size]
}

// Reallocate is not used by the codec; it returns a new buffer.
func (p *blockPool) Reallocate(size int, b []byte) []byte {
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free keeps b for reuse if its size class has room.
func (p *blockPool) Free(b []byte) {
	c := sizeClass(cap(b))
	if cap(b) != 1<<c {
		return // not one of this pool's
	}
	p.mu.Lock()
	if len(p.free[c]) < poolKeep {
		p.free[c] = append(p.free[c], b[:cap(b)])
	}
	p.mu.Unlock()
}

// freeList keeps values for reuse: up to two per P, the most that are
// likely in use at once. Unlike a sync.Pool, which every garbage
// collection empties, it keeps them: an LZ4 compressor is 136 KB to
// allocate and zero again, and the state and raw block room of an
// Encoder of many small batches a megabyte or more.
type freeList[T any] struct {
	mu    sync.Mutex
	items []*T
	max   int
	make  func() *T // makes a value when none is kept
}

func newFreeList[T any](make func() *T) *freeList[T] {
	return &freeList[T]{max: 2 * runtime.GOMAXPROCS(0), make: make}
}

// get returns a kept value, or a new one.
func (f *freeList[T]) get() *T {
	f.mu.Lock()
	if n := len(f.items); n > 0 {
		x := f.items[n-1]
		f.items = f.items[:n-1]
		f.mu.Unlock()
		return x
	}
	f.mu.Unlock()
	return f.make()
}

// put keeps x for a later get, unless enough are kept.
func (f *freeList[T]) put(x *T) {
	f.mu.Lock()
	if len(f.items) < f.max {
		f.items = append(f.items, x)
	}
	f.mu.Unlock()
}

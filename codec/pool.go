package codec

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// blockPool hands out 8-byte aligned buffers for blocks and takes them back
// when the last array decoded from one is released, so that a Reader (for the
// blocks it reads) and a Decoder (for the blocks it decompresses) reuse
// memory without a batch someone retained ever seeing its bytes change.
//
// A buffer's capacity is its request rounded up to a size class, 8 classes
// per power of two, so no buffer is more than 1/8 larger than asked (a
// power-of-two pool made a raw body of 256 MiB + 40 bytes take 512 MiB),
// and a kept buffer serves only a request it is at most 1/8 larger than.
// The pool keeps at most poolKeep freed buffers in all, dropping the least
// recently freed, so an idle Decoder or Reader holds at most poolKeep
// blocks' worth. A sync.Pool, which it replaced, is emptied by every GC:
// under a steady stream of LZ4 lineitem blocks with a GC every 8 blocks it
// let 124-164 KB per decode be allocated again, against 27-34 KB here
// (BenchmarkDecodePool).
type blockPool struct {
	mu   sync.Mutex
	free [][]byte // kept buffers, the least recently freed first
}

// poolKeep is how many freed buffers a blockPool keeps.
const poolKeep = 4

var _ memory.Allocator = (*blockPool)(nil)

// classSize returns the capacity of the buffers that hold size bytes: size
// rounded up to a multiple of 8 and, above 128 bytes, to one of 8 classes
// between consecutive powers of two, at most 1/8 past size. A size whose
// class would overflow an int is its own class.
func classSize(size int) int {
	if size <= 128 {
		return pad8(max(size, 8))
	}
	e := bits.Len(uint(size - 1)) // 1<<(e-1) < size <= 1<<e
	step := uint(1) << (e - 4)    // an eighth of 1<<(e-1)
	c := (uint(size) + step - 1) &^ (step - 1)
	if c > math.MaxInt&^7 {
		return pad8(size)
	}
	return int(c)
}

// Allocate returns size bytes of 8-byte aligned memory.
func (p *blockPool) Allocate(size int) []byte {
	c := classSize(size)
	fits := max(c, size+size/8) // the most a kept buffer may be
	p.mu.Lock()
	best := -1
	for i, b := range p.free {
		if cap(b) >= size && cap(b) <= fits && (best < 0 || cap(b) < cap(p.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := p.free[best]
		p.free = slices.Delete(p.free, best, best+1)
		p.mu.Unlock()
		return b[:size]
	}
	p.mu.Unlock()
	return unsafeBytes(make([]uint64, c/8))[:size]
}

// Reallocate is not used by the codec; it returns a new buffer.
func (p *blockPool) Reallocate(size int, b []byte) []byte {
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free keeps b for reuse, dropping the least recently freed buffer if the
// pool holds poolKeep already.
func (p *blockPool) Free(b []byte) {
	if cap(b) == 0 || cap(b) != classSize(cap(b)) {
		return // not one of this pool's
	}
	p.mu.Lock()
	if len(p.free) == poolKeep {
		p.free[0] = nil
		p.free = append(p.free[:0], p.free[1:]...)
	}
	p.free = append(p.free, b[:cap(b)])
	p.mu.Unlock()
}

// kept returns how many buffers p keeps and their bytes.
func (p *blockPool) kept() (n, bytes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.free {
		bytes += cap(b)
	}
	return len(p.free), bytes
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

package flight

import (
	"math/bits"
	"sync"
	"unsafe"
)

// blockPool keeps the 8-byte aligned buffers that blocks are encoded into
// before they are sent and gathered into when they are received, so that a
// stream of blocks reuses a few buffers instead of allocating (and faulting
// in) a new one per block. Buffers are kept by size class, a power of two:
// a buffer of capacity c serves any request of at most the class below c.
type blockPool struct {
	classes [48]sync.Pool // class k holds buffers of capacity >= 1<<k
}

// minPooled is the smallest buffer worth pooling; smaller requests are
// allocated (their cost is in the noise next to a block's).
const minPooled = 4 << 10

var blocks blockPool

// alignedBytes returns a byte slice of length n and capacity at least
// capBytes whose first byte is 8-byte aligned.
func alignedBytes(n, capBytes int) []byte {
	words := make([]uint64, (capBytes+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:n]
}

// get returns an aligned buffer of length n from the pool, or a new one.
func (p *blockPool) get(n int) []byte {
	if n < minPooled {
		return alignedBytes(n, n)
	}
	k := bits.Len(uint(n - 1))                       // 1<<k >= n
	if k >= len(p.classes) || k >= bits.UintSize-2 { // 1<<k must fit an int
		return alignedBytes(n, n)
	}
	if v := p.classes[k].Get(); v != nil {
		b := *(v.(*[]byte))
		return b[:n]
	}
	return alignedBytes(n, 1<<k)
}

// put gives b back to the pool. The caller must not use b afterwards.
func (p *blockPool) put(b []byte) {
	c := cap(b)
	if c < minPooled || uintptr(unsafe.Pointer(unsafe.SliceData(b[:1])))%8 != 0 {
		return
	}
	k := bits.Len(uint(c)) - 1 // 1<<k <= c
	if k >= len(p.classes) {
		return
	}
	b = b[:0]
	p.classes[k].Put(&b)
}

// poolAllocator is the arrow memory.Allocator of buffers from blocks: a
// memory.Buffer made with it gives its bytes back to the pool when its last
// reference is released (the last array of a batch that aliases it).
type poolAllocator struct{}

func (poolAllocator) Allocate(n int) []byte { return blocks.get(n) }

func (poolAllocator) Reallocate(n int, b []byte) []byte {
	if n <= cap(b) {
		return b[:n]
	}
	nb := blocks.get(n)
	copy(nb, b)
	blocks.put(b)
	return nb
}

func (poolAllocator) Free(b []byte) {
	blocks.put(b)
	liveBlocks.Add(-1)
}

// keepAllocator is the allocator of a buffer whose bytes must not be reused
// when it is released (the garbage collector takes them).
type keepAllocator struct{}

func (keepAllocator) Allocate(n int) []byte { return alignedBytes(n, n) }
func (keepAllocator) Reallocate(n int, b []byte) []byte {
	return append(b, make([]byte, max(n-len(b), 0))...)[:n]
}
func (keepAllocator) Free([]byte) {}

// wirePool is the gRPC buffer pool (mem.BufferPool) of GRPCServerOptions and
// GRPCDialOptions: the size classes of blocks, without the zeroing of gRPC's
// default pool, which cost a tenth of a client's CPU receiving blocks. gRPC
// fills every buffer it takes from its pool before reading it (a frame is
// read whole into its buffer, a message is marshalled or copied whole), as
// the "dirty" pools gRPC keeps for itself rely on.
type wirePool struct{}

func (wirePool) Get(n int) *[]byte {
	b := blocks.get(n)
	return &b
}

func (wirePool) Put(b *[]byte) { blocks.put(*b) }

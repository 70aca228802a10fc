package codec

import (
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
)

// The memory side of decoding: where the buffers of a decoded batch come
// from (the block itself, slices of a parent buffer, or copies from an
// allocator), the slab and pointer lists that keep a zero-copy decode to a
// few allocations, and the scratch room for undoing transposition.
// decode_node.go holds the per-type reading and checking.

// decodeState walks one block's body.
type decodeState struct {
	r      reader
	mem    memory.Allocator // nil: buffers alias the block
	parent *memory.Buffer   // if not nil, the buffer r.buf is the bytes of
	// slab holds Buffer values for the buffers of a zero-copy decode, so
	// that they take one allocation rather than one each.
	slab []memory.Buffer
	// ptrs holds the buffer lists of every node, for the same reason.
	ptrs []*memory.Buffer
	// scratch lends room to undo flagTranspose; tmp is what was taken
	// from it, given back by done.
	scratch *sync.Pool
	tmp     *[]byte
}

// done gives back what the decode borrowed.
func (s *decodeState) done() {
	if s.tmp != nil {
		s.scratch.Put(s.tmp)
		s.tmp = nil
	}
}

// untranspose undoes TransposeBytes on b, values of width bytes, in place
// through scratch room, if transpose is set and the block has flagTranspose.
func (s *decodeState) untranspose(b []byte, width int, transpose bool) {
	if !transpose || s.r.xf&flagTranspose == 0 {
		return
	}
	if s.tmp == nil {
		s.tmp, _ = s.scratch.Get().(*[]byte)
		if s.tmp == nil {
			s.tmp = new([]byte)
		}
	}
	if cap(*s.tmp) < len(b) {
		*s.tmp = make([]byte, len(b))
	}
	t := (*s.tmp)[:len(b)]
	copy(t, b)
	arrowpack.UntransposeBytes(b, t, width)
}

// bufList returns an empty list with room for n buffers, cut from s.ptrs
// while it lasts.
func (s *decodeState) bufList(n int) []*memory.Buffer {
	if len(s.ptrs) < n {
		return make([]*memory.Buffer, 0, n)
	}
	l := s.ptrs[:0:n]
	s.ptrs = s.ptrs[n:]
	return l
}

// parts holds what one node has built so far, so that it can be released
// if a later check fails.
type parts struct {
	bufs     []*memory.Buffer
	children []arrow.ArrayData
	dict     *array.Data
}

// validity returns the node's validity bitmap, nil when every row is valid.
func (pt *parts) validity() []byte {
	if pt.bufs[0] == nil {
		return nil
	}
	return pt.bufs[0].Bytes()
}

func (pt *parts) release() {
	for _, b := range pt.bufs {
		if b != nil {
			b.Release()
		}
	}
	for _, c := range pt.children {
		c.Release()
	}
	if pt.dict != nil {
		pt.dict.Release()
	}
}

// buf turns bytes of the block into a buffer of the decoded batch: the bytes
// themselves, or a copy from the allocator.
func (s *decodeState) buf(b []byte) *memory.Buffer {
	if len(b) == 0 {
		return memory.NewBufferBytes(nil)
	}
	if s.mem == nil {
		if s.parent != nil {
			off := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(s.r.buf))))
			return memory.SliceBuffer(s.parent, off, len(b))
		}
		if len(s.slab) > 0 {
			m := &s.slab[0]
			s.slab = s.slab[1:]
			m.Reset(b) // a zero Buffer: no allocator, no reference count
			return m
		}
		return memory.NewBufferBytes(b)
	}
	m := memory.NewResizableBuffer(s.mem)
	m.Resize(len(b))
	copy(m.Bytes(), b)
	return m
}

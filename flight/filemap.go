package flight

import "sync/atomic"

// A fileMap is a stored stream file mapped into memory read-only, so that
// DoGet sends its blocks by reference, without reading them into buffers.
// It is reference counted: the DoGet that mapped it holds one reference,
// and each block of it gRPC or a decoded batch still holds has one (a
// sendBlock of the mapping); the last release unmaps it. Should gRPC drop
// a block without giving it back, the sendBlock's cleanup releases its
// reference once the garbage collector finds it unreachable.
//
// The Server never changes a stored file in place (a put replaces it by
// renaming a new file over it, which leaves the mapped one as it was), but
// a file something else truncates while it is mapped faults the process
// on the next read of the bytes it lost: a store whose files may be cut
// short under the server should be served with ServerOptions.NoMap.
type fileMap struct {
	data []byte
	refs atomic.Int32
}

// liveMaps counts the mappings not yet unmapped: tests check that it comes
// back to zero.
var liveMaps atomic.Int64

// newFileMap returns a fileMap of data, mapped by mapFile, with one
// reference.
func newFileMap(data []byte) *fileMap {
	m := &fileMap{data: data}
	m.refs.Store(1)
	liveMaps.Add(1)
	return m
}

func (m *fileMap) retain() { m.refs.Add(1) }

func (m *fileMap) release() {
	if m.refs.Add(-1) == 0 {
		unmapFile(m.data)
		m.data = nil
		liveMaps.Add(-1)
	}
}

// block returns a sendBlock of b, a slice of the mapping, that holds a
// reference to the mapping until it is released.
func (m *fileMap) block(b []byte) *sendBlock {
	m.retain()
	return newSendBlock(b[:len(b):len(b)], m)
}

//go:build unix

package flight

import (
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// maxMapped is the largest file mapped: on 32-bit platforms a quarter of
// a GiB, so that a few large streams do not exhaust the address space
// (larger ones are read instead); on 64-bit ones, any.
const maxMapped int64 = 1<<28 + math.MaxInt>>62*(1<<62)

// mapFile maps the file f of size bytes read-only, or returns nil when it
// cannot (an empty file, one too large for the address space, a file
// system that does not map): the caller then reads the file.
func mapFile(f *os.File, size int64) *fileMap {
	if size <= 0 || size > maxMapped {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var data []byte
	var merr error
	if err := rc.Control(func(fd uintptr) {
		data, merr = unix.Mmap(int(fd), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	}); err != nil || merr != nil {
		return nil
	}
	// Blocks are read once, front to back.
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	return newFileMap(data)
}

// unmapFile unmaps what mapFile mapped.
func unmapFile(data []byte) { _ = unix.Munmap(data) }

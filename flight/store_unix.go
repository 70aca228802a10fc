//go:build unix

package flight

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a symbolic link
// in its last element (O_NOFOLLOW) and without waiting for a writer should
// it be a FIFO (O_NONBLOCK, which changes nothing for a regular file).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// isSymlinkErr reports whether openNoFollow failed because path is a
// symbolic link.
func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

//go:build !unix

package flight

import (
	"errors"
	"fmt"
	"os"
)

// errSymlink is what openNoFollow returns for a symbolic link.
var errSymlink = errors.New("is a symbolic link")

// openNoFollow opens path for reading unless it is a symbolic link: where
// there is no O_NOFOLLOW, it checks with Lstat and then that the file it
// opened is the one it checked.
func openNoFollow(path string) (*os.File, error) {
	lst, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if lst.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s %w", path, errSymlink)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !os.SameFile(lst, st) {
		f.Close()
		return nil, fmt.Errorf("%s %w", path, errSymlink)
	}
	return f, nil
}

// isSymlinkErr reports whether openNoFollow failed because path is a
// symbolic link.
func isSymlinkErr(err error) bool { return errors.Is(err, errSymlink) }

//go:build !linux && !darwin

package arrowpack

import "errors"

// mapGuarded needs mmap and mprotect; the guard-page tests skip without them.
func mapGuarded(size int) (data []byte, unmap func() error, err error) {
	return nil, nil, errors.New("guard pages are only set up on linux and darwin")
}

//go:build linux || darwin

package arrowpack

import (
	"fmt"
	"os"
	"syscall"
)

// mapGuarded maps at least size bytes of read-write memory with an
// inaccessible page right before it and another right after it, so that a
// kernel reading or writing one byte outside its slices faults. data is
// page-aligned and a whole number of pages long; unmap releases the mapping.
func mapGuarded(size int) (data []byte, unmap func() error, err error) {
	ps := os.Getpagesize()
	np := max((size+ps-1)/ps, 1)
	mem, err := syscall.Mmap(-1, 0, (np+2)*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap: %w", err)
	}
	unmap = func() error { return syscall.Munmap(mem) }
	if err := syscall.Mprotect(mem[:ps], syscall.PROT_NONE); err != nil {
		unmap()
		return nil, nil, fmt.Errorf("mprotect: %w", err)
	}
	if err := syscall.Mprotect(mem[(np+1)*ps:], syscall.PROT_NONE); err != nil {
		unmap()
		return nil, nil, fmt.Errorf("mprotect: %w", err)
	}
	return mem[ps : (np+1)*ps : (np+1)*ps], unmap, nil
}

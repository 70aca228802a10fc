//go:build !unix

package flight

import "os"

// mapFile returns nil: where there is no mmap the Server reads its files.
func mapFile(*os.File, int64) *fileMap { return nil }

// unmapFile is never called: nothing is mapped.
func unmapFile([]byte) {}

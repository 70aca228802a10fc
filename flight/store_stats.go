package flight

import (
	"os"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// streamStats is what a Server knows of one stored stream file: its schema
// and rows, found by reading the whole file once (which also checks every
// block), or given by the DoPut that wrote it.
type streamStats struct {
	file   os.FileInfo // the file they describe (size, mtime, identity)
	schema *arrow.Schema
	rows   int64
	err    error // the file is damaged: the codec's error, for the log
}

// statsCache keeps the stats of the stored streams, keyed by stream key,
// so that ListFlights and GetFlightInfo read a file once, not at every
// call. An entry holds while the file is the same one with the same size
// and modification time; a replaced file (a new inode, written whole by
// durable's rename) is read again.
type statsCache struct {
	mu sync.Mutex
	m  map[string]streamStats
}

// get returns the stats of key if they describe the file st.
func (c *statsCache) get(key string, st os.FileInfo) (streamStats, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || !sameFile(e.file, st) {
		return streamStats{}, false
	}
	return e, true
}

// put remembers the stats of key.
func (c *statsCache) put(key string, e streamStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]streamStats)
	}
	c.m[key] = e
}

// forget drops the stats of key.
func (c *statsCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}

// sameFile reports whether a and b describe one file, unchanged.
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

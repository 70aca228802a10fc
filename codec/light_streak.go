package codec

import "sync/atomic"

// lz4Streak is how a Light encoder spares the planning of blocks that LZ4
// is likely to store in fewer bytes: when LZ4's block won over Light's
// (lz4MayWin), the next blocks are written as the LZ4 encoder writes them,
// without planning Light's sections, for 1, 2, 4, ... up to lz4MaxBackoff
// blocks while LZ4 keeps winning, and Light is tried again after each
// wait. Such blocks are LZ4's own, so they are never larger than LZ4's; a
// batch whose Light block would have been smaller is found at the next try.
// Blocks of a table mostly look alike (alltypes_tiny_pages: every block of
// equal integer columns went to LZ4 after Light had planned it in full).
// The counters are atomic as an Encoder is shared by goroutines; a race
// only moves a try by a block.
type lz4Streak struct {
	wait    atomic.Int32 // blocks still to write as LZ4's
	backoff atomic.Int32 // the last wait, 0 after Light won
}

// lz4MaxBackoff is the most blocks a Light encoder writes as LZ4's
// between two tries of Light.
const lz4MaxBackoff = 16

// skip reports whether this block is to be written as LZ4's, counting it.
func (s *lz4Streak) skip() bool {
	for {
		w := s.wait.Load()
		if w <= 0 {
			return false
		}
		if s.wait.CompareAndSwap(w, w-1) {
			return true
		}
	}
}

// lost notes that LZ4's block won over Light's: the wait doubles.
func (s *lz4Streak) lost() {
	b := min(max(2*s.backoff.Load(), 1), lz4MaxBackoff)
	s.backoff.Store(b)
	s.wait.Store(b)
}

// won notes that Light's block won: the next LZ4 win waits one block. It
// writes only on a change, as goroutines sharing an Encoder call it for
// almost every block.
func (s *lz4Streak) won() {
	if s.backoff.Load() != 0 {
		s.backoff.Store(0)
	}
}

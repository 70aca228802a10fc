package codec

import "sync/atomic"

// A streak is how a Light encoder spares work that keeps losing: after a
// loss the next 1, 2, 4, ... up to maxBackoff tries are skipped, and the
// work is tried again after each wait. Blocks of a table mostly look
// alike, so what lost on one block mostly loses on the next; what would
// have won is found at the next try. The counters are atomic as an
// Encoder is shared by goroutines; a race only moves a try by a block.
//
// Two streaks are kept. The encoder's spares the planning of blocks that
// LZ4 is likely to store in fewer bytes: when LZ4's block won over
// Light's (lz4MayWin), the next blocks are written as the LZ4 encoder
// writes them, without planning Light's sections; such blocks are LZ4's
// own, so they are never larger than LZ4's (alltypes_tiny_pages: every
// block of equal integer columns went to LZ4 after Light had planned it
// in full). Each string column's (columnState.strTry) spares trying its
// string dictionary and front coding (strDictAt) where neither was taken:
// its pieces then get bit-packed lengths and FSST or LZ4, each held to
// LZ4 as ever (alltypes_tiny_pages' dates, in runs of ten, built a
// dictionary of 730 strings and front-coded them on every block, for a
// fifth of the encode time, only for LZ4 to take fewer bytes).
type streak struct {
	wait    atomic.Int32 // tries still to skip
	backoff atomic.Int32 // the last wait, 0 after a win
}

// maxBackoff is the most tries a streak skips between two tries.
const maxBackoff = 16

// skip reports whether this try is to be skipped, counting it.
func (s *streak) skip() bool {
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

// lost notes a loss: the wait doubles.
func (s *streak) lost() {
	b := min(max(2*s.backoff.Load(), 1), maxBackoff)
	s.backoff.Store(b)
	s.wait.Store(b)
}

// won notes a win: the next loss waits one try. It writes only on a
// change, as goroutines sharing an Encoder call it for almost every block.
func (s *streak) won() {
	if s.backoff.Load() != 0 {
		s.backoff.Store(0)
	}
}

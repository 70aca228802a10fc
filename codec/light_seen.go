package codec

import (
	"math"
	"sync/atomic"
)

// What LZ4 took on a column's last piece is the surest estimate of what
// it takes on the next: blocks of a table mostly look alike, and the
// estimate FORMAT.md's rule otherwise falls back on, (0.55 - m) r, is
// made to hold on any piece, so on text it is about half of what LZ4
// takes and every text section was compressed twice (docs/light.md, "LZ4's
// trials held to the column's last one").
//
// So after a trial the column keeps, for each kind of its buffers, the
// share of the raw bytes LZ4 took (or at least took, if the trial
// stopped) and the share the estimate gave; its next pieces are held to
// seenMargin of that share, less what their own estimate fell by (a piece
// whose sample matches more than the last one's may hold repeats LZ4
// finds), for at most seenRuns pieces before the next trial: a column that
// changes is measured again within a few blocks, and one whose estimate
// falls is measured at once where the rule's own estimate holds it.

// seenMargin is the share of LZ4's last bytes a piece is held to, and
// seenRuns the most pieces of a column held so in a row.
const (
	seenMargin = 0.9
	seenRuns   = 7
)

// lz4Seen is what LZ4 took on a column's last piece of one kind, held as
// it was compared: as it is (plain) and transposed (trans).
type lz4Seen struct {
	plain, trans seenShare
}

// seenShare is one trial's record: the shares of the raw bytes LZ4 took
// and the estimate gave, as two float32s (0: none yet), and how many
// pieces may still be held to it.
type seenShare struct {
	v    atomic.Uint64
	left atomic.Int32
}

// note records a trial of n raw bytes that LZ4 took (at least) took bytes
// of, where the rule's estimate was least.
func (s *seenShare) note(took, least, n int) {
	if n <= 0 {
		return
	}
	t := math.Float32bits(float32(took) / float32(n))
	l := math.Float32bits(float32(max(least, 0)) / float32(n))
	s.v.Store(uint64(t)<<32 | uint64(l))
	s.left.Store(seenRuns)
}

// held returns the bytes LZ4 is taken to store a piece of n raw bytes in,
// whose estimate is least (negative: no trial of this kind; 0: none), from
// the column's last piece: the share LZ4 took there less the fall of the
// estimate since, if the record may still be used and seenMargin of that
// (heldBound) is more than least, counting the use; else 0. No estimate
// counts as a fall to 0: a piece too small to sample may repeat anything.
func (s *seenShare) held(least, n int) int {
	if least < 0 || s.left.Load() <= 0 {
		return 0
	}
	v := s.v.Load()
	if v == 0 {
		return 0
	}
	took := float64(math.Float32frombits(uint32(v >> 32)))
	was := float64(math.Float32frombits(uint32(v)))
	like := int((took - max(0, was-float64(least)/float64(n))) * float64(n))
	if heldBound(like) <= least {
		return 0
	}
	s.left.Add(-1)
	return like
}

// heldBound is the most bytes a section held to a record (held) that
// takes LZ4 like bytes may take without a trial.
func heldBound(like int) int {
	return int(seenMargin * float64(like))
}

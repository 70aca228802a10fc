package codec

import "testing"

// TestSeenShare checks a column's record of LZ4's last trial: none holds
// nothing; one holds a piece to seenMargin of the share LZ4 took, less
// the fall of the piece's estimate, for seenRuns pieces, and never below
// the estimate; a trial renews it.
func TestSeenShare(t *testing.T) {
	var s seenShare
	if got := s.widen(100, 1000); got != 100 {
		t.Fatalf("no record: held to %d, want the estimate, 100", got)
	}
	s.note(800, 400, 1000) // LZ4 took 0.8, the estimate was 0.4
	for _, c := range []struct{ least, n, want int }{
		{-1, 1000, -1},   // no trial of this kind
		{400, 1000, 720}, // 0.9 * 0.8
		{800, 2000, 1440},
		{300, 1000, 630}, // the estimate fell by 0.1: 0.9 * 0.7
		{900, 1000, 900}, // the estimate is more
		{0, 500, 180},    // no estimate (a small piece) counts as a fall to 0: 0.9 * 0.4
	} {
		if got := s.widen(c.least, c.n); got != c.want {
			t.Errorf("widen(%d, %d) = %d, want %d", c.least, c.n, got, c.want)
		}
	}
	// Four of the seenRuns uses went above (the -1 and 900 did not).
	for i := 4; i < seenRuns; i++ {
		if got := s.widen(400, 1000); got != 720 {
			t.Fatalf("use %d: held to %d, want 720", i+1, got)
		}
	}
	if got := s.widen(400, 1000); got != 400 {
		t.Fatalf("past %d uses: held to %d, want the estimate, 400", seenRuns, got)
	}
	s.note(500, 0, 1000)
	if got := s.widen(0, 1000); got != 450 {
		t.Fatalf("after a new trial: held to %d, want 450", got)
	}
}

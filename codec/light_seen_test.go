package codec

import "testing"

// TestSeenShare checks a column's record of LZ4's last trial: none holds
// nothing; one takes LZ4 to store a piece in the share it took, less the
// fall of the piece's estimate, and holds the piece to seenMargin of that
// when it is more than the estimate, for seenRuns pieces; a trial renews
// it.
func TestSeenShare(t *testing.T) {
	var s seenShare
	if got := s.held(100, 1000); got != 0 {
		t.Fatalf("no record: LZ4 taken to store %d bytes, want none (0)", got)
	}
	s.note(800, 400, 1000) // LZ4 took 0.8, the estimate was 0.4
	for _, c := range []struct{ least, n, like, bound int }{
		{-1, 1000, 0, 0},      // no trial of this kind
		{400, 1000, 800, 720}, // 0.8
		{800, 2000, 1600, 1440},
		{300, 1000, 700, 630}, // the estimate fell by 0.1: 0.7
		{900, 1000, 0, 0},     // the estimate is more than 0.9 of 0.8
		{0, 500, 200, 180},    // no estimate (a small piece) counts as a fall to 0: 0.4
	} {
		got := s.held(c.least, c.n)
		if got != c.like || got > 0 && heldBound(got) != c.bound {
			t.Errorf("held(%d, %d) = %d (bound %d), want %d (bound %d)", c.least, c.n, got, heldBound(got), c.like, c.bound)
		}
	}
	// Four of the seenRuns uses held (the -1 and 900 did not).
	for i := 4; i < seenRuns; i++ {
		if got := s.held(400, 1000); got != 800 {
			t.Fatalf("use %d: LZ4 taken to store %d bytes, want 800", i+1, got)
		}
	}
	if got := s.held(400, 1000); got != 0 {
		t.Fatalf("past %d uses: LZ4 taken to store %d bytes, want none (0)", seenRuns, got)
	}
	s.note(500, 0, 1000)
	if got := s.held(0, 1000); got != 500 {
		t.Fatalf("after a new trial: LZ4 taken to store %d bytes, want 500", got)
	}
}

package flight

import (
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A budget bounds the bytes of the blocks a Server holds in flight across
// all its calls: what a DoPut has received of a block and what decoding it
// needs, what a DoGet has read from a stored stream and decoded. A call
// takes its share before it allocates where it can (a DoPut knows a
// block's sizes from its marker and header before decoding it) and gives
// it back when the block is done. A take that would pass the limit is
// refused, not waited for: the call ends with codes.ResourceExhausted and
// the client may retry.
type budget struct {
	mu    sync.Mutex
	used  int64
	limit int64
}

// take adds n bytes to the budget's use, or returns a ResourceExhausted
// status naming what asked for them when that would pass the limit.
func (b *budget) take(n int64, what string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.limit-b.used {
		return status.Errorf(codes.ResourceExhausted, "arrowpack flight: %s needs %d bytes, the server has %d of its -max-memory %d free", what, n, b.limit-b.used, b.limit)
	}
	b.used += n
	return nil
}

// give returns n bytes taken before.
func (b *budget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// inUse returns the bytes taken now.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// A share is one call's part of a budget: what it holds for the block it
// is working on.
type share struct {
	b    *budget
	held int64
}

// take adds n bytes to the share.
func (s *share) take(n int64, what string) error {
	if n <= 0 {
		return nil
	}
	if err := s.b.take(n, what); err != nil {
		return err
	}
	s.held += n
	return nil
}

// release gives back everything the share holds.
func (s *share) release() {
	if s.held != 0 {
		s.b.give(s.held)
		s.held = 0
	}
}

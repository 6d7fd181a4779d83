package accounting

import (
	"context"
	"sync/atomic"
	"time"
)

// CountBoardComputations has s count its computations of the
// leaderboards from now on, and returns the count.
func CountBoardComputations(s *PublicStore) func() int64 {
	var n atomic.Int64
	s.boards.mu.Lock()
	defer s.boards.mu.Unlock()
	s.boards.compute = func(ctx context.Context) (Boards, error) {
		n.Add(1)
		return s.computeBoards(ctx)
	}
	return n.Load
}

// AgeBoards makes s's copy of the leaderboards older than boardsTTL, as if
// that time had passed.
func AgeBoards(s *PublicStore) {
	s.boards.mu.Lock()
	defer s.boards.mu.Unlock()
	s.boards.at = s.boards.at.Add(-boardsTTL - time.Second)
}

// AwaitBoards waits for s's computation of the leaderboards under way, if
// any.
func AwaitBoards(ctx context.Context, s *PublicStore) error {
	s.boards.mu.Lock()
	done := s.boards.done
	s.boards.mu.Unlock()
	if done == nil {
		return nil
	}
	_, err := s.awaitBoards(ctx, done)
	return err
}

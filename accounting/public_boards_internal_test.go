package accounting

import (
	"context"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/testdb"
)

// A copy of the leaderboards past boardsTTL is still shown, at once, while
// a computation in the background replaces it.
func TestStaleBoardsShownWhileRefreshed(t *testing.T) {
	t.Parallel()
	s := NewStore(testdb.New(t), Options{})
	old := Boards{Through: time.Date(2001, 2, 3, 0, 0, 0, 0, time.UTC)}
	s.Public.boards.mu.Lock()
	s.Public.boards.boards, s.Public.boards.at = old, time.Now().Add(-2*boardsTTL)
	s.Public.boards.mu.Unlock()
	b, err := s.Public.Leaderboards(context.Background())
	if err != nil || !b.Through.Equal(old.Through) {
		t.Fatalf("a stale copy: %+v, %v; want it shown as it is", b, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		s.Public.boards.mu.Lock()
		at, through := s.Public.boards.at, s.Public.boards.boards.Through
		s.Public.boards.mu.Unlock()
		if time.Since(at) < boardsTTL {
			if !through.IsZero() {
				t.Errorf("refreshed copy as of %v; this database has no rollup yet", through)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the stale copy was not replaced within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

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

// The leaderboards' computations run under the instance's work: when it
// ends, the computation under way is cancelled, RunBoards returns only
// after it has ended, and no visitor starts another.
func TestBoardsEndWithTheInstance(t *testing.T) {
	t.Parallel()
	s := NewStore(testdb.New(t), Options{})
	entered := make(chan struct{})
	var sawCancel bool
	s.Public.boards.compute = func(ctx context.Context) (Boards, error) {
		close(entered)
		<-ctx.Done() // a computation that ends only when told to
		sawCancel = true
		return Boards{}, ctx.Err()
	}
	ctx, stop := context.WithCancel(t.Context())
	returned := make(chan struct{})
	go func() { s.Public.RunBoards(ctx); close(returned) }()
	select {
	case <-entered:
	case <-t.Context().Done():
		t.Fatal("RunBoards started no computation")
	}
	stop()
	select {
	case <-returned:
	case <-t.Context().Done():
		t.Fatal("RunBoards did not return after its context ended")
	}
	if !sawCancel {
		t.Error("RunBoards returned before the computation under way had ended")
	}
	s.Public.forgetBoards() // a listing changed after the instance stopped
	s.Public.boards.mu.Lock()
	started := s.Public.boards.done != nil
	s.Public.boards.mu.Unlock()
	if started {
		t.Error("a computation started after the instance's work ended")
	}
}

package accounting

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// boardsTTL is how long an instance shows the leaderboards it computed
// before it looks whether what they are computed from changed (boardsKey),
// and computes them again if it did. A computation reads every rollup row
// of the listed volunteers (about a microsecond each: 40 s of PostgreSQL's
// time at the 50 M-row history with 100,000 volunteers listed), and the
// boards need not follow each rollup round.
const boardsTTL = 5 * time.Minute

// boardsRefresh bounds one computation of the leaderboards.
const boardsRefresh = 2 * time.Minute

// boardsBatch is how many listed volunteers one statement reads, so that
// each stays far within a serving session's statement_timeout.
const boardsBatch = 500

// boardsWait is how long a visitor waits for an instance's first
// computation of the leaderboards (after a start) before being told that
// they are being computed.
const boardsWait = 3 * time.Second

// boardsCache is an instance's copy of the leaderboards, computed in the
// background, one computation at a time, never cut short by a visitor's
// request and never waited for longer than boardsWait. Past boardsTTL, or
// after a listing changed on this instance, the copy is still shown while
// a computation replaces it (or, past boardsTTL, while the instance finds
// that nothing they are computed from changed, and keeps it); every
// answer leaves out the handles that are no longer listed (stillListed),
// on any instance, at once.
type boardsCache struct {
	mu     sync.Mutex
	boards Boards
	at     time.Time     // when the copy's computation (or the finding that it holds) began; zero: no copy
	gen    int           // counts the computations asked for; one begun before the last ask is done again
	key    boardsKey     // what the copy was computed from
	keyGen int           // gen when the copy was computed
	done   chan struct{} // closed when the computation under way ends; nil when none is
	err    error         // the last computation's failure
	// bg is the context of the instance's work (RunBoards), under which
	// every computation runs; nil outside a server (tools, tests): then
	// a computation has only its own time limit.
	bg context.Context
	// running counts the computations under way, for RunBoards to wait.
	running sync.WaitGroup
	// compute is the computation; nil: computeBoards (tests replace it).
	compute func(context.Context) (Boards, error)
}

// Leaderboards returns the opt-in leaderboards: the volunteers whose
// profile is public and who ticked "list me", by confirmed credit over the
// last 30 days and all time, overall and per science area, handles only.
// They are computed from the rollups, at most once a boardsTTL per
// instance (boardsCache). Without a copy it waits for the computation at
// most boardsWait, and answers ErrComputing after that.
func (s *PublicStore) Leaderboards(ctx context.Context) (Boards, error) {
	c := &s.boards
	c.mu.Lock()
	b, at := c.boards, c.at
	if at.IsZero() || time.Since(at) >= boardsTTL {
		s.startBoards()
	}
	done := c.done
	c.mu.Unlock()
	if at.IsZero() {
		wait, cancel := context.WithTimeout(ctx, boardsWait)
		defer cancel()
		var err error
		if b, err = s.awaitBoards(wait, done); err != nil {
			if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				err = ErrComputing
			}
			return Boards{}, op("leaderboards", err)
		}
	}
	b, err := s.stillListed(ctx, b)
	return b, op("leaderboards", err)
}

// RefreshBoards computes the leaderboards now and waits for them: a
// computation under way is done again, so that the copy holds every
// listing made before the call. Cobble starts one at start-up (RunBoards);
// the load tool calls this before it times the page.
func (s *PublicStore) RefreshBoards(ctx context.Context) error {
	c := &s.boards
	c.mu.Lock()
	c.gen++
	s.startBoards()
	done := c.done
	c.mu.Unlock()
	_, err := s.awaitBoards(ctx, done)
	return op("refresh leaderboards", err)
}

// RunBoards starts the instance's first computation of the leaderboards,
// so that their first visitor need not wait for it, and runs every later
// computation under ctx, the instance's work: when ctx ends, the one under
// way is cancelled and RunBoards returns once it has ended, and no other
// starts.
func (s *PublicStore) RunBoards(ctx context.Context) {
	c := &s.boards
	c.mu.Lock()
	c.bg = ctx
	if c.at.IsZero() {
		s.startBoards()
	}
	c.mu.Unlock()
	<-ctx.Done()
	c.running.Wait()
}

// awaitBoards waits for the computation whose done channel it is, and
// returns the copy it left (or its failure).
func (s *PublicStore) awaitBoards(ctx context.Context, done chan struct{}) (Boards, error) {
	select {
	case <-done:
	case <-ctx.Done():
		return Boards{}, ctx.Err()
	}
	c := &s.boards
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || c.at.IsZero() {
		return Boards{}, c.err
	}
	return c.boards, nil
}

// startBoards starts the computation, unless one is under way. The caller
// holds s.boards.mu.
func (s *PublicStore) startBoards() {
	c := &s.boards
	if c.done != nil {
		return
	}
	bg := c.bg
	if bg == nil {
		bg = context.Background()
	}
	if bg.Err() != nil {
		return // the instance is stopping
	}
	compute := c.compute
	if compute == nil {
		compute = s.computeBoards
	}
	done := make(chan struct{})
	c.done = done
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		defer close(done)
		for {
			// Only this goroutine writes the copy while it runs.
			c.mu.Lock()
			gen, b, copied := c.gen, c.boards, c.key
			current := !c.at.IsZero() && c.keyGen == c.gen
			c.mu.Unlock()
			began := time.Now()
			ctx, cancel := context.WithTimeout(bg, boardsRefresh)
			// The key is read before the computation: a change after it
			// makes the next key differ.
			key, err := s.boardsKey(ctx)
			if err == nil && (!current || key != copied) {
				b, err = compute(ctx)
			}
			cancel()
			c.mu.Lock()
			if c.gen == gen || err != nil {
				if err == nil {
					c.boards, c.at, c.key, c.keyGen = b, began, key, gen
				}
				c.err, c.done = err, nil
				c.mu.Unlock()
				return
			}
			c.mu.Unlock() // a listing changed meanwhile: again
		}
	}()
}

// forgetBoards has the copy computed again, after a volunteer changed
// their listing: until it is, the copy is shown without the handles that
// are no longer listed.
func (s *PublicStore) forgetBoards() {
	c := &s.boards
	c.mu.Lock()
	c.gen++
	s.startBoards()
	c.mu.Unlock()
}

// stillListed returns b as the profiles are now, ranked again: without
// the handles that are no longer public and listed (or whose volunteer
// was disabled) since it was computed, and with each handle that changed
// hands shown with its new owner's credit, never the old owner's. A
// volunteer who leaves the boards, or a handle taken by another, is so on
// every instance's next answer, whatever the age of its copy (and
// whether or not the instance heard of the change); a handle that changed
// hands also has the copy computed again.
func (s *PublicStore) stillListed(ctx context.Context, b Boards) (Boards, error) {
	owners, err := s.listedOwners(ctx, b)
	if err != nil {
		return Boards{}, err
	}
	gone := func(e BoardEntry) bool { return owners[e.Handle] != e.user }
	moved := map[int64]string{} // a handle's new owner → the handle
	for _, board := range []Board{b.Last30, b.AllTime} {
		for _, list := range board.lists() {
			for _, e := range list {
				if owner := owners[e.Handle]; owner != 0 && owner != e.user {
					moved[owner] = e.Handle
				}
			}
		}
	}
	out := Boards{Through: b.Through, Last30: b.Last30.without(gone), AllTime: b.AllTime.without(gone)}
	if len(moved) == 0 {
		return out, nil
	}
	// A computation under way is not begun again (as forgetBoards does):
	// each answer until the copy is replaced comes here.
	s.boards.mu.Lock()
	s.startBoards()
	s.boards.mu.Unlock()
	last30, allTime, err := s.rankUsers(ctx, moved, b.Through)
	if err != nil {
		return Boards{}, err
	}
	out.Last30, out.AllTime = out.Last30.merged(last30), out.AllTime.merged(allTime)
	return out, nil
}

// listedOwners returns, for each handle b shows, the volunteer it is the
// public and listed handle of now (0: none).
func (s *PublicStore) listedOwners(ctx context.Context, b Boards) (map[string]int64, error) {
	owners := map[string]int64{}
	for _, board := range []Board{b.Last30, b.AllTime} {
		for _, list := range board.lists() {
			for _, e := range list {
				owners[e.Handle] = 0
			}
		}
	}
	if len(owners) == 0 {
		return owners, nil
	}
	rows, _ := s.pool.Query(ctx, `SELECT p.handle, p.user_id FROM `+boardsListed+` AND p.handle = ANY($1)`,
		slices.Collect(maps.Keys(owners)))
	var h string
	var id int64
	_, err := pgx.ForEachRow(rows, []any{&h, &id}, func() error { owners[h] = id; return nil })
	return owners, err
}

// lists returns the board's overall list and each area's.
func (b Board) lists() [][]BoardEntry {
	return append([][]BoardEntry{b.Overall}, slices.Collect(maps.Values(b.Areas))...)
}

// without returns a copy of the board without the entries that gone
// picks, each list ranked again.
func (b Board) without(gone func(BoardEntry) bool) Board {
	out := Board{Overall: ranked(slices.DeleteFunc(slices.Clone(b.Overall), gone)), Areas: map[int][]BoardEntry{}}
	for a, list := range b.Areas {
		out.Areas[a] = ranked(slices.DeleteFunc(slices.Clone(list), gone))
	}
	return out
}

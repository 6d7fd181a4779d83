package accounting

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// boardsTTL is how long an instance shows the leaderboards it computed
// before it computes them again. A computation reads every rollup row of
// the listed volunteers (about a microsecond each: seconds at the 50 M-row
// history with all 5,000 volunteers listed), and the boards need not
// follow each rollup round.
const boardsTTL = 5 * time.Minute

// boardsRefresh bounds a computation of the leaderboards in the background.
const boardsRefresh = 2 * time.Minute

// boardsCache is an instance's copy of the leaderboards. Past boardsTTL
// it is still shown while one refresh runs in the background, so that no
// visitor waits for the computation but the first after a start or after
// a volunteer changed their own listing here.
type boardsCache struct {
	mu         sync.Mutex
	boards     Boards
	at         time.Time   // when computed; zero: none kept
	refreshing atomic.Bool // a background computation is under way
	compute    sync.Mutex  // held while the leaderboards are computed for a caller
}

// get returns the copy, whether it is fresh, and whether there is one.
func (c *boardsCache) get(now time.Time) (Boards, bool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.boards, now.Sub(c.at) < boardsTTL, !c.at.IsZero()
}

// put keeps b, computed at.
func (c *boardsCache) put(b Boards, at time.Time) {
	c.mu.Lock()
	c.boards, c.at = b, at
	c.mu.Unlock()
}

// Leaderboards returns the opt-in leaderboards: the volunteers whose
// profile is public and who ticked "list me", by confirmed credit over the
// last 30 days and all time, overall and per science area, handles only.
// They are computed from the rollups, at most once a boardsTTL per
// instance (boardsCache).
func (s *PublicStore) Leaderboards(ctx context.Context) (Boards, error) {
	if b, fresh, ok := s.boards.get(time.Now()); ok {
		if !fresh {
			s.refreshBoards()
		}
		return b, nil
	}
	s.boards.compute.Lock()
	defer s.boards.compute.Unlock()
	if b, _, ok := s.boards.get(time.Now()); ok {
		return b, nil // computed by the call this one waited for
	}
	began := time.Now()
	b, err := s.computeBoards(ctx)
	if err != nil {
		return Boards{}, op("leaderboards", err)
	}
	s.boards.put(b, began)
	return b, nil
}

// refreshBoards computes the leaderboards again in the background, unless
// that is under way already; a failure keeps the old copy until the next
// try.
func (s *PublicStore) refreshBoards() {
	if !s.boards.refreshing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.boards.refreshing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), boardsRefresh)
		defer cancel()
		began := time.Now()
		if b, err := s.computeBoards(ctx); err == nil {
			s.boards.put(b, began)
		}
	}()
}

// forgetBoards makes the next Leaderboards compute them afresh: a
// volunteer who changed their listing sees it on this instance at once.
func (s *PublicStore) forgetBoards() {
	s.boards.compute.Lock()
	s.boards.put(Boards{}, time.Time{})
	s.boards.compute.Unlock()
}

// computeBoards reads the listed volunteers and their confirmed credit per
// project, and ranks them.
func (s *PublicStore) computeBoards(ctx context.Context) (Boards, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.user_id, p.handle FROM public_profiles p JOIN users u ON u.id = p.user_id
		WHERE p.public AND p.list_me AND u.disabled_at IS NULL`)
	handles := map[int64]string{}
	var id int64
	var h string
	if _, err := pgx.ForEachRow(rows, []any{&id, &h}, func() error { handles[id] = h; return nil }); err != nil {
		return Boards{}, err
	}
	through, err := s.ledger.RolledThrough(ctx)
	if err != nil {
		return Boards{}, err
	}
	b := Boards{Through: through}
	if len(handles) == 0 || through.IsZero() {
		return b, nil
	}
	catalog, err := s.catalog(ctx)
	if err != nil {
		return Boards{}, err
	}
	areas := map[int64][]int{}
	for _, p := range catalog {
		areas[p.ID] = ScienceAreas(p.Keywords)
	}
	users := make([]int64, 0, len(handles))
	for u := range handles {
		users = append(users, u)
	}
	for _, span := range []struct {
		board *Board
		from  time.Time
	}{{&b.Last30, through.AddDate(0, 0, -29)}, {&b.AllTime, time.Time{}}} {
		shares, err := s.ledger.RolledShares(ctx, users, span.from, through)
		if err != nil {
			return Boards{}, err
		}
		*span.board = rank(shares, handles, areas)
	}
	return b, nil
}

// rank sums the shares per volunteer, overall and per science area (a
// project's areas), and keeps the BoardSize largest of each.
func rank(shares []RolledShare, handles map[int64]string, areas map[int64][]int) Board {
	overall := map[int64]float64{}
	byArea := map[int]map[int64]float64{}
	for _, s := range shares {
		overall[s.UserID] += s.Confirmed
		for _, a := range areas[s.ProjectID] {
			if byArea[a] == nil {
				byArea[a] = map[int64]float64{}
			}
			byArea[a][s.UserID] += s.Confirmed
		}
	}
	b := Board{Overall: top(overall, handles), Areas: map[int][]BoardEntry{}}
	for a, sums := range byArea {
		b.Areas[a] = top(sums, handles)
	}
	return b
}

// top orders the sums, largest first and then by handle, and keeps
// BoardSize of them; equal sums share a rank.
func top(sums map[int64]float64, handles map[int64]string) []BoardEntry {
	out := make([]BoardEntry, 0, len(sums))
	for u, v := range sums {
		out = append(out, BoardEntry{Handle: handles[u], Confirmed: v})
	}
	slices.SortFunc(out, func(x, y BoardEntry) int {
		if c := cmpDesc(x.Confirmed, y.Confirmed); c != 0 {
			return c
		}
		return strings.Compare(x.Handle, y.Handle)
	})
	out = out[:min(len(out), BoardSize)]
	for i := range out {
		out[i].Rank = i + 1
		if i > 0 && out[i].Confirmed == out[i-1].Confirmed {
			out[i].Rank = out[i-1].Rank
		}
	}
	return out
}

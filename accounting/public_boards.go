package accounting

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// boardsTTL is how long an instance shows the leaderboards it computed:
// they change with the rollup rounds, which come minutes apart.
const boardsTTL = time.Minute

// Leaderboards returns the opt-in leaderboards: the volunteers whose
// profile is public and who ticked "list me", by confirmed credit over the
// last 30 days and all time, overall and per science area, handles only.
// They are computed from the rollups, at most once a boardsTTL per
// instance (a change of one's own profile clears this instance's copy).
func (s *PublicStore) Leaderboards(ctx context.Context) (Boards, error) {
	if b, ok := s.boards.Get(struct{}{}); ok {
		return b, nil
	}
	s.boardsRead.Lock()
	defer s.boardsRead.Unlock()
	if b, ok := s.boards.Get(struct{}{}); ok {
		return b, nil // computed by the call this one waited for
	}
	b, err := s.computeBoards(ctx)
	if err != nil {
		return Boards{}, op("leaderboards", err)
	}
	s.boards.Put(struct{}{}, b)
	return b, nil
}

// forgetBoards makes the next Leaderboards compute them afresh.
func (s *PublicStore) forgetBoards() {
	s.boardsRead.Lock()
	s.boards.Delete(struct{}{})
	s.boardsRead.Unlock()
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

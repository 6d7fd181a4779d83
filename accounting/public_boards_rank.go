package accounting

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// merged returns the board with other's entries added to its lists
// (overall to overall, each area to its own), each list ordered again,
// cut to BoardSize and ranked.
func (b Board) merged(other Board) Board {
	out := Board{Overall: topOf(append(slices.Clone(b.Overall), other.Overall...)), Areas: map[int][]BoardEntry{}}
	maps.Copy(out.Areas, b.Areas)
	for a, list := range other.Areas {
		out.Areas[a] = topOf(append(slices.Clone(out.Areas[a]), list...))
	}
	return out
}

// boardsListed is the public and listed profiles "p" of volunteers "u"
// who are not disabled: who the leaderboards show.
const boardsListed = `public_profiles p JOIN users u ON u.id = p.user_id
	WHERE p.public AND p.list_me AND u.disabled_at IS NULL`

// computeBoards reads the listed volunteers and their confirmed credit per
// project, and ranks them.
func (s *PublicStore) computeBoards(ctx context.Context) (Boards, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.user_id, p.handle FROM `+boardsListed)
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
	b.Last30, b.AllTime, err = s.rankUsers(ctx, handles, through)
	return b, err
}

// boardsKey is what the leaderboards are computed from, in brief: the
// first unsettled day, how often the per-volunteer rollups changed
// (bumpVolunteerRollups), a digest of the listed volunteers' handles, and
// the projects' science areas as this instance's catalog has them. Two
// computations under the same key give the same boards.
type boardsKey struct {
	settled string
	rollups int64
	listed  string
	areas   string
}

// boardsKey reads the key of the leaderboards as they would be computed
// now.
func (s *PublicStore) boardsKey(ctx context.Context) (boardsKey, error) {
	var k boardsKey
	err := s.pool.QueryRow(ctx, `
		SELECT rollup_settled_before()::text,
			coalesce((SELECT value FROM system_counts WHERE name = 'volunteer_rollups'), 0),
			(SELECT count(*) || ' ' || coalesce(sum(hashtextextended(p.handle, p.user_id)), 0)
			 FROM `+boardsListed+`)`).Scan(&k.settled, &k.rollups, &k.listed)
	if err != nil {
		return boardsKey{}, err
	}
	catalog, err := s.catalog(ctx)
	if err != nil {
		return boardsKey{}, err
	}
	var areas strings.Builder
	for _, p := range catalog {
		fmt.Fprintf(&areas, "%d:%v ", p.ID, ScienceAreas(p.Keywords))
	}
	k.areas = areas.String()
	return k, nil
}

// rankUsers ranks the volunteers handles names (user id → handle) by their
// confirmed credit in the 30 days up to through and in all time up to
// through: nothing when there is no one or no rollup yet.
func (s *PublicStore) rankUsers(ctx context.Context, handles map[int64]string, through time.Time) (last30, allTime Board, err error) {
	if len(handles) == 0 || through.IsZero() {
		return Board{}, Board{}, nil
	}
	catalog, err := s.catalog(ctx)
	if err != nil {
		return Board{}, Board{}, err
	}
	areas := map[int64][]int{}
	for _, p := range catalog {
		areas[p.ID] = ScienceAreas(p.Keywords)
	}
	users := slices.Collect(maps.Keys(handles))
	for _, span := range []struct {
		board *Board
		from  time.Time
	}{{&last30, through.AddDate(0, 0, -29)}, {&allTime, time.Time{}}} {
		var shares []RolledShare
		for batch := range slices.Chunk(users, boardsBatch) {
			some, err := s.ledger.RolledShares(ctx, batch, span.from, through)
			if err != nil {
				return Board{}, Board{}, err
			}
			shares = append(shares, some...)
		}
		*span.board = rank(shares, handles, areas)
	}
	return last30, allTime, nil
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
		out = append(out, BoardEntry{Handle: handles[u], Confirmed: v, user: u})
	}
	return topOf(out)
}

// topOf orders the entries, largest first and then by handle, keeps
// BoardSize of them, and ranks them.
func topOf(out []BoardEntry) []BoardEntry {
	slices.SortFunc(out, func(x, y BoardEntry) int {
		if c := cmpDesc(x.Confirmed, y.Confirmed); c != 0 {
			return c
		}
		return strings.Compare(x.Handle, y.Handle)
	})
	return ranked(out[:min(len(out), BoardSize)])
}

// ranked numbers the entries, in their order; equal sums share a rank.
func ranked(out []BoardEntry) []BoardEntry {
	for i := range out {
		out[i].Rank = i + 1
		if i > 0 && out[i].Confirmed == out[i-1].Confirmed {
			out[i].Rank = out[i-1].Rank
		}
	}
	return out
}

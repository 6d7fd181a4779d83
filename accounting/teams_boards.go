package accounting

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// teamBoardsTTL is how long an instance reuses the team leaderboards'
// ranking; the names and hidden flags are read afresh at every call.
const teamBoardsTTL = 2 * time.Minute

// TeamBoards returns the team leaderboards by confirmed credit: the 30
// days up to the last day the rollups hold, and all time; hidden teams
// are left out. The ranking is computed at most teamBoardsTTL ago, from
// rollup_team_days and the teams' totals; the names and whether a team
// is hidden are read at each call, so a hidden team leaves at once.
func (s *TeamsStore) TeamBoards(ctx context.Context) (TeamBoards, error) {
	b, ok := s.boards.Get(struct{}{})
	if !ok {
		var err error
		if b, err = s.rankTeams(ctx); err != nil {
			return TeamBoards{}, op("team boards", err)
		}
		s.boards.Put(struct{}{}, b)
	}
	b, err := s.currentTeams(ctx, b)
	return b, op("team boards", err)
}

// rankTeams ranks the teams by their confirmed credit, the largest
// TeamBoardSize of each span; a few more than that are kept, for the
// hidden teams currentTeams leaves out.
func (s *TeamsStore) rankTeams(ctx context.Context) (TeamBoards, error) {
	through, err := s.ledger.RolledThrough(ctx)
	if err != nil || through.IsZero() {
		return TeamBoards{}, err
	}
	b := TeamBoards{Through: through}
	const keep = 2 * TeamBoardSize
	rows, _ := s.pool.Query(ctx, `
		SELECT r.team_id, sum(r.granted_micro) / 1e6 AS confirmed FROM rollup_team_days r
		WHERE r.day BETWEEN $1::date - 29 AND $1::date
		GROUP BY r.team_id HAVING sum(r.granted_micro) > 0
		ORDER BY confirmed DESC, r.team_id LIMIT $2`, through, keep)
	if b.Last30, err = pgx.CollectRows(rows, scanTeamEntry); err != nil {
		return TeamBoards{}, err
	}
	rows, _ = s.pool.Query(ctx, `
		SELECT id AS team_id, granted_micro / 1e6 AS confirmed FROM teams
		WHERE NOT hidden AND granted_micro > 0 ORDER BY granted_micro DESC, id LIMIT $1`, keep)
	if b.AllTime, err = pgx.CollectRows(rows, scanTeamEntry); err != nil {
		return TeamBoards{}, err
	}
	return b, nil
}

// scanTeamEntry reads a team's id and confirmed credit.
func scanTeamEntry(row pgx.CollectableRow) (TeamBoardEntry, error) {
	var e TeamBoardEntry
	err := row.Scan(&e.TeamID, &e.Confirmed)
	return e, err
}

// currentTeams names the boards' teams as they are now, leaves out those
// hidden or removed since the ranking, and ranks the rest, at most
// TeamBoardSize a board.
func (s *TeamsStore) currentTeams(ctx context.Context, b TeamBoards) (TeamBoards, error) {
	var ids []int64
	for _, e := range slices.Concat(b.Last30, b.AllTime) {
		ids = append(ids, e.TeamID)
	}
	if len(ids) == 0 {
		return b, nil
	}
	rows, _ := s.pool.Query(ctx, `SELECT id, name FROM teams WHERE id = ANY($1) AND NOT hidden`, ids)
	names := map[int64]string{}
	var id int64
	var name string
	if _, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error { names[id] = name; return nil }); err != nil {
		return TeamBoards{}, err
	}
	current := func(list []TeamBoardEntry) []TeamBoardEntry {
		var out []TeamBoardEntry
		for _, e := range list {
			if n, ok := names[e.TeamID]; ok && len(out) < TeamBoardSize {
				e.Name = n
				if e.Rank = len(out) + 1; len(out) > 0 && out[len(out)-1].Confirmed == e.Confirmed {
					e.Rank = out[len(out)-1].Rank
				}
				out = append(out, e)
			}
		}
		return out
	}
	return TeamBoards{Last30: current(b.Last30), AllTime: current(b.AllTime), Through: b.Through}, nil
}

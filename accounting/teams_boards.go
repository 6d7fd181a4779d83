package accounting

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// TeamBoards returns the team leaderboards by confirmed credit: the 30
// days up to the last day the rollups hold, and all time, each at most
// TeamBoardSize teams with credit; hidden teams are left out. It reads
// the totals the rollup round keeps on each team's row (one row a team,
// ledger_rollups_teams.go), so a hidden or renamed team shows as it is
// now.
func (s *TeamsStore) TeamBoards(ctx context.Context) (TeamBoards, error) {
	through, err := s.ledger.RolledThrough(ctx)
	if err != nil || through.IsZero() {
		return TeamBoards{}, op("team boards", err)
	}
	b := TeamBoards{Through: through}
	for _, board := range []struct {
		list   *[]TeamBoardEntry
		column string
	}{{&b.Last30, "granted_30d_micro"}, {&b.AllTime, "granted_micro"}} {
		rows, _ := s.pool.Query(ctx, `SELECT id, name, `+board.column+` / 1e6 FROM teams
			WHERE NOT hidden AND `+board.column+` > 0 ORDER BY `+board.column+` DESC, name_key, id LIMIT $1`, TeamBoardSize)
		if *board.list, err = pgx.CollectRows(rows, scanTeamEntry); err != nil {
			return TeamBoards{}, op("team boards", err)
		}
		ranked := *board.list
		for i := range ranked {
			ranked[i].Rank = i + 1
			if i > 0 && ranked[i].Confirmed == ranked[i-1].Confirmed {
				ranked[i].Rank = ranked[i-1].Rank
			}
		}
	}
	return b, nil
}

// scanTeamEntry reads a team's id, name and confirmed credit.
func scanTeamEntry(row pgx.CollectableRow) (TeamBoardEntry, error) {
	var e TeamBoardEntry
	err := row.Scan(&e.TeamID, &e.Name, &e.Confirmed)
	return e, err
}

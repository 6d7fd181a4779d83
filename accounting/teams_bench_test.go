package accounting_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// BenchmarkTeamBoards times the team leaderboards and a page of the list
// of teams by credit and by recent average, with COBBLE_TEAMS teams
// (default 10,000), each with a year of days in rollup_team_days.
//
//	go run ./internal/pgcluster/withpg -- go test -run '^$' -bench TeamBoards -benchtime 10x ./accounting/
func BenchmarkTeamBoards(b *testing.B) {
	teams := 10_000
	if v, err := strconv.Atoi(os.Getenv("COBBLE_TEAMS")); err == nil && v > 0 {
		teams = v
	}
	ctx := context.Background()
	pool := testdb.New(b)
	for _, q := range []string{
		`INSERT INTO teams (name, name_key, type, created_by, invite_code, granted_micro, ec_micro, expavg, expavg_time,
			granted_30d_micro)
		SELECT 'Team ' || i, 'team ' || i, 1, 1, translate(substr(md5(i::text), 1, 26), '0189', 'wxyz'),
			i * 1000, i * 2000, i, now(), i * 100 FROM generate_series(1, $1::int) AS i`,
		`INSERT INTO rollup_team_days (team_id, day, ec_micro, granted_micro)
		SELECT t.id, current_date - d, t.id * d, t.id * d + 7 FROM teams t, generate_series(1, 365) AS d
		WHERE $1::int > 0`,
		`INSERT INTO system_counts (name, value, at)
		SELECT 'rollup_day', (extract(epoch FROM current_date) / 86400)::bigint, now() WHERE $1::int > 0`,
	} {
		if _, err := pool.Exec(ctx, q, teams); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	s := accounting.NewStore(pool, testOptions)
	for b.Loop() {
		boards, err := s.Teams.TeamBoards(ctx)
		if err != nil || len(boards.Last30) != accounting.TeamBoardSize || len(boards.AllTime) != accounting.TeamBoardSize {
			b.Fatalf("%d and %d entries, %v", len(boards.Last30), len(boards.AllTime), err)
		}
		for _, sort := range []string{accounting.TeamSortCredit, accounting.TeamSortRecent} {
			if list, _, err := s.Teams.Teams(ctx, "", sort, 50, 0); err != nil || len(list) != 50 {
				b.Fatalf("%d teams, %v", len(list), err)
			}
		}
	}
}

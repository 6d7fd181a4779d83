package accounting_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
)

// teamCredit reads per "team day" the estimated and confirmed credit in
// millionths, leaving out rows of no credit, on the settled days.
func teamCredit(t *testing.T, pool *pgxpool.Pool, q string) map[string][2]int64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]int64{}
	for rows.Next() {
		var team int64
		var day string
		var v [2]int64
		if err := rows.Scan(&team, &day, &v[0], &v[1]); err != nil {
			t.Fatal(err)
		}
		if v != [2]int64{} {
			out[fmt.Sprintf("%d %s", team, day)] = v
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// teamsVsLedger returns the teams' rollup and, computed here from the
// ledger and the memberships alone, what it should be, for the settled
// days; and checks each team's totals (all time and the last 30 days)
// against its rows.
func teamsVsLedger(t *testing.T, pool *pgxpool.Pool) (rollup, ledger map[string][2]int64) {
	t.Helper()
	rollup = teamCredit(t, pool, `SELECT team_id, day::text, ec_micro, granted_micro FROM rollup_team_days
		WHERE day < rollup_settled_before()`)
	ledger = teamCredit(t, pool, `
		WITH member_rows AS (
			SELECT m.team_id, l.day, l.cpu_ec_micro + l.gpu_ec_micro AS ec, 0 AS granted
			FROM ledger l JOIN team_members m ON m.user_id = l.user_id
				AND l.day >= m.first_day AND (m.until_day IS NULL OR l.day < m.until_day)
			UNION ALL
			SELECT m.team_id, c.day, 0, c.granted_micro
			FROM confirmed_ledger c JOIN team_members m ON m.user_id = c.user_id
				AND c.day >= m.first_day AND (m.until_day IS NULL OR c.day < m.until_day))
		SELECT team_id, day::text, sum(ec)::bigint, sum(granted)::bigint FROM member_rows
		WHERE day < rollup_settled_before() GROUP BY team_id, day`)
	var wrong int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM teams t
		WHERE (t.ec_micro, t.granted_micro, t.granted_30d_micro) <> (
			SELECT coalesce(sum(ec_micro), 0), coalesce(sum(granted_micro), 0),
				coalesce(sum(granted_micro) FILTER (WHERE day >= rollup_settled_before() - 30), 0)
			FROM rollup_team_days WHERE team_id = t.id AND day < rollup_settled_before())`).
		Scan(&wrong); err != nil || wrong != 0 {
		t.Errorf("%d teams' totals differ from their rows (%v)", wrong, err)
	}
	return rollup, ledger
}

// The proof of issue 43: a team's daily history equals, to the
// millionth, its members' ledger on their member days, through joins,
// leaves, a move to another team, a founder's hand-over, a founder's
// leaving, a deleted member and a rebuild; and the ledger check finds a
// team's row or total that differs.
func TestTeamRollupEqualsMembersLedger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, u := teamsFixture(t, 5)
	zones := []string{"UTC", "America/Los_Angeles", "Pacific/Auckland", "Europe/Berlin", "Pacific/Kiritimati"}
	for i, z := range zones {
		if _, err := pool.Exec(ctx, `UPDATE users SET time_zone = $2 WHERE id = $1`, u[i].ID, z); err != nil {
			t.Fatal(err)
		}
	}
	var projects []int64
	for _, url := range []string{"https://a.example.org/", "https://b.example.org/"} {
		p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: url, Name: url[8:9], Authenticator: "k"})
		if err != nil {
			t.Fatal(err)
		}
		projects = append(projects, p.ID)
	}
	start := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for i, v := range u {
		if _, err := demodata.Seed(ctx, pool, demodata.Spec{UserID: v.ID, Projects: projects, Days: 30 + i,
			End: time.Date(2026, 6, 20, 0, 0, 0, 0, time.UTC), ConfirmedLag: 1,
			Computers: []demodata.Computer{{Name: "alpha", NCPUs: 2 + i, PFPOps: 2e9, ClientVersion: "7.20.5"}}}); err != nil {
			t.Fatal(err)
		}
	}
	day := func(n int) time.Time { return start.AddDate(0, 0, n) }
	round := func(n int) {
		t.Helper()
		if err := s.Ledger.Rollup(ctx, day(n).AddDate(0, 0, -2), day(n)); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	round(0)
	a, err := s.Teams.CreateTeam(ctx, u[0].ID, newTeam("Alpha", true), day(0))
	must(err)
	must(s.Teams.Join(ctx, u[1].ID, a.ID, day(0)))
	b, err := s.Teams.CreateTeam(ctx, u[2].ID, newTeam("Beta", true), day(0))
	must(err)
	var before map[string][2]int64
	// Rounds past the ledger's last day: the 30 days move beyond its first.
	const last = 45
	for n := 1; n <= last; n++ {
		switch n {
		case 1:
			must(s.Teams.Join(ctx, u[3].ID, a.ID, day(n)))
		case 2:
			must(s.Teams.Join(ctx, u[4].ID, a.ID, day(n)))
		case 3: // a move to the other team
			must(s.Teams.Join(ctx, u[1].ID, b.ID, day(n)))
		case 4: // the founder hands over, then leaves
			must(s.Teams.HandOver(ctx, u[0].ID, a.ID, u[3].ID))
		case 5:
			must(s.Teams.Leave(ctx, u[0].ID, a.ID, day(n)))
		case 6: // the new founder leaves: the longest-standing member takes over
			must(s.Teams.Leave(ctx, u[3].ID, a.ID, day(n)))
			if mine, _, _ := s.Teams.Mine(ctx, u[4].ID); !mine.Founder {
				t.Errorf("after the founder left, the remaining member is no founder: %+v", mine)
			}
		case 7: // a re-join of the first team
			must(s.Teams.Join(ctx, u[0].ID, a.ID, day(n)))
		case 9: // a member deletes their account
			must(s.Accounts.DeleteUser(ctx, u[1].ID, "first-pass"))
		}
		round(n)
		rollup, ledger := teamsVsLedger(t, pool)
		if diff := cmp.Diff(ledger, rollup); diff != "" {
			t.Fatalf("after round %d (-ledger +rollup):\n%s", n, diff)
		}
		if n == 9 && !lessOn(before, rollup, b.ID) {
			t.Errorf("the deleted member's settled days in team %d did not change: %v, then %v", b.ID, before, rollup)
		}
		before = rollup
	}
	rollup, ledger := teamsVsLedger(t, pool)
	if len(rollup) < 10 {
		t.Fatalf("only %d team days with credit: the test proves little", len(rollup))
	}
	through, err := s.Ledger.RolledThrough(ctx)
	must(err)
	history, err := s.Teams.TeamHistory(ctx, a.ID, day(-60), through)
	must(err)
	var sum, want int64
	for _, d := range history {
		sum += int64(d.Confirmed*1e6 + 0.5)
	}
	for k, v := range ledger {
		var id int64
		if _, err := fmt.Sscan(k, &id); err == nil && id == a.ID {
			want += v[1]
		}
	}
	if sum != want || want == 0 {
		t.Errorf("team history sums to %d millionths confirmed, the ledger to %d", sum, want)
	}

	// The recent average the rounds kept, decayed to the last round,
	// is the history's.
	var kept float64
	var keptAt time.Time
	must(pool.QueryRow(ctx, `SELECT expavg, expavg_time FROM teams WHERE id = $1`, a.ID).Scan(&kept, &keptAt))
	kept *= math.Exp(-day(last).Sub(keptAt).Hours() / (7 * 24) * math.Ln2)
	if avg, _ := accounting.RecentAverage(history, day(last)); kept <= 0 || !near(kept, avg) {
		t.Errorf("the rounds' recent average %v, from the history %v", kept, avg)
	}

	// The rebuild folds the same.
	must(s.Ledger.RebuildRollups(ctx, day(last)))
	rebuilt, ledger := teamsVsLedger(t, pool)
	if diff := cmp.Diff(ledger, rebuilt); diff != "" {
		t.Fatalf("after the rebuild (-ledger +rollup):\n%s", diff)
	}
	if diff := cmp.Diff(rollup, rebuilt); diff != "" {
		t.Errorf("the rebuild moved team days (-rounds +rebuild):\n%s", diff)
	}
	rep, err := s.Ledger.RebuildTotals(ctx, true)
	if err != nil || len(rep.Rollups) != 0 {
		t.Fatalf("the check finds %+v, %v", rep.Rollups, err)
	}

	// The team's totals, recent average and boards come from its rows.
	team, err := s.Teams.Team(ctx, a.ID)
	must(err)
	if d := team.Confirmed*1e6 - float64(want); d < -0.5 || d > 0.5 {
		t.Errorf("team total %v, the ledger's %d millionths", team.Confirmed, want)
	}
	var stored float64
	must(pool.QueryRow(ctx, `SELECT expavg FROM teams WHERE id = $1`, a.ID).Scan(&stored))
	if avg, _ := accounting.RecentAverage(history, day(last)); stored <= 0 || !near(stored, avg) {
		t.Errorf("stored recent average %v, from the history %v", stored, avg)
	}
	boards, err := s.Teams.TeamBoards(ctx)
	must(err)
	if len(boards.AllTime) != 2 || len(boards.Last30) != 2 || !boards.Through.Equal(through) {
		t.Fatalf("boards %+v", boards)
	}
	for _, e := range boards.AllTime {
		if e.TeamID == a.ID && (e.Name != "Alpha" || !near(e.Confirmed, team.Confirmed)) {
			t.Errorf("all-time entry %+v, the team's total %v", e, team.Confirmed)
		}
	}
	must(s.Admin.AdminHideTeam(ctx, accounting.OSActor("root"), a.ID, true))
	boards, err = s.Teams.TeamBoards(ctx)
	must(err)
	if len(boards.AllTime) != 1 || boards.AllTime[0].TeamID != b.ID || boards.AllTime[0].Rank != 1 || len(boards.Last30) != 1 {
		t.Errorf("boards with a hidden team: %+v", boards)
	}

	// A corrupted team day and a corrupted total are found.
	var badDay time.Time
	must(pool.QueryRow(ctx, `UPDATE rollup_team_days SET granted_micro = granted_micro + 1
		WHERE (team_id, day) = (SELECT team_id, day FROM rollup_team_days WHERE team_id = $1 ORDER BY day DESC LIMIT 1)
		RETURNING day::timestamp AT TIME ZONE 'UTC'`, a.ID).Scan(&badDay))
	_, err = pool.Exec(ctx, `UPDATE teams SET ec_micro = ec_micro - 5 WHERE id = $1`, b.ID)
	must(err)
	rep, err = s.Ledger.RebuildTotals(ctx, true)
	must(err)
	var found []string
	for _, d := range rep.Rollups {
		found = append(found, fmt.Sprintf("team %d %s %s %d", d.TeamID, d.Day.Format(time.DateOnly), d.Column, d.Rollup-d.Ledger))
	}
	wantFound := []string{
		fmt.Sprintf("team %d %s granted_micro 1", a.ID, badDay.UTC().Format(time.DateOnly)),
		fmt.Sprintf("team %d 0001-01-01 30d_granted_micro -1", a.ID), // its rows sum to 1 more
		fmt.Sprintf("team %d 0001-01-01 total_granted_micro -1", a.ID),
		fmt.Sprintf("team %d 0001-01-01 total_ec_micro -5", b.ID),
	}
	if diff := cmp.Diff(wantFound, found); diff != "" {
		t.Errorf("the check's differences (-want +found):\n%s", diff)
	}
}

// lessOn reports whether team has a day with less estimated credit in
// after than in before.
func lessOn(before, after map[string][2]int64, team int64) bool {
	for k, v := range before {
		var id int64
		var day string
		if _, err := fmt.Sscan(k, &id, &day); err == nil && id == team && after[k][0] < v[0] {
			return true
		}
	}
	return false
}

package main

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
)

// TestTeamsOnHistory puts teams on a small history with listed
// volunteers, new ones among them with ledgers of their own, measures the
// team pages and the statistics export, and then finds the teams again in
// a second run. The ledger check of every total and rollup, the teams'
// among them, finds nothing to correct, and the export lists every
// listed volunteer and team.
func TestTeamsOnHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a history and runs the load twice")
	}
	dbURL := testdb.NewURL(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "cobble")
	if b, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "../cobble").CombinedOutput(); err != nil {
		t.Fatalf("building cobble: %v\n%s", err, b)
	}
	args := []string{"--db", dbURL, "--cobble", bin, "--users", "2", "--hosts", "2", "--concurrency", "2", "--warmup", "100ms",
		"--duration", "500ms", "--history", "20k", "--export-hosts", "0", "--page-requests", "2",
		"--teams", "12", "--listed", "60"}
	for i, want := range [][]string{
		{"teams: 12 teams, 60 listed volunteers in them, 58 of them new with 464 ledger and 464 confirmed rows",
			"team page, large (3), 365 days", "leaderboards with team boards", "API team, large",
			"statistics export (cobble stats export, its own process):", "built the statistics export: 60 volunteers, 12 teams"},
		{"put there by an earlier run, found in the database)", "team page, typical"},
	} {
		var out, logs bytes.Buffer
		if err := run(ctx, args, &out, &logs); err != nil {
			t.Fatalf("run %d: %v\noutput:\n%s\nlog:\n%s", i+1, err, out.String(), logs.String())
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("run %d: the output lacks %q:\n%s", i+1, w, out.String())
			}
		}
	}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := accounting.NewStore(pool, accounting.Options{})
	rep, err := store.Ledger.RebuildTotals(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) > 0 || len(rep.Rollups) > 0 {
		t.Errorf("the ledger check differs: totals %+v, rollups %+v", rep.Differences, rep.Rollups)
	}
	var teamDays, members, moved int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM rollup_team_days),
		(SELECT count(*) FROM team_members WHERE until_day IS NULL),
		(SELECT count(*) FROM team_members WHERE until_day IS NOT NULL)`).Scan(&teamDays, &members, &moved); err != nil {
		t.Fatal(err)
	}
	if teamDays == 0 || members != 60 || moved == 0 {
		t.Errorf("%d team days, %d current members, %d ended memberships", teamDays, members, moved)
	}
	var tables bytes.Buffer
	if err := store.Stats.ReadStatsFile(ctx, "tables.xml", func(accounting.StatsFile) (io.Writer, error) {
		return &tables, nil
	}); err != nil {
		t.Fatal(err)
	}
	tab, err := boinc.ParseTables(&tables)
	if err != nil {
		t.Fatal(err)
	}
	if tab.NUsersTotal != 60 || tab.NTeamsTotal != 12 || tab.TotalCredit <= 0 {
		t.Errorf("tables.xml: %+v", tab)
	}
}

// TestTeamsConfig: the teams' flags need a history, and enough listed
// volunteers for the teams.
func TestTeamsConfig(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"--history", "50M", "--teams", "10000", "--listed", "100000"}, true},
		{[]string{"--history", "10k", "--teams", "10"}, true},
		{[]string{"--teams", "10"}, false},
		{[]string{"--history", "10k", "--listed", "100"}, false},
		{[]string{"--history", "10k", "--teams", "10", "--listed", "15"}, false},
		{[]string{"--history", "10k", "--teams", "-1"}, false},
	} {
		c, err := parseConfig(tc.args, io.Discard, getenv)
		if (err == nil) != tc.ok {
			t.Errorf("%v: %v", tc.args, err)
		}
		if tc.ok && c.teams.members() != max(c.teams.listed, 10*c.teams.teams) {
			t.Errorf("%v: %d members", tc.args, c.teams.members())
		}
	}
}

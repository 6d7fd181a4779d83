package main

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// The demo volunteer gets three computers (one with a GPU), 120 days of
// history with a reset, a clamp and confirmed credit; seeding twice
// changes nothing.
func TestSeedDemoHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	store := accounting.NewStore(pool, accounting.Options{PasswordCost: bcrypt.MinCost})
	for range 2 {
		if err := seed(ctx, store, pool); err != nil {
			t.Fatal(err)
		}
	}
	u, err := store.Accounts.Login(ctx, demoVolunteer, demoVolunteerPassword)
	if err != nil {
		t.Fatal(err)
	}
	today := store.Ledger.Today(time.Now(), u.TimeZone)
	cs, err := store.Computers.Computers(ctx, u.ID, today)
	if err != nil || len(cs) != 3 || cs[2].GPUs() != 1 {
		t.Fatalf("computers %+v, %v", cs, err)
	}
	s, err := store.Ledger.Summary(ctx, u.ID, today)
	if err != nil || s.AllTime.Confirmed <= 0 || s.Last30.Clamped <= 0 || s.AllTime.GPUHours <= 0 {
		t.Errorf("summary %+v, %v", s, err)
	}
	var days, runs, resets int
	pool.QueryRow(ctx, `SELECT count(DISTINCT day) FROM ledger WHERE user_id = $1`, u.ID).Scan(&days)
	pool.QueryRow(ctx, `SELECT count(*) FROM reconcile_runs WHERE status = 'ok'`).Scan(&runs)
	pool.QueryRow(ctx, `SELECT count(*) FROM accounting_events WHERE kind = 'reset'`).Scan(&resets)
	if days != 120 || runs != 3 || resets != 1 {
		t.Errorf("%d days, %d runs, %d resets; want 120, 3, 1", days, runs, resets)
	}
	// The next rollup round folds the history in: the rollups then match.
	if err := store.Ledger.Rollup(ctx, time.Now().AddDate(0, 0, -1), time.Now()); err != nil {
		t.Fatal(err)
	}
	rep, err := store.Ledger.RebuildTotals(ctx, true)
	if err != nil || len(rep.Differences) != 0 || len(rep.Rollups) != 0 {
		t.Errorf("check after the demo history and a rollup: %v, %+v, %+v", err, rep.Differences, rep.Rollups)
	}
	var rolled int
	pool.QueryRow(ctx, `SELECT count(*) FROM rollup_days`).Scan(&rolled)
	if rolled < 120 {
		t.Errorf("%d days rolled up, want the demo's 120", rolled)
	}
}

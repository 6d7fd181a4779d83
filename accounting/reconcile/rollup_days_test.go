package reconcile_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc/exporttest"
)

// A project's days are its rollups', as of their latest round: nothing
// before the first round, the ledgers' sums after one, and a change of the
// ledgers from the next round that folds its day.
func TestProjectDaysReadTheRollup(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1.Add(48*time.Hour), []exporttest.Host{gen(101, 42, 100), gen(102, 42, 100)}, 0)
	e.run()
	from, to := may1.AddDate(0, 0, -2), may1.AddDate(0, 0, 3)
	days := func() []reconcile.Day {
		t.Helper()
		d, err := e.rec.Days(e.ctx, e.proj.ID, 0, from, to)
		if err != nil || len(d) != 6 {
			t.Fatalf("days: %v, %v", d, err)
		}
		return d
	}
	rows, _ := e.pool.Query(e.ctx, `
		SELECT d::timestamp AT TIME ZONE 'UTC' AS day,
			coalesce((SELECT sum(cpu_ec_micro + gpu_ec_micro) FROM ledger WHERE project_id = $1 AND day = d), 0) / 1e6 AS estimated,
			coalesce((SELECT sum(granted_micro) FROM confirmed_ledger WHERE project_id = $1 AND day = d), 0) / 1e6 AS granted
		FROM generate_series($2::date, $3::date, '1 day') AS d ORDER BY d`, e.proj.ID, from, to)
	ledger, err := pgx.CollectRows(rows, pgx.RowToStructByName[reconcile.Day])
	if err != nil {
		t.Fatal(err)
	}
	if ledger[2].Estimated == 0 {
		t.Fatalf("the ledgers hold nothing on May 1st to compare: %+v", ledger)
	}
	for _, d := range days() {
		if d.Estimated != 0 || d.Granted != 0 {
			t.Errorf("before any round: %+v", d)
		}
	}
	if err := e.store.Ledger.RebuildRollups(e.ctx, e.now); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ledger, days()); diff != "" {
		t.Errorf("after a round (-ledger +read):\n%s", diff)
	}
	// It is the rollup that is read: a changed rollup shows, even on a day
	// marked as changed since, until the next round folds that day again.
	if _, err := e.pool.Exec(e.ctx, `
		UPDATE rollup_project_days SET ec_micro = ec_micro + 1000000, granted_micro = granted_micro + 2000000
		WHERE project_id = $1 AND day = '2026-05-01'`, e.proj.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(e.ctx, `INSERT INTO ledger_dirty_days VALUES ('2026-05-01')`); err != nil {
		t.Fatal(err)
	}
	if d := days()[2]; d.Estimated != ledger[2].Estimated+1 || d.Granted != ledger[2].Granted+2 {
		t.Errorf("May 1st with a changed rollup: %+v, the ledgers' %+v", d, ledger[2])
	}
	if err := e.store.Ledger.Rollup(e.ctx, e.now, e.now); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ledger, days()); diff != "" {
		t.Errorf("after the round that folds May 1st again (-ledger +read):\n%s", diff)
	}
}

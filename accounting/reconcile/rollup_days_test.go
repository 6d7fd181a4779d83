package reconcile_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// A project's days come from its rollup for the settled days, and from
// the ledgers for the days the rollup may lag on: the same numbers.
func TestProjectDaysReadTheRollup(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1.Add(48*time.Hour), []exporttest.Host{gen(101, 42, 100), gen(102, 42, 100)}, 0)
	e.run()
	from, to := may1.AddDate(0, 0, -2), may1.AddDate(0, 0, 3)
	before, err := e.rec.Days(e.ctx, e.proj.ID, 0, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.RebuildRollups(e.ctx, may1.AddDate(0, 1, 0)); err != nil { // every day settled
		t.Fatal(err)
	}
	after, err := e.rec.Days(e.ctx, e.proj.ID, 0, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("from the rollup (-ledger +rollup):\n%s", diff)
	}
	// It is the rollup that is read: a changed rollup shows ...
	if _, err := e.pool.Exec(e.ctx, `
		UPDATE rollup_project_days SET ec_micro = ec_micro + 1000000, granted_micro = granted_micro + 2000000
		WHERE project_id = $1 AND day = '2026-05-01'`, e.proj.ID); err != nil {
		t.Fatal(err)
	}
	changed, err := e.rec.Days(e.ctx, e.proj.ID, 0, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if changed[2].Estimated != before[2].Estimated+1 || changed[2].Granted != before[2].Granted+2 {
		t.Errorf("May 1st with a changed rollup: %+v, before %+v", changed[2], before[2])
	}
	// ... but not on a day marked as changed since the last round.
	if _, err := e.pool.Exec(e.ctx, `INSERT INTO ledger_dirty_days VALUES ('2026-05-01')`); err != nil {
		t.Fatal(err)
	}
	marked, err := e.rec.Days(e.ctx, e.proj.ID, 0, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, marked); diff != "" {
		t.Errorf("with May 1st marked (-ledger +read):\n%s", diff)
	}
}

package reconcile_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc/exporttest"
)

// A periodic round starts a run only while its deadline leaves the run
// its whole Timeout and the fairness measure its own: a round near the
// end of its job's timeout leaves the due projects to the next round, so
// that no run is cut short by it; within RoundTimeout, it runs them.
func TestRunDueStartsNoRunItCannotFinish(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1, []exporttest.Host{gen(101, 42, 1000)}, 1)
	opts := reconcile.Options{Every: time.Hour, Timeout: time.Hour, AllowPrivate: true, Now: func() time.Time { return e.now }}
	rec := reconcile.New(e.store, e.pool, opts)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	late, cancel := context.WithTimeout(e.ctx, opts.Timeout+reconcile.MeasureTimeout-30*time.Minute)
	defer cancel()
	if n, err := rec.RunDue(late, log); n != 0 || err != nil {
		t.Errorf("a round without a run's time left made %d runs (%v), want none", n, err)
	}
	if runs, err := e.rec.Runs(e.ctx, e.proj.ID, 10); err != nil || len(runs) != 0 {
		t.Errorf("%d runs recorded (%v), want none", len(runs), err)
	}

	round, cancel := context.WithTimeout(e.ctx, rec.RoundTimeout())
	defer cancel()
	if n, err := rec.RunDue(round, log); n != 1 || err != nil {
		t.Errorf("a round within RoundTimeout made %d runs (%v), want 1", n, err)
	}
	if got, want := rec.RoundTimeout(), 2*opts.Timeout+reconcile.MeasureTimeout; got != want {
		t.Errorf("RoundTimeout %v, want %v", got, want)
	}
}

package reconcile

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
)

// dueProjects lists the projects reconciled from their stats URL whose
// last run started longer ago than Every (or that never ran).
func (r *Reconciler) dueProjects(ctx context.Context) ([]accounting.Project, error) {
	ps, err := r.catalog.Projects(ctx)
	if err != nil {
		return nil, err
	}
	rows, _ := r.db.pool.Query(ctx, `SELECT DISTINCT project_id FROM reconcile_runs WHERE started_at > $1`,
		r.now().Add(-r.opts.Every))
	recent, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, op("due projects", err)
	}
	return slices.DeleteFunc(ps, func(p accounting.Project) bool {
		return !p.ReconciledFrom("") || slices.Contains(recent, p.ID)
	}), nil
}

// LastReconciled returns, for each project that reconciliation covers
// (Project.ReconciledFrom its stats URL), keyed by its URL, when its latest
// successful run (ok or unchanged) finished, or, if it has had none, when
// it was added to the catalog: the time since which it has been waiting
// for its credit to be confirmed (for metrics).
func (r *Reconciler) LastReconciled(ctx context.Context) (map[string]time.Time, error) {
	ps, err := r.catalog.Projects(ctx)
	if err != nil {
		return nil, err
	}
	rows, _ := r.db.pool.Query(ctx, `
		SELECT project_id, max(finished_at) FROM reconcile_runs
		WHERE status IN ('ok', 'unchanged') AND finished_at IS NOT NULL GROUP BY project_id`)
	last := map[int64]time.Time{}
	var id int64
	var t time.Time
	if _, err := pgx.ForEachRow(rows, []any{&id, &t}, func() error { last[id] = t; return nil }); err != nil {
		return nil, op("last reconciled", err)
	}
	since := map[string]time.Time{}
	for _, p := range ps {
		if p.ReconciledFrom("") {
			since[p.URL] = cmp.Or(last[p.ID], p.CreatedAt)
		}
	}
	return since, nil
}

// MeasureTimeout bounds the credit fairness measure a periodic round
// computes after its runs (Measure).
const MeasureTimeout = 15 * time.Minute

// RoundTimeout is the longest a periodic round (RunDue, then Measure)
// takes, and so the job's timeout the server gives it: RunDue starts runs
// during one run's Timeout at most, each run takes at most Timeout (its
// downloads included, each also bounded by FileTimeout and StallTimeout),
// and the measure after them MeasureTimeout.
func (r *Reconciler) RoundTimeout() time.Duration { return r.opts.RoundTimeout() }

// RoundTimeout is the RoundTimeout of a Reconciler with o.
func (o Options) RoundTimeout() time.Duration { return 2*o.withDefaults().Timeout + MeasureTimeout }

// RunDue reconciles every project that is due (its last run started more
// than Every ago, or it never ran), up to Workers at once, so
// that a project whose export is slow delays no other, and returns how
// many runs it made. A project another instance is working on is skipped.
// With a deadline on ctx, it starts a run only while a whole run's
// Timeout and MeasureTimeout are left before it: the projects still due
// then are the next round's, and no run is cut short by the round's end.
func (r *Reconciler) RunDue(ctx context.Context, log *slog.Logger) (int, error) {
	due, err := r.dueProjects(ctx)
	if err != nil {
		return 0, err
	}
	var runs atomic.Int64
	var wg sync.WaitGroup
	slots := make(chan struct{}, r.opts.Workers)
	for _, p := range due {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil || !r.roomForRun(ctx) {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if r.runDue(ctx, p, log) {
				runs.Add(1)
			}
		})
	}
	wg.Wait()
	return int(runs.Load()), ctx.Err()
}

// roomForRun reports whether ctx leaves a run its whole Timeout, and the
// measure after it its own.
func (r *Reconciler) roomForRun(ctx context.Context) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Until(deadline) >= r.opts.Timeout+MeasureTimeout
}

// runDue reconciles p and logs how it went; it reports whether it ran.
func (r *Reconciler) runDue(ctx context.Context, p accounting.Project, log *slog.Logger) bool {
	run, err := r.RunProject(ctx, p, nil, "")
	if errors.Is(err, ErrRunBusy) {
		return false
	}
	r.logRun(log, p, run, err)
	return true
}

// logRun logs how a run of p went.
func (r *Reconciler) logRun(log *slog.Logger, p accounting.Project, run Run, err error) {
	if err != nil {
		log.Warn("reconciliation failed", "project", p.URL, "run", run.ID, "err", err)
		return
	}
	log.Info("reconciled", "project", p.URL, "status", run.Status, "matched", run.HostsMatched,
		"orphans", run.Orphans, "missing", run.Missing, "duration", run.Duration(r.now()))
}

// Periodic reports whether projects are reconciled periodically (Every is
// not zero): then Cobble's server runs RunDue in a periodic job.
func (r *Reconciler) Periodic() bool { return r.opts.Every != 0 }

// Measure computes the credit fairness measure after runs, and reports
// whether it did; a failure is logged.
func (r *Reconciler) Measure(ctx context.Context, log *slog.Logger) bool {
	ctx, cancel := context.WithTimeout(ctx, MeasureTimeout)
	defer cancel()
	if err := r.Fairness.Measure(ctx); err != nil {
		if ctx.Err() == nil {
			log.Warn("measuring credit fairness failed", "err", err)
		}
		return false
	}
	return true
}

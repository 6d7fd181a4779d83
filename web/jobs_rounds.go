package web

import (
	"cmp"
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/cobble-am/cobble/accounting"
)

// addRounds registers the workers of the periodic rounds, with their
// timeouts.
func (s *Server) addRounds(workers *river.Workers) {
	river.AddWorker(workers, newRound[rollupRound](s, s.rollupCluster))
	river.AddWorker(workers, newRound[reconcileRound](s, s.reconcileDue))
	river.AddWorker(workers, newRound[alertsRound](s, s.queueAlerts))
	river.AddWorker(workers, newRound[cleanupRound](s, s.cleanUp))
	river.AddWorker(workers, newRound[strayMailRound](s, s.enqueueStrayMail))
	river.AddWorker(workers, newRound[statsRound](s, s.exportStats))
}

// newRound makes a round's worker of fn, which gets the round's time.
func newRound[T river.JobArgs](s *Server, fn func(ctx context.Context, now time.Time) error) river.Worker[T] {
	var args T
	return &roundWorker[T]{jobs: s.store.Jobs, fn: fn, timeout: s.timeouts[args.Kind()]}
}

// roundWorker works a periodic round: fn, under the round's lock, within
// the kind's timeout.
type roundWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	jobs    *accounting.JobsStore
	fn      func(ctx context.Context, now time.Time) error
	timeout time.Duration
}

// Timeout is the round's kind's (JobTimeouts): River cancels its work
// then, and its rescuer may take it over after.
func (w *roundWorker[T]) Timeout(*river.Job[T]) time.Duration { return w.timeout }

// Work runs the round, unless another round of its kind holds the lock:
// a round of an earlier period still at work, here or on another
// instance. A round whose instance died holds it no longer.
func (w *roundWorker[T]) Work(ctx context.Context, job *river.Job[T]) error {
	release, held, err := w.jobs.HoldRound(ctx, job.Kind)
	if err != nil || !held {
		return err
	}
	defer release()
	return w.fn(ctx, time.Now())
}

// rollupCluster creates the ledger's partitions for now's month and the
// next ones if they are missing, with --ledger-detail-months drops the
// partitions of older months (keeping per-volunteer totals), and rolls up
// the last two days' credit (and the older days that changed). Rows of a
// month without its partition are kept in the DEFAULT one meanwhile. It
// goes on past a failure, and returns the first: the round's job fails,
// and River keeps it with its error.
func (s *Server) rollupCluster(ctx context.Context, now time.Time) error {
	n, partitions := s.store.Ledger.EnsurePartitions(ctx, now)
	switch {
	case partitions != nil:
		s.log.Warn("creating ledger partitions failed", "err", partitions)
	case n > 0:
		s.log.Info("created ledger partitions", "count", n)
	}
	var retire error
	if s.detail > 0 {
		var n int
		n, retire = s.store.Ledger.RetireLedger(ctx, now, s.detail)
		switch {
		case retire != nil:
			s.log.Warn("dropping old ledger detail failed", "err", retire)
		case n > 0:
			s.log.Info("dropped the per-computer ledger rows of old months", "months", n, "keep_months", s.detail)
		}
	}
	rollup := s.store.Ledger.Rollup(ctx, now.AddDate(0, 0, -1), now)
	if rollup != nil {
		s.log.Warn("rollup failed", "err", rollup)
	}
	return cmp.Or(partitions, retire, rollup)
}

// reconcileDue reconciles the projects that are due.
// Then, when it reconciled a project (or this process has not yet), it
// computes the credit fairness measure from the stored ratios.
func (s *Server) reconcileDue(ctx context.Context, _ time.Time) error {
	runs, err := s.reconciler.RunDue(ctx, s.log)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("reconciliation pass failed", "err", err)
	}
	if runs > 0 || !s.measured.Load() {
		s.measured.Store(s.reconciler.Measure(ctx, s.log))
	}
	return err
}

// queueAlerts queues the alerts that are due, and checks for failing
// computers (their episodes, events and alert mails). It goes on past a
// failure, and returns the first.
func (s *Server) queueAlerts(ctx context.Context, now time.Time) error {
	n, err := s.store.Mail.QueueAlerts(ctx, now)
	switch {
	case err != nil:
		s.log.Warn("mail: queueing alerts", "err", err)
	case n > 0:
		s.log.Info("mail: alerts queued", "messages", n)
	}
	failing := s.store.Computers.CheckFailing(ctx, now)
	if failing != nil {
		s.log.Warn("failing computers: checking", "err", failing)
	}
	return cmp.Or(err, failing)
}

// cleanUp deletes expired rows: the mailed links' tokens, the limits'
// counters of windows that have ended, and expected work older than the
// recent window. It goes on past a failure, and returns the first.
func (s *Server) cleanUp(ctx context.Context, now time.Time) error {
	_, err1 := s.store.Accounts.DeleteExpiredTokens(ctx)
	_, err2 := s.store.Access.PruneAttempts(ctx, now.Add(-attemptsKept))
	err3 := s.store.Sync.PruneExpected(ctx, now)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			s.log.Warn("cleaning expired rows failed", "err", err)
		}
	}
	return cmp.Or(err1, err2, err3)
}

// enqueueStrayMail gives a job to each queued message without one.
func (s *Server) enqueueStrayMail(ctx context.Context, _ time.Time) error {
	n, err := s.store.Mail.EnqueueStrayMail(ctx)
	switch {
	case err != nil:
		s.log.Warn("mail: enqueueing stray messages", "err", err)
	case n > 0:
		s.log.Info("mail: enqueued messages that had no job", "messages", n)
	}
	return err
}

// exportStats builds the statistics export when the one served was built
// statsEvery ago or more (less the round's own period, so that the export
// does not slip by an hour a day), or there is none: a round each hour
// keeps the export daily whenever the leader changes.
func (s *Server) exportStats(ctx context.Context, now time.Time) error {
	last, err := s.store.Stats.LastStatsExport(ctx)
	if err != nil || !last.BuiltAt.IsZero() && now.Sub(last.BuiltAt) < statsEvery-statsCheckEvery {
		return err
	}
	ex, err := s.store.Stats.Export(ctx, now)
	if err != nil {
		s.log.Warn("statistics export failed", "err", err)
		return err
	}
	s.log.Info("statistics export built", "users", ex.Users, "teams", ex.Teams, "hosts", ex.Hosts, "bytes", ex.Bytes)
	return nil
}

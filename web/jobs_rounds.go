package web

import (
	"cmp"
	"context"
	"time"

	"github.com/riverqueue/river"
)

// addRounds registers the workers of the periodic rounds.
func (s *Server) addRounds(workers *river.Workers) {
	river.AddWorker(workers, round[rollupRound](s.rollupCluster))
	river.AddWorker(workers, round[reconcileRound](s.reconcileDue))
	river.AddWorker(workers, round[alertsRound](s.queueAlerts))
	river.AddWorker(workers, round[cleanupRound](s.cleanUp))
	river.AddWorker(workers, round[strayMailRound](s.enqueueStrayMail))
}

// round makes a round's worker of fn, which gets the round's time.
func round[T river.JobArgs](fn func(ctx context.Context, now time.Time) error) river.Worker[T] {
	return river.WorkFunc(func(ctx context.Context, _ *river.Job[T]) error { return fn(ctx, time.Now()) })
}

// rollupCluster creates the ledger's partitions for now's month and the
// next ones if they are missing, with --ledger-detail-months drops the
// partitions of older months (keeping per-volunteer totals), and rolls up
// the last two days' credit (and the older days that changed). Rows of a
// month without its partition are kept in the DEFAULT one meanwhile.
func (s *Server) rollupCluster(ctx context.Context, now time.Time) error {
	n, err := s.store.Ledger.EnsurePartitions(ctx, now)
	switch {
	case err != nil:
		s.log.Warn("creating ledger partitions failed", "err", err)
	case n > 0:
		s.log.Info("created ledger partitions", "count", n)
	}
	if s.detail > 0 {
		n, err := s.store.Ledger.RetireLedger(ctx, now, s.detail)
		switch {
		case err != nil:
			s.log.Warn("dropping old ledger detail failed", "err", err)
		case n > 0:
			s.log.Info("dropped the per-computer ledger rows of old months", "months", n, "keep_months", s.detail)
		}
	}
	if err := s.store.Ledger.Rollup(ctx, now.AddDate(0, 0, -1), now); err != nil {
		s.log.Warn("rollup failed", "err", err)
		return err
	}
	return nil
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
			return err
		}
	}
	return nil
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

package web

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/cobble-am/cobble/accounting"
)

// The cluster-wide periodic rounds, River jobs without arguments: the
// elected leader among the instances inserts one per period, and any
// instance works it (jobs_rounds.go).
type (
	rollupRound    struct{} // the daily rollups, the ledger's partitions and retention
	reconcileRound struct{} // the reconciliations that are due
	alertsRound    struct{} // the silence alerts and weekly summaries that are due
	cleanupRound   struct{} // expired links, limits' counters and expected work
	strayMailRound struct{} // a job for each queued message without one
)

func (rollupRound) Kind() string    { return "rollup_round" }
func (reconcileRound) Kind() string { return "reconcile_round" }
func (alertsRound) Kind() string    { return "alerts_round" }
func (cleanupRound) Kind() string   { return "cleanup_round" }
func (strayMailRound) Kind() string { return "stray_mail_round" }

// roundOpts are the insert options of every round: tried once (a failed
// round is kept as discarded, with its error, and the next period brings
// the next round), and never queued twice, so that a slow round is not
// followed by a pile of others.
var roundOpts = &river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true,
	ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
		rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}}}

// periodic returns the periodic job of a round every period, the first at
// once when an instance becomes the leader.
func periodic[T river.JobArgs](period time.Duration) *river.PeriodicJob {
	var args T
	return river.NewPeriodicJob(river.PeriodicInterval(period),
		func() (river.JobArgs, *river.InsertOpts) { return args, roundOpts },
		&river.PeriodicJobOpts{ID: args.Kind(), RunOnStart: true})
}

// Bounds of the job queue's work on one instance.
const (
	roundWorkers = 4 // rounds at once: a slow reconciliation does not hold up the rollup
	mailWorkers  = 4 // messages sent at once
	// jobsStop is how long Serve waits, when it stops, for running jobs
	// to finish before it cancels them.
	jobsStop = 10 * time.Second
	// jobsKept is how long finished jobs stay in river_job.
	jobsKept = 24 * time.Hour
)

// newJobs returns the instance's River client: it works the rounds, and
// the mail queue when the instance sends mail, and takes part in the
// election of the leader that inserts the periodic rounds.
func (s *Server) newJobs(pool *pgxpool.Pool, poll time.Duration) (*river.Client[pgx.Tx], error) {
	workers := river.NewWorkers()
	s.addRounds(workers)
	queues := map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: roundWorkers}}
	if s.mailer != nil {
		river.AddWorker(workers, &mailWorker{m: s.mailer})
		queues[accounting.MailQueueName] = river.QueueConfig{MaxWorkers: mailWorkers}
	}
	periodics := []*river.PeriodicJob{periodic[rollupRound](rollupEvery), periodic[alertsRound](s.alerts),
		periodic[cleanupRound](cleanupEvery), periodic[strayMailRound](strayMailEvery)}
	if s.reconciler.Periodic() {
		periodics = append(periodics, periodic[reconcileRound](reconcileCheckEvery))
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Workers: workers, Queues: queues, PeriodicJobs: periodics,
		FetchPollInterval: poll, FetchCooldown: min(poll, 100*time.Millisecond),
		JobTimeout:                  -1, // each job bounds its own work
		CompletedJobRetentionPeriod: jobsKept,
		Logger:                      slog.New(warnings{s.log.Handler()}),
	})
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	return client, nil
}

// stopJobs stops the job queue: running jobs get jobsStop to finish, then
// they are cancelled.
func (s *Server) stopJobs() {
	ctx, cancel := context.WithTimeout(context.Background(), jobsStop)
	defer cancel()
	if err := s.jobs.Stop(ctx); err == nil {
		return
	}
	ctx, cancel = context.WithTimeout(context.Background(), jobsStop)
	defer cancel()
	if err := s.jobs.StopAndCancel(ctx); err != nil {
		s.log.Warn("stopping the job queue", "err", err)
	}
}

// warnings passes on only the warnings and errors of River's log: its
// news of elections and jobs worked are not the operator's.
type warnings struct{ slog.Handler }

// Enabled passes warnings and errors.
func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

// WithAttrs keeps the filter on a logger with attributes.
func (w warnings) WithAttrs(as []slog.Attr) slog.Handler { return warnings{w.Handler.WithAttrs(as)} }

// WithGroup keeps the filter on a logger with a group.
func (w warnings) WithGroup(name string) slog.Handler { return warnings{w.Handler.WithGroup(name)} }

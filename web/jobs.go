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
	statsRound     struct{} // the statistics export, when the one served is a day old
)

func (rollupRound) Kind() string    { return "rollup_round" }
func (reconcileRound) Kind() string { return "reconcile_round" }
func (alertsRound) Kind() string    { return "alerts_round" }
func (cleanupRound) Kind() string   { return "cleanup_round" }
func (strayMailRound) Kind() string { return "stray_mail_round" }
func (statsRound) Kind() string     { return "stats_round" }

// roundOpts are the insert options of a round run every period: tried
// once (a failed round is kept as discarded, with its error, and the next
// period brings the next round), and queued once a period, so that a slow
// round is not followed by a pile of others. A round is not unique while
// it runs, though: one that its instance took to its grave would stay
// running in River's table until the rescuer discards it, past its
// timeout, and would keep every next round out until then. Instead, each
// round holds its kind's lock while it works (roundWorker), which a dead
// instance's session gives up at once; a round that finds the lock held
// ends at once.
// (River's periods of uniqueness are a second at least: tests run rounds
// more often.)
func roundOpts(period time.Duration) *river.InsertOpts {
	return &river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: max(period, time.Second),
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
			rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}}}
}

// periodic returns the periodic job of a round every period, the first at
// once when an instance becomes the leader.
func periodic[T river.JobArgs](period time.Duration) *river.PeriodicJob {
	var args T
	opts := roundOpts(period)
	return river.NewPeriodicJob(river.PeriodicInterval(period),
		func() (river.JobArgs, *river.InsertOpts) { return args, opts },
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
	// jobsRescueAfter is River's RescueStuckJobsAfter: a job still running
	// this long after it started, and past its kind's timeout
	// (JobTimeouts), is one its instance will not finish (the instance
	// died, or the job ignored its timeout): River's rescuer, which looks
	// every 30 s, makes it retryable, or discards it at its last attempt
	// (a round). A message is then sent by the job's next run, once the
	// dead sender's claim has run out (mail.go).
	jobsRescueAfter = time.Minute
)

// The timeouts of the rounds whose work no option bounds: what each can
// take, with room to spare.
const (
	// rollupTimeout: a round folds the last days in seconds, but the first
	// round after a migration that marks every day folds them all.
	rollupTimeout    = time.Hour
	alertsTimeout    = 15 * time.Minute // the alerts and summaries due, the failing computers
	cleanupTimeout   = 15 * time.Minute // deleting expired rows
	strayMailTimeout = 5 * time.Minute  // giving up to 1,000 messages a job
	statsTimeout     = 30 * time.Minute // the statistics export: 2 minutes at 100,000 volunteers listed
)

// JobTimeouts are the timeouts of the job kinds a server with cfg runs.
// A message's is its delivery's (MailConfig.Timeout) and the claiming and
// recording around it (mailJobTimeout); the reconciliation round's is
// the longest its runs, downloads and scans included, and the fairness
// measure after them can take (reconcile.Options.RoundTimeout); the
// other rounds' are constants. 'cobble ledger check' reads them with the
// defaults, which no option of cobble serve changes.
func JobTimeouts(cfg Config) accounting.JobTimeouts {
	return accounting.JobTimeouts{
		accounting.MailJob{}.Kind(): mailJobTimeout(cmpDur(cfg.Mail.Timeout, DefaultMailTimeout)),
		rollupRound{}.Kind():        rollupTimeout,
		reconcileRound{}.Kind():     cfg.Reconcile.RoundTimeout(),
		alertsRound{}.Kind():        alertsTimeout,
		cleanupRound{}.Kind():       cleanupTimeout,
		strayMailRound{}.Kind():     strayMailTimeout,
		statsRound{}.Kind():         statsTimeout,
	}
}

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
		periodic[cleanupRound](cleanupEvery), periodic[strayMailRound](strayMailEvery),
		periodic[statsRound](statsCheckEvery)}
	if s.reconciler.Periodic() {
		periodics = append(periodics, periodic[reconcileRound](reconcileCheckEvery))
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Workers: workers, Queues: queues, PeriodicJobs: periodics,
		FetchPollInterval: poll, FetchCooldown: min(poll, 100*time.Millisecond),
		// Each kind's worker states its timeout (JobTimeouts); this is
		// the default of a kind that would not.
		JobTimeout:                  jobsRescueAfter,
		RescueStuckJobsAfter:        jobsRescueAfter,
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

package web

import "time"

// How often Cobble's background work runs: every period in one place.
// Cluster-wide work is a River periodic job, run once per period by the
// elected leader among the instances (jobs.go); an instance's own work
// runs on each instance through every.Loop (Serve).
const (
	// Cluster-wide (River periodic jobs).

	// rollupEvery is the rollup round's: the daily rollups, the ledger's
	// coming partitions and, with --ledger-detail-months, its retention.
	rollupEvery = time.Minute
	// reconcileCheckEvery is how often the reconciliations that are due
	// (their project's --reconcile-every passed) are started.
	reconcileCheckEvery = time.Minute
	// DefaultAlertsEvery is Config.AlertsEvery's default: how often the
	// silence alerts and weekly summaries that are due are queued.
	DefaultAlertsEvery = 10 * time.Minute
	// cleanupEvery is how often expired rows are deleted: links' tokens,
	// the limits' counters, old expected work.
	cleanupEvery = 10 * time.Minute
	// strayMailEvery is how often queued messages without a River job get
	// one (accounting.MailStore.EnqueueStrayMail).
	strayMailEvery = time.Minute
	// statsEvery is how often the statistics export is built
	// (docs/STATISTICS.md); statsCheckEvery, how often a round looks
	// whether it is due.
	statsEvery      = 24 * time.Hour
	statsCheckEvery = time.Hour

	// Each instance's own (every.Loop).

	// countsEvery is how often the instance's RPC counts go into the hourly
	// counters, and its credit metrics are read.
	countsEvery = time.Minute
	// recentWorkEvery is how often the recent work that balances project
	// shares is read.
	recentWorkEvery = 10 * time.Minute
	// replicaEvery is how often the read replica's lag is measured.
	replicaEvery = 2 * time.Second
	// primaryEvery is how often each instance checks which server is the
	// primary, beside the checks /readyz makes.
	primaryEvery = 2 * time.Second
	// DefaultMailRetryAfter is MailConfig.RetryAfter's default: the wait
	// after a message's first failed delivery, doubled after each next.
	DefaultMailRetryAfter = time.Minute
	// DefaultMailPoll is MailConfig.Poll's default: how often an instance
	// that sends mail looks for jobs it was not told of.
	DefaultMailPoll = 2 * time.Second
)

// attemptsKept is how long the counters of the guessing and sign-up
// limits are kept: past their longest window (an hour).
const attemptsKept = 2 * time.Hour

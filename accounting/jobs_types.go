package accounting

import "time"

// JobProblem is a job of the job queue (River, migration 021) that needs
// a look: stuck, or failed.
type JobProblem struct {
	ID      int64
	Kind    string // what the job does: "mail", "rollup_round", …
	Queue   string
	State   string // River's state: running, available, retryable, discarded, cancelled, …
	Attempt int    // how many times it was tried
	// At is when a stuck job started its run (running) or was due
	// (waiting), or when a failed one ended.
	At    time.Time
	Error string // its last error; empty if it had none
}

// JobHealth is the job queue at a glance.
type JobHealth struct {
	// Stuck are the jobs running for longer than their kind's timeout
	// (JobTimeouts; JobStuckAfter for another kind), or due for longer
	// than JobLateAfter without an instance taking them.
	Stuck []JobProblem
	// Failed are the jobs given up (discarded or cancelled) in the last
	// JobFailedWithin: rounds that failed, messages given up.
	Failed []JobProblem
}

// OK reports whether no job is stuck or failed.
func (h JobHealth) OK() bool { return len(h.Stuck) == 0 && len(h.Failed) == 0 }

// JobTimeouts are the job kinds' timeouts, by kind: River cancels a run
// past its kind's timeout, and its rescuer takes a job over from an
// instance that died once both its timeout and the rescue delay have
// passed (web/jobs.go). A job still running past its timeout is stuck.
type JobTimeouts map[string]time.Duration

// The bounds of JobHealth.
const (
	// JobStuckAfter is how long a job of a kind JobTimeouts does not name
	// may run.
	JobStuckAfter   = time.Hour
	JobLateAfter    = 15 * time.Minute // as long as a message may wait (MailLate)
	JobFailedWithin = 24 * time.Hour
	jobsListed      = 50 // the most jobs of each list
)

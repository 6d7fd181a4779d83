package reconcile

import (
	"errors"
	"time"
)

// RunStatus is how a reconciliation run ended.
type RunStatus string

// A run is running until it ends ok, unchanged (the export was the one
// already read) or failed (nothing was stored; Error says why). A run
// whose process died while it ran is marked abandoned by the next runner
// of its project.
const (
	RunRunning   RunStatus = "running"
	RunOK        RunStatus = "ok"
	RunUnchanged RunStatus = "unchanged"
	RunFailed    RunStatus = "failed"
	RunAbandoned RunStatus = "abandoned"
)

// Run is one reconciliation of one project with its credit export.
type Run struct {
	ID           int64
	ProjectID    int64
	StartedAt    time.Time
	FinishedAt   *time.Time
	Status       RunStatus
	Source       string
	ExportTime   *time.Time
	HostsScanned int64
	HostsMatched int64
	Orphans      int64
	Missing      int64
	Error        string
	// RatiosFrom–RatiosTo is the window of the host ratios stored with a
	// successful run (nil when none are), and the rest their summary.
	RatiosFrom, RatiosTo         *time.Time
	RatioHosts                   *int64
	RatioEstimated, RatioGranted *float64
	RatioMedian                  *float64
}

// Duration is how long the run took (so far, while it runs).
func (r Run) Duration(now time.Time) time.Duration {
	if r.FinishedAt != nil {
		return r.FinishedAt.Sub(r.StartedAt)
	}
	return now.Sub(r.StartedAt)
}

// ErrRunBusy means another runner is reconciling the project right now.
var ErrRunBusy = errors.New("another reconciliation of this project is running")

package accounting

import (
	"slices"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// FailureKind names what a failing computer does wrong on a project.
type FailureKind string

// The failures Cobble watches for, per (computer, project).
const (
	// FailureJobs: many of the jobs it reported over the window failed.
	FailureJobs FailureKind = "jobs_failing"
	// FailureNothingGranted: it reported work, but the project's last
	// exports granted it nothing.
	FailureNothingGranted FailureKind = "nothing_granted"
	// FailureProjectSilent: Cobble hears from it, but the project's
	// export says it has not contacted the project for days.
	FailureProjectSilent FailureKind = "project_silent"
)

// FailingThresholds decide when a computer is failing on a project. The
// zero value of each field takes its default (withDefaults).
type FailingThresholds struct {
	// Window is how far back job counts are summed (default 3 days).
	Window time.Duration
	// MinFailed is the fewest failed jobs in the window that can make a
	// warning (default 3).
	MinFailed int64
	// FailedShare is the share of failed jobs among all jobs reported in
	// the window at or above which the computer is failing (default 0.5).
	FailedShare float64
	// FlatExports is how many of a project's latest exports must grant the
	// computer nothing while Cobble credited it work (default 3).
	FlatExports int
	// ProjectSilent is how old the export's last scheduler contact
	// (rpc_time) must be (default 7 days) while Cobble heard from the
	// computer within CobbleHeard (default 1 day).
	ProjectSilent time.Duration
	CobbleHeard   time.Duration
}

// DefaultFailingThresholds are the thresholds that zero fields take.
func DefaultFailingThresholds() FailingThresholds { return FailingThresholds{}.withDefaults() }

// withDefaults returns t with each zero field at its default.
func (t FailingThresholds) withDefaults() FailingThresholds {
	const day = 24 * time.Hour
	if t.Window <= 0 {
		t.Window = 3 * day
	}
	if t.MinFailed <= 0 {
		t.MinFailed = 3
	}
	if t.FailedShare <= 0 || t.FailedShare > 1 {
		t.FailedShare = 0.5
	}
	if t.FlatExports <= 1 {
		t.FlatExports = 3
	}
	if t.ProjectSilent <= 0 {
		t.ProjectSilent = 7 * day
	}
	if t.CobbleHeard <= 0 {
		t.CobbleHeard = day
	}
	return t
}

// Failure is a failing (computer, project): an episode that began at
// Since and lasts until its condition clears.
type Failure struct {
	HostID      int64
	HostLabel   string
	ProjectID   int64
	ProjectName string
	Kind        FailureKind
	Since       time.Time
	Detail      FailureDetail
}

// FailureDetail is what the check saw when an episode began.
type FailureDetail struct {
	Failed    int64      `json:"failed,omitempty"`    // failed jobs in the window (jobs_failing)
	Jobs      int64      `json:"jobs,omitempty"`      // all jobs in the window (jobs_failing)
	Estimated float64    `json:"estimated,omitempty"` // credit Cobble counted meanwhile (nothing_granted)
	Exports   int        `json:"exports,omitempty"`   // the flat exports (nothing_granted)
	LastRPC   *time.Time `json:"last_rpc,omitempty"`  // the export's rpc_time (project_silent)
}

// WarningFailing is a computer failing on a project (Failure).
const WarningFailing WarningKind = "failing"

// Warning says what fails, since when, and what to do about it.
func (f Failure) Warning() Warning {
	d := f.Detail
	var m locale.Msg
	switch f.Kind {
	case FailureJobs:
		m = locale.M("failing.warning_jobs", "Computer", f.HostLabel, "Project", f.ProjectName,
			"Failed", d.Failed, "Jobs", d.Jobs)
	case FailureNothingGranted:
		m = locale.M("failing.warning_nothing_granted", "Computer", f.HostLabel, "Project", f.ProjectName,
			"Exports", d.Exports, "Credit", locale.Credit(d.Estimated))
	default:
		var when any = "–"
		if d.LastRPC != nil {
			when = d.LastRPC.UTC().Format(time.DateOnly)
		}
		m = locale.M("failing.warning_project_silent", "Computer", f.HostLabel, "Project", f.ProjectName, "When", when)
	}
	return Warning{Kind: WarningFailing, Msg: m}
}

// FailingWarnings are the warnings of failures fs.
func FailingWarnings(fs []Failure) []Warning {
	ws := make([]Warning, len(fs))
	for i, f := range fs {
		ws[i] = f.Warning()
	}
	return ws
}

// WarningsWithFailures are Warnings followed by the failures' warnings.
// A computer failing on its tasks (FailureJobs) says so with its own
// count, so the warning over all computers' last 7 days, with other
// numbers, is left out then: one warning, one count.
func WarningsWithFailures(computers []Computer, s Summary, now time.Time, fs []Failure) []Warning {
	ws := Warnings(computers, s, now)
	for _, f := range fs {
		if f.Kind == FailureJobs {
			ws = slices.DeleteFunc(ws, func(w Warning) bool { return w.Kind == WarningFailures })
			break
		}
	}
	return append(ws, FailingWarnings(fs)...)
}

package accounting

import (
	"maps"
	"sync"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// Counters are the six counters in whole units: estimated credit in
// Cobblestones, run time in instance-seconds, job counts. A client reports
// them as lifetime totals for one (host, project); DayCredit sums them over
// a day. Usage holds the same amounts exactly, in micro-units, for
// arithmetic. Their JSON and column names are UsageFields' names.
type Counters struct {
	CPUEC       float64 `json:"cpu_ec" db:"cpu_ec"`
	CPUTime     float64 `json:"cpu_time" db:"cpu_time"`
	GPUEC       float64 `json:"gpu_ec" db:"gpu_ec"`
	GPUTime     float64 `json:"gpu_time" db:"gpu_time"`
	JobsSuccess int64   `json:"njobs_success" db:"njobs_success"`
	JobsError   int64   `json:"njobs_error" db:"njobs_error"`
}

// Credit returns the estimated credit, CPU plus GPU, in Cobblestones.
func (c Counters) Credit() float64 { return estimatedCredit(c.CPUEC, c.GPUEC) }

// ProjectReport is what a client says about one project it is attached to.
type ProjectReport struct {
	URL           string
	AttachedViaAM bool
	HostID        int64     // the project's own id for this host; 0 if none yet
	Counters      *Counters // nil when the request carried none
}

// SyncRequest is one account-manager RPC, decoded.
type SyncRequest struct {
	// Authenticator, when set, is the AM token a previous reply handed out;
	// otherwise Email and PasswordHash (BOINC's md5 of password and email) are.
	Authenticator string
	Email         string
	PasswordHash  string
	HostToken     string // from the request's <opaque>, if any
	Host          HostReport
	Projects      []ProjectReport
	Now           time.Time
	ignored       int // projects beyond MaxRequestProjects, not read
}

// SyncResult is what the reply to an RPC needs.
type SyncResult struct {
	User          User
	Authenticator string // the AM token the client should use from now on
	HostID        int64
	HostToken     string
	Assignments   []Assignment
	// Unknown lists projects Cobble attached the host to that are no longer
	// in the catalog: the client is asked to detach from them.
	Unknown []string
	// Credit is the volunteer's estimated credit per project ID, over all
	// their hosts, this RPC included.
	Credit map[int64]ProjectCredit
	// Resume holds, for projects the host is asked to attach to anew, the
	// counters it had there before, so that clients which accept them
	// continue from those instead of from zero.
	Resume map[int64]Counters
	// Messages are notices for the volunteer, shown by the client, to be
	// written in their language.
	Messages []locale.Msg
	// Prefs are the compute preferences the host is sent (see hostPrefs):
	// Default's, or its location's when Default's were never chosen, with
	// the modification time of what the host is sent; nil when the host
	// is at Default and the volunteer never chose (the client keeps its
	// own, and Venues and HostVenue are empty).
	Prefs *ComputePrefs
	// Venues are the host's named location, if it is at one: no other
	// location's values reach it.
	Venues []Venue
	// HostVenue is the venue of the host's location: the Venues name, or
	// DefaultVenue.
	HostVenue string
	// Keywords are the volunteer's yes/no per keyword id.
	Keywords map[int]KeywordAnswer
	// FeedToken is the volunteer's notices-feed token, read with the host
	// in the steady state; "" when this RPC did not read it.
	FeedToken string
	// Pause is what the reply says to every project of the computer:
	// wind down, pause, or resume what an earlier pause suspended.
	Pause PauseReply
}

// ProjectCredit is a volunteer's estimated credit on one project.
type ProjectCredit struct {
	Total float64 // Cobblestones, lifetime
	Avg   float64 // recent average per day (one-week half-life)
}

// RecentWork is Cobble's recent work per project, in Cobblestones per day:
// the estimated credit of the last seven days from the ledger, read
// periodically (never per RPC), plus the work expected from hosts given a
// project since, until the ledger shows it. Without that expectation every
// host joining between two reads would go to the same project. Every
// instance records its expectations in the database too (work_expected,
// sync_expected.go) and reads all of them before a new host's RPC, so
// that instances on one database balance as one. It is safe for
// concurrent use; the zero value knows nothing.
type RecentWork struct {
	mu       sync.Mutex
	base     map[int64]float64 // per project, from the ledger as of readAt
	readAt   time.Time
	expected map[int64]map[time.Time]float64 // per project and hour: Cobblestones per day
	cached   map[int64]float64               // Fractions, until Set or Expect
}

// Set replaces the ledger's figures (Cobblestones per day per project over
// the last seven days) read at now.
func (w *RecentWork) Set(perDay map[int64]float64, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.base, w.readAt, w.cached = perDay, now, nil
	for id, es := range w.expected {
		maps.DeleteFunc(es, func(at time.Time, _ float64) bool { return now.Sub(at) >= recentWindow })
		if len(es) == 0 {
			delete(w.expected, id)
		}
	}
}

// Expect records that from now on a host gives each project the rate of
// work in rates (Cobblestones per day). Expectations are kept per hour.
func (w *RecentWork) Expect(rates map[int64]float64, now time.Time) {
	if len(rates) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.expected == nil {
		w.expected = map[int64]map[time.Time]float64{}
	}
	hour := now.Truncate(time.Hour)
	for id, r := range rates {
		if w.expected[id] == nil {
			w.expected[id] = map[time.Time]float64{}
		}
		w.expected[id][hour] += r
	}
	w.cached = nil
}

// SetExpected replaces the expectations with expected (per project and
// hour, Cobblestones per day): those every instance on the database
// recorded, read from it.
func (w *RecentWork) SetExpected(expected map[int64]map[time.Time]float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expected, w.cached = expected, nil
}

// Fractions returns each project's fraction of the recent work, or nil
// when there is none. An expectation counts in full until the ledger was
// read after it, then less as the ledger's seven days take it in. The
// result is shared: callers must not modify it.
func (w *RecentWork) Fractions() map[int64]float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cached == nil {
		w.cached = w.fractions()
	}
	return w.cached
}

func (w *RecentWork) fractions() map[int64]float64 {
	work := make(map[int64]float64, len(w.base)+len(w.expected))
	total := 0.0
	for id, v := range w.base {
		work[id] += v
		total += v
	}
	for id, es := range w.expected {
		for at, rate := range es {
			seen := min(max(w.readAt.Sub(at).Seconds()/recentWindow.Seconds(), 0), 1)
			work[id] += rate * (1 - seen)
			total += rate * (1 - seen)
		}
	}
	if total <= 0 {
		return map[int64]float64{}
	}
	for id := range work {
		work[id] /= total
	}
	return work
}

// MaxRequestProjects is the most projects Cobble looks at in one request.
// BOINC clients are attached to a few dozen at most; a longer list is cut,
// so that no request costs much more than an ordinary one.
const MaxRequestProjects = 100

// projectCredit is a volunteer's credit on one project.
type projectCredit struct {
	Total float64 // Cobblestones
	Avg   float64 // recent average per day, as of now
}

package accounting

import (
	"strconv"
	"strings"
	"time"
)

// Micro is an amount in millionths, as the ledger keeps it.
type Micro int64

// String prints m exactly as a decimal: "12.5", "0.000001", "3".
func (m Micro) String() string {
	sign := ""
	u := uint64(m)
	if m < 0 {
		sign, u = "-", uint64(-m)
	}
	whole, frac := strconv.FormatUint(u/1e6, 10), strconv.FormatUint(u%1e6+1e6, 10)[1:]
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		return sign + whole
	}
	return sign + whole + "." + frac
}

// ExportRow is one (day, computer, project) of a volunteer's history.
type ExportRow struct {
	Day          time.Time
	ComputerID   int64
	ComputerName string // its nickname, else the name its client reports
	ProjectURL   string
	ProjectName  string
	Estimated    Micro // credited, CPU plus GPU
	CPUTime      Micro // seconds
	GPUTime      Micro
	JobsOK       int64
	JobsError    int64
	Clamped      Micro
	Confirmed    Micro
}

// Partition is one month partition of a ledger table.
type Partition struct {
	Table string    // "ledger" or "confirmed_ledger"
	Name  string    // the partition's table name
	Month time.Time // its first day, midnight UTC
}

// TotalsDifference is one stored total that did not match the ledger.
type TotalsDifference struct {
	HostID, ProjectID int64
	Field             string // a UsageField's Name, e.g. "cpu_ec"
	Stored, Ledger    float64
}

// RebuildReport says what RebuildTotals checked and found.
type RebuildReport struct {
	Pairs       int64 // (host, project) rows checked
	Differences []TotalsDifference
	// Rows of the ledger and of the confirmed ledger in their DEFAULT
	// partitions: months without a partition yet (EnsurePartitions moves
	// them). Counted, not corrected.
	DefaultLedger, DefaultConfirmed int64
	// Rollup rows that differ from the ledger's sums, on days the next
	// rollup round would not fold again (at most maxRollupDifferences).
	Rollups []RollupDifference
}

// RollupDifference is a rollup row that differs from the ledger's sums.
type RollupDifference struct {
	UserID    int64     // 0 for the per-project and per-day rollups
	ProjectID int64     // 0 for the per-day rollup and the teams'
	TeamID    int64     // the team's rollup (rollup_team_days), or 0
	Day       time.Time // zero for a team's totals (Column total_…)
	Column    string
	Rollup    int64 // -1: no rollup row
	Ledger    int64 // -1: no ledger rows
}

// ProjectDay is one project's rolled-up ledger on one day.
type ProjectDay struct {
	ProjectID   int64
	Day         time.Time // midnight UTC
	Credit      float64   // estimated credit accepted, in Cobblestones
	Clamped     float64   // estimated credit clamped
	Granted     float64   // credit the project granted (confirmed)
	TimeSeconds float64   // CPU and GPU time
	JobsSuccess int64
	JobsError   int64
	Hosts       int64 // hosts with a ledger row that day
	ClampedJobs int64
	ClampedTime float64 // time clamped, in seconds
}

// DayCredit is estimated credit and work summed over one calendar day.
type DayCredit struct {
	Day time.Time `db:"day"` // midnight UTC of the day
	Counters
	ClampedEC float64 `db:"clamped_ec"` // credit claimed beyond the limits, not credited
}

// Totals sums a volunteer's ledger over some days.
type Totals struct {
	Estimated float64 `db:"estimated"` // credited estimate, CPU plus GPU, Cobblestones
	Confirmed float64 `db:"confirmed"` // credit the projects granted (lags by days)
	CPUHours  float64 `db:"cpu_hours"`
	GPUHours  float64 `db:"gpu_hours"`
	JobsOK    int64   `db:"jobs_ok"`
	JobsError int64   `db:"jobs_error"`
	Clamped   float64 `db:"clamped"` // claimed beyond the limits, not credited
}

// Summary is a volunteer's totals over the periods the dashboard shows.
// Days are the ledger's days in the volunteer's time zone.
type Summary struct {
	Today, Yesterday, Last7, Last30, AllTime Totals
}

// HistoryDay is one project's share of one day of a volunteer's (or one of
// their computers') history.
type HistoryDay struct {
	Day         time.Time `db:"day"` // midnight UTC of the ledger's day
	ProjectID   int64     `db:"project_id"`
	ProjectName string    `db:"project_name"`
	CPUEC       float64   `db:"cpu_ec"` // Cobblestones
	GPUEC       float64   `db:"gpu_ec"`
	CPUHours    float64   `db:"cpu_hours"`
	GPUHours    float64   `db:"gpu_hours"`
	JobsOK      int64     `db:"jobs_ok"`
	JobsError   int64     `db:"jobs_error"`
	Clamped     float64   `db:"clamped"`
	Confirmed   float64   `db:"confirmed"`
}

// Estimated is the day's credited estimate, CPU plus GPU.
func (d HistoryDay) Estimated() float64 { return estimatedCredit(d.CPUEC, d.GPUEC) }

// Add returns d with e's amounts added to its own; d's day and project stay.
func (d HistoryDay) Add(e HistoryDay) HistoryDay {
	d.CPUEC, d.GPUEC, d.Confirmed = d.CPUEC+e.CPUEC, d.GPUEC+e.GPUEC, d.Confirmed+e.Confirmed
	d.CPUHours, d.GPUHours = d.CPUHours+e.CPUHours, d.GPUHours+e.GPUHours
	d.JobsOK, d.JobsError, d.Clamped = d.JobsOK+e.JobsOK, d.JobsError+e.JobsError, d.Clamped+e.Clamped
	return d
}

// RPC outcomes, as counted per hour and in the metrics.
const (
	OutcomeOK          = "ok"          // a reply with projects
	OutcomeErrorReply  = "error_reply" // a reply with an error for the volunteer
	OutcomeUnavailable = "unavailable" // HTTP 503: the client retries later
)

// PartitionsAhead is how many months after the current one EnsurePartitions
// keeps partitions for.
const PartitionsAhead = 2

// LedgerRows are credit changes of one host of one volunteer, to be added
// to the ledger's days by the ledger's one writer (LedgerRows.Queue,
// ledger_write.go).
type LedgerRows struct {
	hostID, userID int64
	projects       []int64
	days           []time.Time
	cols           [12][]int64 // the amounts, then the clamped amounts, in UsageFields' order
}

// NewLedgerRows starts the rows of hostID, of the volunteer userID.
func NewLedgerRows(hostID, userID int64) *LedgerRows {
	return &LedgerRows{hostID: hostID, userID: userID}
}

// Add adds credited and clamped amounts of projectID on day (midnight UTC
// of the calendar day).
func (r *LedgerRows) Add(projectID int64, day time.Time, credited, clamped Usage) {
	r.projects, r.days = append(r.projects, projectID), append(r.days, day)
	for i, v := range credited.fields() {
		r.cols[i] = append(r.cols[i], *v)
	}
	for i, v := range clamped.fields() {
		r.cols[6+i] = append(r.cols[6+i], *v)
	}
}

// HostEvents are what accounting noticed about one host of one volunteer
// (resets, clamped claims, credit decreases, ...), to be recorded by the
// ledger's one writer (HostEvents.Queue, ledger_write.go).
type HostEvents struct {
	userID, hostID int64
	at             []time.Time
	projects       []*int64
	kinds, details []string
}

// NewHostEvents starts the events of hostID, of the volunteer userID.
func NewHostEvents(userID, hostID int64) *HostEvents {
	return &HostEvents{userID: userID, hostID: hostID}
}

// Add adds an event of kind, at at, about projectID (nil: the host as a
// whole), with its detail; an error when the detail cannot be written (a
// number that is not finite), and then nothing is added.
func (e *HostEvents) Add(projectID *int64, at time.Time, kind EventKind, detail EventDetail) error {
	d, err := detail.marshal()
	if err != nil {
		return err
	}
	e.at, e.projects = append(e.at, at), append(e.projects, projectID)
	e.kinds, e.details = append(e.kinds, string(kind)), append(e.details, string(d))
	return nil
}

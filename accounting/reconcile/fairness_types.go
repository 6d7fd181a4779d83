package reconcile

import "time"

// The fairness measure (docs/CREDIT.md) compares, over a window, the
// credit projects grant with the credit Cobble estimated for the same
// verified hosts. This file holds its types; fairness_math.go its pure
// arithmetic; fairness_*.go the rest.

// FairnessWindows are the windows, in days, the measure is kept for.
var FairnessWindows = []int{30, 90}

// Thresholds of the measure: a project, pair or group of hosts with fewer
// than MinFairHosts hosts or MinFairVolunteers volunteers shows no
// figures; a host counts only with at least MinFairEstimated Cobblestones
// estimated in the window; a host is above the cheat bound when its ratio
// exceeds CheatBound × its project's median.
const (
	MinFairHosts      = 20
	MinFairVolunteers = 5
	MinFairEstimated  = 50.0
	CheatBound        = 1.1
)

// CreditHost is one verified host's credit on one project over a window:
// what the measure is computed from.
type CreditHost struct {
	ProjectID, UserID, HostID int64
	Estimated                 float64 // estimated credit, CPU plus GPU
	EstimatedGPU              float64 // the GPU part of Estimated
	CPUHours, GPUHours        float64
	Granted                   float64 // credit the project's exports confirmed
}

// Ratio is granted ÷ estimated; 0 when nothing was estimated.
func (h CreditHost) Ratio() float64 {
	if h.Estimated <= 0 {
		return 0
	}
	return h.Granted / h.Estimated
}

// Interval is a range of values, Low to High.
type Interval struct{ Low, High float64 }

// ProjectFairness is one project's figures over a window. When Enough is
// false (fewer hosts or volunteers than the thresholds), only the counts
// are set.
type ProjectFairness struct {
	Window     int // days
	ProjectID  int64
	URL, Name  string
	Hosts      int // verified hosts with enough estimated credit
	Volunteers int
	Exports    int // the project's exports read in the window
	Enough     bool
	Median     float64  // the median host ratio, granted ÷ estimated
	CI95       Interval // a 95 % bootstrap interval of Median
	IQR        Interval // the host ratios' quartiles
	// Position is Median ÷ the median of the projects' medians (among
	// projects with enough data): 1 is the median project.
	Position float64
	// ShareAbove is the share of hosts whose ratio exceeds CheatBound ×
	// Median.
	ShareAbove float64
	// The device figures compare hosts that did most of their work on a
	// GPU with hosts that used none; GPUvsCPU and the per-hour figures are
	// nil when either group is below the thresholds.
	GPUHosts, CPUHosts int
	GPUvsCPU           *float64 // median ratio of GPU hosts ÷ that of CPU-only hosts
	PerCPUHour         *float64 // median granted credit per CPU-hour, CPU-only hosts
	PerGPUHour         *float64 // median granted credit per GPU-hour, GPU hosts
}

// PairFairness compares two projects over a window, from the hosts
// verified on both: the median of (ratio on A ÷ ratio on B). Median and
// CI95 are set only when Enough.
type PairFairness struct {
	A, B       int64 // project ids
	AURL, BURL string
	AName      string
	BName      string
	Hosts      int
	Volunteers int
	Enough     bool
	Median     float64
	CI95       Interval
}

// Fairness is the measure over one window, as last computed.
type Fairness struct {
	WindowDays int
	ComputedAt time.Time // zero when never computed
	Hosts      int       // verified hosts counted, over all projects
	Volunteers int
	Projects   []ProjectFairness
	Pairs      []PairFairness
}

// Pair returns the pair a ÷ b, if the measure has it.
func (f Fairness) Pair(a, b int64) (PairFairness, bool) {
	for _, p := range f.Pairs {
		if p.A == a && p.B == b {
			return p, true
		}
	}
	return PairFairness{}, false
}

// PullingHost is a host that pulls its project's figures most: its credit
// granted beyond (or short of) what the project's median ratio would give
// it. For admins only.
type PullingHost struct {
	HostID     int64   `db:"host_id"`
	UserID     int64   `db:"user_id"`
	Email      string  `db:"email"`
	DomainName string  `db:"domain_name"`
	Estimated  float64 `db:"estimated"`
	Granted    float64 `db:"granted"`
	Ratio      float64 `db:"ratio"`
	Excess     float64 `db:"excess"` // Granted − Median × Estimated
}

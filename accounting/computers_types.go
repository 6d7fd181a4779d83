package accounting

import "time"

// HostInfo is what Cobble knows of one computer, and whose it is.
type HostInfo struct {
	ID            int64
	UserID        int64
	Email         string
	UserName      string
	TimeZone      string // the volunteer's: the ledger's days are theirs
	DomainName    string
	CPID          string
	ClientVersion string
	Platforms     []string
	OSName        string
	OSVersion     string
	PModel        string
	NCPUs         int
	PFPOps        float64
	Coprocs       []Coproc
	CreatedAt     time.Time
	LastRPCAt     *time.Time
	RPCCount      int64
	Implausible   string
	Nickname      string // the volunteer's name for it; may be empty
}

// HostProjectCredit is one project of a host, with its lifetime credit.
type HostProjectCredit struct {
	ProjectID     int64
	ProjectName   string
	ProjectURL    string
	ProjectHostID int64
	Assigned      bool
	Attached      bool
	Estimated     float64 // lifetime credited estimate, Cobblestones
	Clamped       float64 // lifetime claims beyond the limits
	Granted       float64 // lifetime confirmed credit
}

// Computer is one of a volunteer's hosts as their pages show it.
type Computer struct {
	ID            int64      `db:"id"`
	Name          string     `db:"name"`     // the client's domain name; may be empty
	Nickname      string     `db:"nickname"` // the volunteer's name for it; may be empty
	LastRPCAt     *time.Time `db:"last_rpc_at"`
	CreatedAt     time.Time  `db:"created_at"`
	Platform      string     `db:"platform"`
	OSName        string     `db:"os_name"`
	OSVersion     string     `db:"os_version"`
	PModel        string     `db:"p_model"`
	NCPUs         int        `db:"ncpus"`
	Coprocs       []Coproc   `db:"coprocs"`
	ClientVersion string     `db:"client_version"`
	Projects      []string   `db:"projects"` // names of the projects it works for
	Credit7Days   float64    `db:"credit_7d"`
	// Location is the name of the location the computer is at
	// (DefaultLocation when at none).
	Location string `db:"location"`
	// Connected is false once the computer was disconnected: it holds no
	// valid authenticator any more.
	Connected bool `db:"connected"`
	// PauseMode and PauseUntil are the computer's pause (Pause): winding
	// down or paused, and when its next RPC resumes it (nil: when the
	// volunteer does).
	PauseMode  PauseMode  `db:"pause_mode"`
	PauseUntil *time.Time `db:"pause_until"`
	// PauseLastDay is the last day of a pause with an end, in the
	// volunteer's time zone (a civil day at UTC midnight); nil otherwise.
	PauseLastDay *time.Time `db:"pause_last_day"`
}

// Pause is the computer's pause state, as the API and pages show it.
func (c Computer) Pause() Pause { return Pause{Mode: c.PauseMode, Until: c.PauseUntil} }

// GPUs is the number of GPUs the computer has, of every kind.
func (c Computer) GPUs() int {
	n := 0
	for _, g := range c.Coprocs {
		n += g.Count
	}
	return n
}

// ComputerProject is one project of a volunteer's computer.
type ComputerProject struct {
	ProjectID int64     `db:"project_id"`
	Name      string    `db:"name"`
	URL       string    `db:"url"`
	Since     time.Time `db:"since"`    // first seen on this computer
	Active    bool      `db:"active"`   // assigned or attached now
	Assigned  bool      `db:"assigned"` // Cobble asks the computer to work for it
	Attached  bool      `db:"attached"` // the computer listed it in its last request
	// Listed is when the computer last reported the project; nil before
	// the first report. For a project no longer attached, it is about
	// when the computer left it.
	Listed    *time.Time `db:"reported_at"`
	Estimated float64    `db:"estimated"`
	Confirmed float64    `db:"confirmed"`
	Reason    Reason     `db:"reason"` // why Cobble gave it; "" when none recorded
}

// VolunteerProject is one project a volunteer's computers work or worked
// for, with the volunteer's lifetime totals on it.
type VolunteerProject struct {
	ID        int64   `db:"id"`
	Name      string  `db:"name"`
	URL       string  `db:"url"`
	Computers int64   `db:"computers"`
	CPUHours  float64 `db:"cpu_hours"`
	GPUHours  float64 `db:"gpu_hours"`
	JobsOK    int64   `db:"jobs_ok"`
	JobsError int64   `db:"jobs_error"`
	Estimated float64 `db:"estimated"`
	Confirmed float64 `db:"confirmed"`
}

// ComputerSettings are a computer's own settings, for its page.
type ComputerSettings struct {
	// Location is the computer's location's name (DefaultLocation when
	// at none); Preset and Compute are the preferences in force there
	// (Compute nil when the volunteer never chose: the client keeps its
	// own).
	Location string
	Preset   string
	Compute  *ComputePrefs
	// Locations names every location the computer may be moved to,
	// Default first.
	Locations []string
	// Choices maps project ID to the computer's own ChoiceAlways or
	// ChoiceNever; a project absent follows the volunteer's choices.
	Choices map[int64]ProjectChoice
}

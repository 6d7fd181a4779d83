package accounting

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cobble-am/cobble/internal/locale"
)

// The limits on a volunteer's personal API tokens.
const (
	// MaxAPITokens is how many tokens a volunteer may hold at once.
	MaxAPITokens = 10
	// MaxAPITokenCreations is how many tokens a volunteer may make in an
	// hour, revoked ones included, so that making and revoking them in a
	// loop stops.
	MaxAPITokenCreations = 30
	// MaxAPITokenName is the longest name a token may have, in characters.
	MaxAPITokenName = 100
	// APITouchEvery is how often, at most, a token's last use is written:
	// a token used all day costs one write a minute, not one a request.
	APITouchEvery = time.Minute
)

// APISecretPrefix begins every API token's secret, so that one found in a
// file or a log can be told for what it is.
const APISecretPrefix = "cobble_"

// APIToken is one of a volunteer's personal API tokens, as their settings
// page lists it. Its secret is not kept: only its SHA-256 is.
type APIToken struct {
	ID        int64     `db:"id"`
	Name      string    `db:"name"`
	CreatedAt time.Time `db:"created_at"`
	// LastUsedAt is when the token was last used (to within
	// APITouchEvery), nil if never; LastUsedFrom is the client's address
	// then (an IPv4 address or an IPv6 /64), "" if unknown.
	LastUsedAt   *time.Time `db:"last_used_at"`
	LastUsedFrom string     `db:"last_used_from"`
}

// NewAPIToken is a token just made, with its secret: shown once, to the
// volunteer who made it, and never again.
type NewAPIToken struct {
	APIToken
	Secret string
}

// APICaller is who sent an API request: the token's volunteer, the
// token, and how many requests the token has sent in the minute that
// began at Window, this one included.
type APICaller struct {
	User     User
	TokenID  int64
	Requests int
	Window   time.Time
}

// WellFormedAPISecret reports whether s can be an API token's secret, so
// that anything else is refused before it reaches the database.
func WellFormedAPISecret(s string) bool {
	rest, ok := strings.CutPrefix(s, APISecretPrefix)
	return ok && wellFormedToken(rest)
}

// cleanTokenName trims a token's name and checks it: present, at most
// MaxAPITokenName characters, printable and without markup (field "name").
func cleanTokenName(v validation, name string) string {
	name = strings.TrimSpace(name)
	v.check(name != "", "name", locale.M("api_tokens.name_required"))
	v.check(utf8.RuneCountInString(name) <= MaxAPITokenName, "name",
		locale.M("api_tokens.name_too_long", "Max", MaxAPITokenName))
	v.check(Printable(name) && !strings.ContainsAny(name, "<>"), "name", locale.M("api_tokens.name_chars"))
	return name
}

// APIComputer is one of a volunteer's computers as the API gives it, with
// its lifetime totals.
type APIComputer struct {
	ID          int64      `db:"id"`
	Nickname    string     `db:"nickname"`    // the volunteer's name for it; may be empty
	HostName    string     `db:"host_name"`   // the name its client reports; may be empty
	Location    string     `db:"location"`    // DefaultLocation when at none
	LastContact *time.Time `db:"last_rpc_at"` // nil before its first RPC
	Connected   bool       `db:"connected"`   // false once disconnected
	Pause       PauseMode  `db:"pause_mode"`  // winding down, paused or working as usual
	PauseUntil  *time.Time `db:"pause_until"` // when its next RPC resumes it by itself; nil: when the volunteer does
	Estimated   float64    `db:"estimated"`   // credited estimate, Cobblestones
	Confirmed   float64    `db:"confirmed"`   // granted by the projects
}

// APIProject is a project the volunteer's computers work or worked for,
// with the volunteer's lifetime totals on it.
type APIProject struct {
	ID        int64   `db:"id"`
	Name      string  `db:"name"`
	URL       string  `db:"url"`
	Estimated float64 `db:"estimated"`
	Confirmed float64 `db:"confirmed"`
	// Computers are the volunteer's computers that have the project, and
	// why each works for it.
	Computers []APIProjectComputer `db:"-"`
}

// APIProjectComputer is one computer's part in a project: whether Cobble
// assigns it, whether the computer has it attached, and why Cobble gave it
// ("" when it is not assigned, or no reason was recorded).
type APIProjectComputer struct {
	ProjectID  int64  `db:"project_id"`
	ComputerID int64  `db:"host_id"`
	Assigned   bool   `db:"assigned"`
	Attached   bool   `db:"attached"`
	Reason     Reason `db:"reason"`
}

// APIDay is one day of a volunteer's history for one project or one
// computer (Key), in the volunteer's time zone.
type APIDay struct {
	Day       time.Time `db:"day"` // midnight UTC of the ledger's day
	Key       int64     `db:"key"` // a project's or a computer's id
	CPUEC     float64   `db:"cpu_ec"`
	GPUEC     float64   `db:"gpu_ec"`
	CPUHours  float64   `db:"cpu_hours"`
	GPUHours  float64   `db:"gpu_hours"`
	JobsOK    int64     `db:"jobs_ok"`
	JobsError int64     `db:"jobs_error"`
	Confirmed float64   `db:"confirmed"`
}

// Estimated is the day's credited estimate, CPU plus GPU.
func (d APIDay) Estimated() float64 { return estimatedCredit(d.CPUEC, d.GPUEC) }

// APIDayFromHistory is h as an APIDay keyed by its project.
func APIDayFromHistory(h HistoryDay) APIDay {
	return APIDay{Day: h.Day, Key: h.ProjectID, CPUEC: h.CPUEC, GPUEC: h.GPUEC, CPUHours: h.CPUHours,
		GPUHours: h.GPUHours, JobsOK: h.JobsOK, JobsError: h.JobsError, Confirmed: h.Confirmed}
}

// APIEvent is an event of one of the volunteer's computers.
type APIEvent struct {
	Event
	ComputerID int64
}

// EventCursor is where a page of events ends: the last event's time and
// id. The zero cursor starts at the newest event.
type EventCursor struct {
	At time.Time
	ID int64
}

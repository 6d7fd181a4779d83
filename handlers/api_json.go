package handlers

import (
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// The API's JSON, as handlers/openapi.json documents it. Amounts are
// Cobblestones (credit) and hours; days are YYYY-MM-DD in the volunteer's
// time zone; instants are RFC 3339 in UTC.

// jsonTotals are lifetime credit totals.
type jsonTotals struct {
	Estimated float64 `json:"estimated"`
	Confirmed float64 `json:"confirmed"`
}

// jsonMe is GET /api/v1/me.
type jsonMe struct {
	ID       int64      `json:"id"`
	Name     string     `json:"name"`
	TimeZone string     `json:"time_zone"`
	Totals   jsonTotals `json:"totals"`
	// ConfirmedThrough is the last day whose confirmed credit is known
	// for every project the volunteer's computers work for that has been
	// reconciled; null when none has.
	ConfirmedThrough *string `json:"confirmed_through"`
	// Team is the volunteer's team; null when they are in none.
	Team *jsonMyTeam `json:"team"`
}

// jsonComputer is one computer.
type jsonComputer struct {
	ID          int64      `json:"id"`
	Nickname    string     `json:"nickname"`
	HostName    string     `json:"host_name"`
	Location    string     `json:"location"`
	LastContact *time.Time `json:"last_contact"`
	Connected   bool       `json:"connected"`
	Pause       jsonPause  `json:"pause"`
	Totals      jsonTotals `json:"totals"`
}

// jsonPause is a computer's pause state.
type jsonPause struct {
	Mode  accounting.PauseMode `json:"mode"`
	Until *time.Time           `json:"until"`
}

func toJSONComputer(c accounting.APIComputer) jsonComputer {
	var last *time.Time
	if c.LastContact != nil {
		t := c.LastContact.UTC().Truncate(time.Second)
		last = &t
	}
	pause := jsonPause{Mode: c.Pause}
	if c.PauseUntil != nil {
		t := c.PauseUntil.UTC().Truncate(time.Second)
		pause.Until = &t
	}
	return jsonComputer{ID: c.ID, Nickname: c.Nickname, HostName: c.HostName, Location: c.Location,
		LastContact: last, Connected: c.Connected, Pause: pause, Totals: jsonTotals{c.Estimated, c.Confirmed}}
}

// jsonComputers is GET /api/v1/computers.
type jsonComputers struct {
	Computers  []jsonComputer `json:"computers"`
	NextCursor *string        `json:"next_cursor"`
}

// jsonProject is one project, with each computer's part in it.
type jsonProject struct {
	ID        int64                 `json:"id"`
	Name      string                `json:"name"`
	URL       string                `json:"url"`
	Totals    jsonTotals            `json:"totals"`
	Computers []jsonProjectComputer `json:"computers"`
}

// jsonProjectComputer is why one computer works for a project.
type jsonProjectComputer struct {
	ComputerID int64   `json:"computer_id"`
	Assigned   bool    `json:"assigned"`
	Attached   bool    `json:"attached"`
	Reason     *string `json:"reason"`
}

// jsonProjects is GET /api/v1/projects.
type jsonProjects struct {
	Projects   []jsonProject `json:"projects"`
	NextCursor *string       `json:"next_cursor"`
}

// jsonDay is one day of one project or computer.
type jsonDay struct {
	Day          string  `json:"day"`
	ProjectID    int64   `json:"project_id,omitempty"`
	ComputerID   int64   `json:"computer_id,omitempty"`
	Estimated    float64 `json:"estimated"`
	EstimatedCPU float64 `json:"estimated_cpu"`
	EstimatedGPU float64 `json:"estimated_gpu"`
	// Confirmed is nil (null) while no export of the project (of every
	// project, by computer) covers the day: not known is not zero.
	Confirmed *float64 `json:"confirmed"`
	CPUHours  float64  `json:"cpu_hours"`
	GPUHours  float64  `json:"gpu_hours"`
	JobsOK    int64    `json:"jobs_ok"`
	JobsError int64    `json:"jobs_error"`
}

// jsonDays is GET /api/v1/days.
type jsonDays struct {
	From       string    `json:"from"`
	To         string    `json:"to"`
	By         string    `json:"by"`
	TimeZone   string    `json:"time_zone"`
	Days       []jsonDay `json:"days"`
	NextCursor *string   `json:"next_cursor"`
}

// jsonEvent is one event of a computer.
type jsonEvent struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	Kind       string    `json:"kind"`
	ComputerID int64     `json:"computer_id"`
	Project    *string   `json:"project"`
	Message    string    `json:"message"`
}

// jsonWarning is something the volunteer should know now.
type jsonWarning struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// jsonEvents is GET /api/v1/events.
type jsonEvents struct {
	Warnings   []jsonWarning `json:"warnings"`
	Events     []jsonEvent   `json:"events"`
	NextCursor *string       `json:"next_cursor"`
}

// orNull is s, or null when it is empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

package accounting

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cobble-am/cobble/internal/numfmt"
)

// Warning is something a volunteer should know about their computers, in
// plain words.
type Warning struct {
	Kind WarningKind
	Text string
}

// WarningKind says what a Warning is about. Its value is stable: notices
// are told apart by it.
type WarningKind string

// The kinds of warnings.
const (
	WarningNone      WarningKind = "none"       // no computer is connected yet
	WarningSilent    WarningKind = "silent"     // a computer has been silent for SilentAfter or more
	WarningOldClient WarningKind = "old_client" // a client is too old to report estimated credit
	WarningFailures  WarningKind = "failures"   // many jobs failed in the last 7 days
	WarningClamped   WarningKind = "clamped"    // claims were clamped in the last 30 days
)

// WarningKinds lists every kind, in the order Warnings gives them.
var WarningKinds = []WarningKind{WarningSilent, WarningOldClient, WarningNone, WarningFailures, WarningClamped}

// String is the kind's title for people, such as a notice's.
func (k WarningKind) String() string {
	switch k {
	case WarningNone:
		return "No computer connected yet"
	case WarningSilent:
		return "A computer is silent"
	case WarningOldClient:
		return "BOINC is too old on a computer"
	case WarningFailures:
		return "Many jobs failed"
	case WarningClamped:
		return "Some claimed credit was not counted"
	}
	return fmt.Sprintf("Warning (%s)", string(k))
}

// SilentAfter is how long without contact makes a computer "silent".
const SilentAfter = 3 * 24 * time.Hour

// Warnings lists what the dashboard and the notices feed warn about: no
// computer yet, computers silent for 3 days or more, clients too old to
// report estimated credit (before 7.14), many failed jobs in the last 7
// days, and claims clamped in the last 30 days.
func Warnings(computers []Computer, s Summary, now time.Time) []Warning {
	var ws []Warning
	connected := 0
	for _, c := range computers {
		if !c.Connected {
			continue
		}
		connected++
		name := c.Label()
		if c.LastRPCAt != nil && now.Sub(*c.LastRPCAt) >= SilentAfter {
			days := int(now.Sub(*c.LastRPCAt) / (24 * time.Hour))
			ws = append(ws, Warning{WarningSilent, fmt.Sprintf("%s has not contacted Cobble for %d days. "+
				"Is BOINC still running on it?", name, days)})
		}
		if OldClient(c.ClientVersion) {
			ws = append(ws, Warning{WarningOldClient, fmt.Sprintf("%s runs BOINC %s, which is too old to report "+
				"estimated credit: Cobble cannot count its work. Install BOINC 7.14 or newer.", name, c.ClientVersion)})
		}
	}
	if connected == 0 {
		ws = append(ws, Warning{WarningNone, "No computer is connected yet. Follow the steps below to connect one."})
	}
	if w := s.Last7; w.JobsError >= 5 && w.JobsError*4 >= w.JobsOK+w.JobsError {
		ws = append(ws, Warning{WarningFailures, fmt.Sprintf("%d of %d jobs failed in the last 7 days. "+
			"A computer that fails many jobs may be overheating, short of memory, or missing a library.",
			w.JobsError, w.JobsOK+w.JobsError)})
	}
	if s.Last30.Clamped > 0 {
		ws = append(ws, Warning{WarningClamped, fmt.Sprintf("In the last 30 days your computers claimed %s more "+
			"credit than they could have earned in the time between their contacts. Cobble did not count "+
			"that part; it is kept aside for review. This happens after a clock change or when a "+
			"client's counters go wrong.", numfmt.Credit(s.Last30.Clamped))})
	}
	return ws
}

// Label is the computer's nickname, else the name its client reports,
// else "Computer N".
func (c Computer) Label() string {
	if strings.TrimSpace(c.Nickname) != "" {
		return c.Nickname
	}
	if strings.TrimSpace(c.Name) == "" {
		return "Computer " + strconv.FormatInt(c.ID, 10)
	}
	return c.Name
}

// OldClient reports whether a BOINC client version (such as 7.12.1) is
// older than 7.14, the first to report estimated credit. An unknown
// version is not called old.
func OldClient(version string) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major < 7 || (major == 7 && minor < 14)
}

package accounting

import (
	"strconv"
	"strings"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// Warning is something a volunteer should know about their computers, in
// plain words.
type Warning struct {
	Kind WarningKind
	Msg  locale.Msg
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

// Title is the kind's title for people, such as a notice's.
func (k WarningKind) Title() locale.Msg {
	switch k {
	case WarningNone, WarningSilent, WarningOldClient, WarningFailures, WarningClamped:
		return locale.M("warning.title." + string(k))
	}
	return locale.M("warning.title.unknown", "Kind", string(k))
}

// String is the kind's title in English.
func (k WarningKind) String() string { return k.Title().String() }

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
			ws = append(ws, Warning{WarningSilent, locale.M("warning.silent", "Name", name, "Count", days)})
		}
		if OldClient(c.ClientVersion) {
			ws = append(ws, Warning{WarningOldClient, locale.M("warning.old_client", "Name", name, "Version", c.ClientVersion)})
		}
	}
	if connected == 0 {
		ws = append(ws, Warning{WarningNone, locale.M("warning.none")})
	}
	if w := s.Last7; w.JobsError >= 5 && w.JobsError*4 >= w.JobsOK+w.JobsError {
		ws = append(ws, Warning{WarningFailures, locale.M("warning.failures", "Failed", w.JobsError, "Count", w.JobsOK+w.JobsError)})
	}
	if s.Last30.Clamped > 0 {
		ws = append(ws, Warning{WarningClamped, locale.M("warning.clamped", "Credit", locale.Credit(s.Last30.Clamped))})
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

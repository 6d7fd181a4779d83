package accounting

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cobble-am/cobble/internal/locale"
)

// The limits on a volunteer's reports about a day.
const (
	// MaxReportText is the longest report, in characters.
	MaxReportText = 1000
	// MaxOpenReports is how many reports a volunteer may have open.
	MaxOpenReports = 5
	// MaxAnswerText is the longest answer, in characters.
	MaxAnswerText = 2000
	// reportsPerMinute is how many reports a volunteer may send a minute.
	reportsPerMinute = 3
)

// DayReport is a volunteer's report that something is wrong with a day of
// one project on one of their computers, and the admin's answer.
type DayReport struct {
	ID          int64
	UserID      int64
	HostID      int64
	ProjectID   int64
	ProjectName string
	Day         time.Time // the volunteer's calendar day, at UTC midnight
	Text        string
	CreatedAt   time.Time
	// MailAnswer says the volunteer asked for the answer by mail.
	MailAnswer bool
	// EmailConfirmed says the volunteer's address is confirmed now: an
	// answer is mailed only then.
	EmailConfirmed bool
	Answer         string // "" until answered
	AnsweredAt     *time.Time
	ClosedAt       *time.Time // nil while open
	// UserEmail and HostLabel name the volunteer and the computer, for
	// the admin's queue.
	UserEmail    string
	UserTimeZone string // the volunteer's, in which Day is a day
	HostLabel    string
}

// Open reports whether the report awaits an admin.
func (r DayReport) Open() bool { return r.ClosedAt == nil }

// NewDayReport is a report as the volunteer sends it.
type NewDayReport struct {
	Day        string // YYYY-MM-DD
	ProjectID  int64
	Text       string
	MailAnswer bool
}

// checkReportText returns the field's message when s is not a short plain
// text: empty, too long, or with markup or control characters.
func checkReportText(s string, maxLen int) locale.Msg {
	switch {
	case strings.TrimSpace(s) == "":
		return locale.M("reports.text_empty")
	case !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxLen:
		return locale.M("reports.text_long", "Max", maxLen)
	case strings.ContainsAny(s, "<>") || !PrintableLines(s):
		return locale.M("reports.text_plain")
	}
	return locale.Msg{}
}

package views

import (
	"sort"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// HistoryRanges are the chart windows a volunteer can choose, in days.
var HistoryRanges = []int{30, 90, 365}

// History is a daily history to chart and tabulate: days From–To, the
// ledger rows in between, and how to draw them.
type History struct {
	From, To  time.Time
	Rows      []accounting.HistoryDay
	Days      int    // the window chosen (one of HistoryRanges)
	ByProject bool   // stack the bars by project instead of CPU/GPU
	BasePath  string // the page the window links point at
	// DayPath, when set, links each day of the table to DayPath plus the
	// day (YYYY-MM-DD): the page of where its numbers came from. Only
	// windows of up to maxDayLinks days link their days: a year of links
	// would take the page over its weight budget; the computer page's
	// "open a day" form reaches any day.
	DayPath string
	// ExportDays holds, per project id, the last day its latest export
	// covers (accounting.LedgerStore.ExportDays): confirmed credit is not known
	// after it.
	ExportDays map[int64]time.Time
}

// ConfirmedThrough returns the last day up to which the confirmed credit
// of every project in h's rows is known: the earliest of their export
// days. Projects never reconciled do not count; ok is false when no
// project in h has been.
func (h History) ConfirmedThrough() (through time.Time, ok bool) {
	for _, r := range h.Rows {
		d, found := h.ExportDays[r.ProjectID]
		if found && (!ok || d.Before(through)) {
			through, ok = d, true
		}
	}
	return through, ok
}

// confirmedKnown says whether the confirmed credit of day is known.
func (h History) confirmedKnown(day time.Time) bool { return h.confirmedKnownFunc()(day) }

// confirmedKnownFunc is confirmedKnown for many days: it reads h's rows
// once, not once a day.
func (h History) confirmedKnownFunc() func(day time.Time) bool {
	through, ok := h.ConfirmedThrough()
	return func(day time.Time) bool { return ok && !day.After(through) }
}

// DashboardPage is a volunteer's start page.
type DashboardPage struct {
	Connect  Connect
	Summary  accounting.Summary
	Warnings []accounting.Warning
	History  History
	TimeZone string
	// HasComputers says the volunteer has connected a computer before.
	HasComputers bool
	// Today is the volunteer's calendar day (the pause form's earliest).
	Today time.Time
	// Pause is how many of the volunteer's computers are paused or
	// winding down.
	Pause accounting.PauseSummary
	// FirstContact, when not nil, is the newcomer's computer that has
	// connected but reported no work yet.
	FirstContact *FirstContact
	// Team is the volunteer's team, nil when they are in none.
	Team *accounting.MyTeam
}

// FirstContact is what a newcomer sees while their totals are still
// zero: the computer that connected, when, and when it is expected next.
type FirstContact struct {
	Computer string
	At, Next time.Time
}

// NewFirstContact returns the dashboard's word on a first contact: the
// newest of the computers that have contacted Cobble, and its next
// contact (repeat after its last; a day when repeat is 0, as the client
// waits then), while the volunteer's totals have nothing yet. Nil when
// they have something, or no computer has contacted Cobble.
func NewFirstContact(computers []accounting.Computer, s accounting.Summary, repeat time.Duration) *FirstContact {
	if s.AllTime != (accounting.Totals{}) {
		return nil
	}
	if repeat <= 0 {
		repeat = 24 * time.Hour
	}
	var fc *FirstContact
	for _, c := range computers {
		if c.LastRPCAt == nil || !c.Connected || (fc != nil && !c.CreatedAt.After(fc.At)) {
			continue
		}
		fc = &FirstContact{Computer: c.Label(), At: c.CreatedAt, Next: c.LastRPCAt.Add(repeat)}
	}
	return fc
}

// maxDayLinks is the longest window whose table links its days.
const maxDayLinks = 90

// dayLink returns the link of day d in h's table, or "" when none.
func (h History) dayLink(d time.Time) string {
	if h.DayPath == "" || h.Days > maxDayLinks {
		return ""
	}
	return h.DayPath + d.Format(time.DateOnly)
}

// dailyTotals sums h's rows per day (with no project), newest first, days
// with data only.
func dailyTotals(h History) []accounting.HistoryDay {
	var out []accounting.HistoryDay
	for _, r := range h.Rows {
		if len(out) == 0 || !out[len(out)-1].Day.Equal(r.Day) {
			out = append(out, accounting.HistoryDay{Day: r.Day})
		}
		out[len(out)-1] = out[len(out)-1].Add(r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Day.After(out[j].Day) })
	return out
}

// historyChart draws h: estimated credit as bars (CPU and GPU, or one
// stack per project) and confirmed credit as a line, one x per day; its
// words are in l.
func historyChart(l *locale.Lang, h History) Chart {
	index := map[int64]int{} // Unix time of a day → its x position
	c := Chart{YLabel: l.T("history.y_label")}
	for d := h.From; !d.After(h.To); d = d.AddDate(0, 0, 1) {
		index[d.Unix()] = len(c.Days)
		c.Days = append(c.Days, d)
	}
	n := len(c.Days)
	cpu, gpu, conf := make([]float64, n), make([]float64, n), make([]float64, n)
	var projects []string
	byProject := map[string][]float64{}
	for _, r := range h.Rows {
		i, ok := index[r.Day.Unix()]
		if !ok {
			continue
		}
		cpu[i], gpu[i], conf[i] = cpu[i]+r.CPUEC, gpu[i]+r.GPUEC, conf[i]+r.Confirmed
		if byProject[r.ProjectName] == nil {
			projects, byProject[r.ProjectName] = append(projects, r.ProjectName), make([]float64, n)
		}
		byProject[r.ProjectName][i] += r.Estimated()
	}
	if h.ByProject {
		sort.Strings(projects)
		for k, p := range projects {
			c.Series = append(c.Series, Series{Name: p, Values: byProject[p], Kind: Bars, Class: "p" + strconv.Itoa(k%8)})
		}
	} else {
		c.Series = []Series{{Name: l.T("history.series_cpu"), Values: cpu, Kind: Bars, Class: "cpu"},
			{Name: l.T("history.series_gpu"), Values: gpu, Kind: Bars, Class: "gpu"}}
	}
	known, confirmedKnown := 0, h.confirmedKnownFunc()
	for known < n && confirmedKnown(c.Days[known]) {
		known++
	}
	c.Series = append(c.Series, Series{Name: l.T("history.series_confirmed"), Values: conf[:known], Kind: Line, Class: "granted", Partial: true})
	c.Title = chartSummary(l, h, cpu, gpu, byProject)
	return c
}

// chartSummary says in one sentence, in l, what a history chart shows,
// as its text alternative: "Estimated credit per day, last 30 days, 1.8 M
// in all, highest 25 Nov 2026; confirmed credit known up to 22 Nov 2026."
func chartSummary(l *locale.Lang, h History, cpu, gpu []float64, byProject map[string][]float64) string {
	total, peak, peakDay := 0.0, 0.0, -1
	for i := range cpu {
		v := cpu[i] + gpu[i]
		total += v
		if v > peak {
			peak, peakDay = v, i
		}
	}
	what := l.T("history.summary", "Count", h.Days)
	if h.ByProject {
		what = l.T("history.summary_by_project", "Count", h.Days, "Projects", len(byProject))
	}
	confirmed := l.T("history.summary_no_confirmed")
	if through, ok := h.ConfirmedThrough(); ok {
		confirmed = l.T("history.summary_confirmed", "Day", l.Date(through))
	}
	totalText := l.T("history.summary_total", "Amount", compact(l, total))
	if peakDay < 0 {
		return l.T("history.summary_sentence_no_peak", "What", what, "Total", totalText, "Confirmed", confirmed)
	}
	return l.T("history.summary_sentence", "What", what, "Total", totalText,
		"Highest", l.T("history.summary_highest", "Day", l.Date(h.From.AddDate(0, 0, peakDay))), "Confirmed", confirmed)
}

// compact formats an amount in a few characters, in l: "950", "12.5 k",
// "1.8 M" (in German "12,5 Tsd.", "1,8 Mio.").
func compact(l *locale.Lang, v float64) string {
	// in writes v/div with one decimal at most.
	in := func(div float64) string { return l.Shortest(v/div, 1) }
	switch {
	case v >= 1e12:
		return l.T("history.trillion", "Number", in(1e12))
	case v >= 1e9:
		return l.T("history.billion", "Number", in(1e9))
	case v >= 1e6:
		return l.T("history.million", "Number", in(1e6))
	case v >= 1e3:
		return l.T("history.thousand", "Number", in(1e3))
	}
	return l.Number(v, 0)
}

// rangeURL links h's page with another window or grouping.
func rangeURL(h History, days int, byProject bool) string {
	u := h.BasePath + "?days=" + strconv.Itoa(days)
	if byProject {
		u += "&by=project"
	}
	return u
}

// hoursIn formats a number of hours in l: one decimal below 10, else
// whole and grouped.
func hoursIn(l *locale.Lang, h float64) string {
	switch {
	case h <= 0:
		return "0"
	case h < 0.05:
		return "< " + l.Number(0.1, 1)
	case h < 10:
		return l.Shortest(h, 1)
	}
	return l.Int(int64(h + 0.5))
}

// ago says in l how long before now t was, in plain words.
func ago(l *locale.Lang, t *time.Time, now time.Time) string {
	if t == nil {
		return l.T("computers.never")
	}
	d := now.Sub(*t)
	switch {
	case d < time.Minute:
		return l.T("computers.just_now")
	case d < time.Hour:
		return l.T("computers.minutes_ago", "Count", int(d.Minutes()))
	case d < 48*time.Hour:
		return l.T("computers.hours_ago", "Count", int(d.Hours()))
	}
	return l.T("computers.days_ago", "Count", int(d.Hours()/24))
}

// welcomeName is how the volunteer's own pages greet them: by the name they
// chose, else by their email (these pages are private).
func welcomeName(u *accounting.User) string {
	if u == nil {
		return ""
	}
	if n := u.ChosenName(); n != "" {
		return n
	}
	return u.Email
}

package views

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
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
	// ExportDays holds, per project id, the last day its latest export
	// covers (accounting.Store.ExportDays): confirmed credit is not known
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
func (h History) confirmedKnown(day time.Time) bool {
	through, ok := h.ConfirmedThrough()
	return ok && !day.After(through)
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
// stack per project) and confirmed credit as a line, one x per day.
func historyChart(title string, h History) Chart {
	index := map[int64]int{} // Unix time of a day → its x position
	c := Chart{Title: title, YLabel: "credit per day"}
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
		c.Series = []Series{{Name: "Estimated, CPU", Values: cpu, Kind: Bars, Class: "cpu"},
			{Name: "Estimated, GPU", Values: gpu, Kind: Bars, Class: "gpu"}}
	}
	known := 0
	for known < n && h.confirmedKnown(c.Days[known]) {
		known++
	}
	c.Series = append(c.Series, Series{Name: "Confirmed", Values: conf[:known], Kind: Line, Class: "granted", Partial: true})
	c.Title = chartSummary(h, cpu, gpu, byProject)
	return c
}

// chartSummary says in one sentence what a history chart shows, as its
// text alternative: "Estimated credit per day, last 30 days, 1.8 M in all,
// highest 25 Nov 2026; confirmed credit known up to 22 Nov 2026."
func chartSummary(h History, cpu, gpu []float64, byProject map[string][]float64) string {
	total, peak, peakDay := 0.0, 0.0, -1
	for i := range cpu {
		v := cpu[i] + gpu[i]
		total += v
		if v > peak {
			peak, peakDay = v, i
		}
	}
	s := fmt.Sprintf("Estimated credit per day, last %d days", h.Days)
	if h.ByProject {
		s += fmt.Sprintf(", by project (%d)", len(byProject))
	}
	s += ", " + compact(total) + " in all"
	if peakDay >= 0 {
		s += ", highest " + h.From.AddDate(0, 0, peakDay).Format("2 Jan 2006")
	}
	if through, ok := h.ConfirmedThrough(); ok {
		return s + "; confirmed credit known up to " + through.Format("2 Jan 2006") + "."
	}
	return s + "; no confirmed credit known yet."
}

// compact formats an amount in a few characters: "950", "12.5 k", "1.8 M".
func compact(v float64) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"}} {
		if v >= u.div {
			return trimZeros(strconv.FormatFloat(v/u.div, 'f', 1, 64)) + u.suffix
		}
	}
	return trimZeros(strconv.FormatFloat(v, 'f', 0, 64))
}

// rangeURL links h's page with another window or grouping.
func rangeURL(h History, days int, byProject bool) string {
	u := h.BasePath + "?days=" + strconv.Itoa(days)
	if byProject {
		u += "&by=project"
	}
	return u
}

// hours formats a number of hours.
func hours(h float64) string {
	if h < 10 {
		return strconv.FormatFloat(h, 'f', 1, 64)
	}
	return count(int64(h + 0.5))
}

// ago says how long before now t was, in plain words.
func ago(t *time.Time, now time.Time) string {
	if t == nil {
		return "never"
	}
	d := now.Sub(*t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

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
	c.Series = append(c.Series, Series{Name: "Confirmed", Values: conf, Kind: Line, Class: "granted"})
	return c
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

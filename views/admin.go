package views

import (
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
)

// ReconProjectPage is the reconciliation report of one project.
type ReconProjectPage struct {
	reconcile.Detail
	Now time.Time
}

// windowText says which days the report covers, and why it stops there.
func windowText(d ReconProjectPage) string {
	s := "Granted and estimated credit from " + day(d.Report.From) + " to " + day(d.Report.To)
	if d.Report.LastOK != nil && d.Report.LastOK.ExportTime != nil {
		return s + ": the window ends the day before the latest export (" + when(*d.Report.LastOK.ExportTime) +
			"), since granted credit is known only up to it."
	}
	return s + ": no export has been read yet, so nothing is granted."
}

// sinceText names the days after the window, up to today.
func sinceText(d ReconProjectPage) string {
	from := d.Report.To.AddDate(0, 0, 1)
	if today := d.Now.UTC(); day(from) >= day(today) {
		return day(from)
	}
	return day(from) + " to " + day(d.Now.UTC())
}

// AdminHostPage is everything Cobble knows of one host, for admins.
type AdminHostPage struct {
	Host     accounting.HostInfo
	Projects []HostProjectHistory
	Events   []accounting.Event
}

// HostProjectHistory is one project of a host with its daily history.
type HostProjectHistory struct {
	accounting.HostProjectCredit
	Days []reconcile.Day
	// ExportDay is the last day the project's latest export covers, in the
	// volunteer's time zone; zero when the project was never reconciled.
	ExportDay time.Time
}

// knownDays returns how many of days have known granted credit: those up
// to the export day.
func knownDays(days []reconcile.Day, exportDay time.Time) int {
	n := 0
	for n < len(days) && !exportDay.IsZero() && !days[n].Day.After(exportDay) {
		n++
	}
	return n
}

// hostChart draws a host's project history: its granted line ends at the
// export day.
func hostChart(hp HostProjectHistory) Chart {
	c := reconChart(hp.ProjectName+": estimated and granted per day", hp.Days)
	g := &c.Series[len(c.Series)-1]
	g.Values, g.Partial = g.Values[:knownDays(hp.Days, hp.ExportDay)], true
	return c
}

// reconChart draws estimated credit as bars and granted credit as a line.
func reconChart(title string, days []reconcile.Day) Chart {
	c := Chart{Title: title, YLabel: "credit per day", Days: make([]time.Time, len(days))}
	est, granted := make([]float64, len(days)), make([]float64, len(days))
	for i, d := range days {
		c.Days[i], est[i], granted[i] = d.Day, d.Estimated, d.Granted
	}
	c.Series = []Series{{Name: "Estimated", Values: est, Kind: Bars, Class: "est"},
		{Name: "Granted", Values: granted, Kind: Line, Class: "granted"}}
	return c
}

// ratioChart draws granted ÷ estimated over the trailing seven days, so
// that the lag between work and granted credit does not swamp the line.
func ratioChart(days []reconcile.Day) Chart {
	c := Chart{Title: "Granted ÷ estimated, 7-day", YLabel: "ratio", Days: make([]time.Time, len(days))}
	values := make([]float64, len(days))
	for i := range days {
		c.Days[i] = days[i].Day
		var est, granted float64
		for j := max(0, i-6); j <= i; j++ {
			est, granted = est+days[j].Estimated, granted+days[j].Granted
		}
		if est > 0 {
			values[i] = granted / est
		}
	}
	c.Series = []Series{{Name: "Ratio (7 days)", Values: values, Kind: Line, Class: "granted"}}
	return c
}

// flagged returns the hosts with a ratio flag.
func flagged(hosts []reconcile.HostRatio) []reconcile.HostRatio {
	var out []reconcile.HostRatio
	for _, h := range hosts {
		if h.Flag != "" {
			out = append(out, h)
		}
	}
	return out
}

func statusClass(s reconcile.RunStatus) string { return "status-" + string(s) }

func hostLabel(id int64, domain string) string {
	if domain == "" {
		return "Host " + itoa(id)
	}
	return domain + " (host " + itoa(id) + ")"
}

func dayLabel(t time.Time) string { return day(t) }

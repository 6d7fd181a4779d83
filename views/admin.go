package views

import (
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// ReconProjectPage is the reconciliation report of one project.
type ReconProjectPage struct {
	Recon   accounting.ProjectRecon
	Days    []accounting.ReconDay // the report's window, every day
	Orphans []accounting.Orphan   // of the last successful run
	Missing []accounting.MissingHost
	Runs    []accounting.RunWithProject
	Now     time.Time
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
	Days []accounting.ReconDay
}

// reconChart draws estimated credit as bars and granted credit as a line.
func reconChart(title string, days []accounting.ReconDay) Chart {
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
func ratioChart(days []accounting.ReconDay) Chart {
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
func flagged(hosts []accounting.HostRatio) []accounting.HostRatio {
	var out []accounting.HostRatio
	for _, h := range hosts {
		if h.Flag != "" {
			out = append(out, h)
		}
	}
	return out
}

func statusClass(s accounting.RunStatus) string { return "status-" + string(s) }

func hostLabel(id int64, domain string) string {
	if domain == "" {
		return "Host " + itoa(id)
	}
	return domain + " (host " + itoa(id) + ")"
}

func dayLabel(t time.Time) string { return day(t) }

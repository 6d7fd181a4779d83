package views

import (
	"net/url"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
)

// ReconProjectPage is the reconciliation report of one project.
type ReconProjectPage struct {
	reconcile.Detail
	Now      time.Time
	Range    int // the days of history asked for, one of HistoryRanges
	Fairness CreditAdmin
}

// ReconRunPage is one run with a page of its orphans and one of its
// missing hosts.
type ReconRunPage struct {
	reconcile.RunDetail
	OrphanPage, MissingPage int // from 0
	Now                     time.Time
}

// reconURL is the project page's address with a range of days and a page
// of hosts; the defaults are left out.
func reconURL(projectID int64, days int, q reconcile.HostQuery) templ.SafeURL {
	v := url.Values{}
	if days != HistoryRanges[0] {
		v.Set("days", strconv.Itoa(days))
	}
	if q.Sort != "" && q.Sort != reconcile.HostSortID {
		v.Set("sort", string(q.Sort))
	}
	if q.Flag != "" {
		v.Set("flag", string(q.Flag))
	}
	if q.Offset > 0 {
		v.Set("from", strconv.Itoa(q.Offset))
	}
	u := "/admin/projects/" + itoa(projectID) + "/reconciliation"
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return templ.SafeURL(u)
}

// hostPageURL is the project page with the host query q, the page's range
// kept.
func hostPageURL(d ReconProjectPage, q reconcile.HostQuery) templ.SafeURL {
	return reconURL(d.Report.Project.ID, d.Range, q)
}

// sortLabels and flagLabels name the host table's orders and filters.
var sortLabels = map[reconcile.HostSort]string{
	reconcile.HostSortID: "host", reconcile.HostSortRatioLow: "lowest ratio", reconcile.HostSortRatioHigh: "highest ratio",
	reconcile.HostSortGranted: "most granted", reconcile.HostSortEstimated: "most estimated",
}

var hostFlags = []reconcile.HostFlagFilter{"", "any", "low", "high"}

var flagLabels = map[reconcile.HostFlagFilter]string{"": "all", "any": "flagged", "low": "low", "high": "high"}

// hostRangeText says which hosts of how many a page shows.
func hostRangeText(p reconcile.HostPage) string {
	if len(p.Hosts) == 0 {
		return "No host on this page (" + plural(int64(p.Total), "host", "hosts") + " in all)."
	}
	return "Hosts " + itoa(int64(p.Query.Offset+1)) + "–" + itoa(int64(p.Query.Offset+len(p.Hosts))) + " of " +
		count(int64(p.Total)) + "."
}

// runPageURL is a run's page with a page of orphans and one of missing
// hosts; the first pages are left out.
func runPageURL(runID int64, orphanPage, missingPage int) templ.SafeURL {
	v := url.Values{}
	if orphanPage > 0 {
		v.Set("orphans", strconv.Itoa(orphanPage))
	}
	if missingPage > 0 {
		v.Set("missing", strconv.Itoa(missingPage))
	}
	u := "/admin/runs/" + itoa(runID)
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return templ.SafeURL(u)
}

// hasPage says whether page (from 0) of size has anything of total.
func hasPage(page int, total int64, size int) bool { return page >= 0 && int64(page*size) < total }

// windowText says which days the report covers, and why it stops there.
func windowText(d ReconProjectPage) string {
	s := "Granted and estimated credit from " + day(d.Report.From) + " to " + day(d.Report.To)
	if d.Report.LastOK != nil && d.Report.LastOK.ExportTime != nil {
		return s + ": the window ends the day before the latest export (" + when(*d.Report.LastOK.ExportTime) +
			"), since granted credit is known only up to it."
	}
	return s + ": no export has been read yet, so nothing is granted."
}

// rolledUpText says as of when a project's days and its estimate since
// the window stand: they come from the rollups, folded every minute.
func rolledUpText(at time.Time) string {
	if at.IsZero() {
		return "From the daily totals, which Cobble folds from the ledger every minute; no fold has run yet."
	}
	return "From the daily totals, which Cobble folds from the ledger every minute; as of " + when(at) + "."
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
// export day, and it starts on the day the host joined, unless credit
// (such as imported history) is older.
func hostChart(hp HostProjectHistory, h accounting.HostInfo) Chart {
	days := sinceJoined(hp.Days, h)
	c := reconChart(hp.ProjectName+": estimated and granted per day", days)
	g := &c.Series[len(c.Series)-1]
	g.Values, g.Partial = g.Values[:knownDays(days, hp.ExportDay)], true
	return c
}

// sinceJoined drops the days before h joined (a day of the volunteer's
// time zone) that hold no credit; it keeps one day at least.
func sinceJoined(days []reconcile.Day, h accounting.HostInfo) []reconcile.Day {
	loc, err := time.LoadLocation(h.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	y, m, d := h.CreatedAt.In(loc).Date()
	joined := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	for len(days) > 1 && days[0].Day.Before(joined) && days[0].Estimated == 0 && days[0].Granted == 0 {
		days = days[1:]
	}
	return days
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

func statusClass(s reconcile.RunStatus) string { return "status-" + string(s) }

func hostLabel(id int64, domain string) string {
	if domain == "" {
		return "Host " + itoa(id)
	}
	return domain + " (host " + itoa(id) + ")"
}

func dayLabel(t time.Time) string { return day(t) }

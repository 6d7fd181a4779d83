package views

import (
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/internal/primary"
)

// OverviewPage is the admin home: the system at a glance.
type OverviewPage struct {
	System accounting.SystemOverview
	Recon  []reconcile.State
	// Mail is the outbox at a glance; MailMode is how messages leave:
	// "smtp", "mailbox" or "" (they stay queued).
	Mail     accounting.MailQueue
	MailMode string
	// Version is the build's version on one line, or "".
	Version string
	// Replica is what this instance knows of its read replica.
	Replica accounting.ReplicaStatus
	// Primary is which database server this instance last saw as the
	// primary; its zero value shows nothing.
	Primary primary.Status
	// Jobs are the job queue's stuck jobs and the jobs that failed lately.
	Jobs accounting.JobHealth
}

// primaryText says, in a line, which database server is the primary and
// how many failovers this instance has seen.
func primaryText(p primary.Status) string {
	s := "Primary database: " + p.Addr + ", timeline " + strconv.FormatInt(p.Timeline, 10)
	if p.Standby {
		s += ", with a synchronous standby"
	} else {
		s += ", without a synchronous standby"
	}
	s += "; failovers seen by this instance: " + strconv.FormatInt(p.Failovers, 10)
	if p.Problem != "" {
		return s + "; the last check failed: " + p.Problem + "."
	}
	return s + " (checked " + p.CheckedAt.UTC().Format("15:04:05") + " UTC)."
}

// replicaText says, in a line, where the admin reports are read from.
func replicaText(r accounting.ReplicaStatus) string {
	switch {
	case !r.Configured:
		return "No read replica: the primary database serves every read."
	case r.InUse && r.Lag == 0:
		return "Read replica: in use, no lag (checked " + r.CheckedAt.UTC().Format("15:04:05") + " UTC)."
	case r.InUse:
		return "Read replica: in use, " + lagText(r.Lag) + " behind the primary (checked " +
			r.CheckedAt.UTC().Format("15:04:05") + " UTC)."
	case r.CheckedAt.IsZero():
		return "Read replica: not checked yet; the primary serves its reads meanwhile."
	}
	return "Read replica: not in use, the primary serves its reads: " + r.Problem + "."
}

// lagText is a replica's lag for people.
func lagText(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// noSMTP says messages are queued that cannot leave: no SMTP server is set.
func (d OverviewPage) noSMTP() bool { return d.MailMode == "" && d.Mail.Queued > 0 }

// rpcChart draws the last 48 hours' RPCs, stacked by outcome.
func rpcChart(hours []accounting.RPCHour) Chart {
	c := Chart{Title: "RPCs per hour, last 48 hours", YLabel: "RPCs per hour", Days: make([]time.Time, len(hours))}
	ok, bad, down := make([]float64, len(hours)), make([]float64, len(hours)), make([]float64, len(hours))
	for i, h := range hours {
		c.Days[i], ok[i], bad[i], down[i] = h.Hour, float64(h.OK), float64(h.Errors), float64(h.Unavailable)
	}
	c.Series = []Series{{Name: "Answered", Values: ok, Kind: Bars, Class: "p0"},
		{Name: "Error reply", Values: bad, Kind: Bars, Class: "p1"},
		{Name: "Unavailable (503)", Values: down, Kind: Bars, Class: "p3"}}
	return c
}

// creditChart stacks each project's estimated credit per day.
func creditChart(o accounting.SystemOverview) Chart {
	c := Chart{Title: "Estimated credit per day by project, last 30 days", YLabel: "credit per day", Days: o.Days}
	for i, p := range o.Projects {
		c.Series = append(c.Series, Series{Name: p.Name, Values: p.Credit, Kind: Bars, Class: "p" + itoa(int64(i%8))})
	}
	return c
}

// clampedChart draws the credit claimed beyond host limits per day.
func clampedChart(o accounting.SystemOverview) Chart {
	c := Chart{Title: "Clamped credit per day, last 30 days", YLabel: "clamped per day", Days: o.Days}
	total := make([]float64, len(o.Days))
	for _, p := range o.Projects {
		for i, v := range p.Clamped {
			total[i] += v
		}
	}
	c.Series = []Series{{Name: "Clamped (not credited)", Values: total, Kind: Bars, Class: "p3"}}
	return c
}

func rpcTotal(hours []accounting.RPCHour) (ok, bad, down int64) {
	for _, h := range hours {
		ok, bad, down = ok+h.OK, bad+h.Errors, down+h.Unavailable
	}
	return ok, bad, down
}

func rpcSummary(hours []accounting.RPCHour) string {
	ok, bad, down := rpcTotal(hours)
	return count(ok) + " answered, " + plural(bad, "error reply", "error replies") + ", " + count(down) +
		" unavailable in 48 hours"
}

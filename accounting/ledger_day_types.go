package accounting

import (
	"math"
	"time"
)

// DayEvidence is where one day's numbers of one computer came from: for
// each project with a ledger or confirmed-ledger row that day, the
// reports that made the row, what accounting noticed, and the exports
// that confirmed it.
type DayEvidence struct {
	Day      time.Time // the volunteer's calendar day, at UTC midnight
	Projects []ComputerProjectDay
}

// ComputerProjectDay is one project's day on one computer.
type ComputerProjectDay struct {
	ProjectID int64
	Name      string
	// Credited is what the ledger row holds: estimated credit in
	// Cobblestones, run time in seconds and jobs; Clamped is what the
	// reports claimed beyond the computer's limits and was kept aside.
	Credited Counters
	Clamped  Counters
	// Reports is how many RPCs added to the row; FirstReport and
	// LastReport are the first and last of them (nil for rows written
	// before Cobble counted them).
	Reports     int
	FirstReport *time.Time
	LastReport  *time.Time
	// Events are the day's resets, stale reports and clamps, oldest first.
	Events []Event
	// Granted is the confirmed ledger's credit for the day; Exports are
	// the exports whose grants cover the day.
	Granted float64
	Exports []DayExport
}

// GrantKnown reports whether the day's confirmed credit is known: an
// export of the project covers the day, or credit was confirmed for it.
// Until then the day's Granted is not zero but not known.
func (p ComputerProjectDay) GrantKnown() bool { return len(p.Exports) > 0 || p.Granted != 0 }

// SharesAddUp reports whether the day's confirmed credit is the sum of
// its shares of the exports' grants (DayExport.Share), to a hundredth, as
// reconciliation confirms it; credit confirmed otherwise may not be.
func (p ComputerProjectDay) SharesAddUp() bool {
	sum, shared := 0.0, false
	for _, x := range p.Exports {
		if x.Hours > 0 {
			sum, shared = sum+x.Share, true
		}
	}
	return shared && math.Abs(sum-p.Granted) < 0.01
}

// DayExport is one project export that confirmed credit over a day.
type DayExport struct {
	RunID      int64
	ExportTime time.Time
	// Granted is how much the host's total credit in the export grew since
	// the export before it; nil for the first export Cobble read.
	Granted *float64
	// Since is the time of the export before it (nil for the first).
	// Reconciliation spreads Granted evenly over the time between the two
	// (SpreadGranted): Hours is that time, DayHours the part of it on the
	// day, and Share the day's part of Granted.
	Since           *time.Time
	Hours, DayHours float64
	Share           float64
}

// apportion works out the export's Hours, DayHours and Share for the day
// from start to end, as SpreadGranted divides the grant.
func (x *DayExport) apportion(start, end time.Time) {
	if x.Since == nil || x.Granted == nil || !x.ExportTime.After(*x.Since) {
		return
	}
	total := x.ExportTime.Sub(*x.Since)
	from := *x.Since
	if start.After(from) {
		from = start
	}
	on := max(minTime(end, x.ExportTime).Sub(from), 0)
	x.Hours, x.DayHours = total.Hours(), on.Hours()
	x.Share = *x.Granted * float64(on) / float64(total)
}

// dayEventKinds are the events the day's evidence lists.
var dayEventKinds = []string{string(EventClamp), string(EventReset), string(EventStaleReport)}

package accounting

import "time"

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

// DayExport is one project export that confirmed credit over a day.
type DayExport struct {
	RunID      int64
	ExportTime time.Time
	// Granted is how much the host's total credit in the export grew since
	// the export before it; nil for the first export Cobble read.
	Granted *float64
}

// dayEventKinds are the events the day's evidence lists.
var dayEventKinds = []string{string(EventClamp), string(EventReset), string(EventStaleReport)}

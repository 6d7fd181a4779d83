package accounting

import (
	"maps"
	"slices"
	"time"
)

// hostProject is the stored accounting state of one (host, project).
type hostProject struct {
	ProjectID     int64
	Assigned      bool
	Attached      bool
	ProjectHostID int64
	Last          *Usage // nil while unknown
	ReportedAt    time.Time
	Total         Usage
	Avg           float64
	AvgTime       time.Time
}

// creditChange is what one RPC does to one (host, project)'s credit.
type creditChange struct {
	ProjectID int64
	From      time.Time // start of the interval the delta covers
	Prev, Cur Usage
	Reset     bool
	Credited  Usage
	Clamped   Usage
	Days      []DayUsage
}

// creditInput is what crediting one RPC looks at.
type creditInput struct {
	Now      time.Time
	Capacity Capacity
	Loc      *time.Location
	// Reports maps project ID to the usable counters the host reported.
	Reports map[int64]Usage
	Stored  map[int64]*hostProject
}

// credit computes the credit of one RPC: per project the delta against the
// stored counters (nothing on first sighting; the new value after a reset),
// then the host's limits over all projects together, then the spread of
// what is credited and clamped over the days the interval covers.
func credit(in creditInput) []creditChange {
	var changes []creditChange
	var deltas []Usage
	from := in.Now
	for _, id := range slices.Sorted(maps.Keys(in.Reports)) {
		cur, st := in.Reports[id], in.Stored[id]
		if st == nil || st.Last == nil {
			continue // first sighting: the report is the baseline
		}
		c := creditChange{ProjectID: id, From: st.ReportedAt, Prev: *st.Last, Cur: cur}
		delta := cur.Sub(c.Prev)
		if cur.decreased(c.Prev) {
			c.Reset, delta = true, cur
		}
		changes, deltas = append(changes, c), append(deltas, delta)
		if c.From.Before(from) {
			from = c.From
		}
	}
	credited, clamped := clampAll(deltas, in.Capacity.limits(in.Now.Sub(from)))
	for i := range changes {
		c := &changes[i]
		c.Credited, c.Clamped = credited[i], clamped[i]
		if !c.Credited.IsZero() || !c.Clamped.IsZero() {
			c.Days = spread(c.Credited, c.Clamped, c.From, in.Now, in.Loc)
		}
	}
	return changes
}

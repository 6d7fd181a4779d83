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
	From      time.Time // the project's previous report: its delta is spread from there
	Prev, Cur Usage
	Reset     bool
	Stale     bool // an older report than the stored one: nothing credited, the baseline kept
	Credited  Usage
	Clamped   Usage
	Days      []DayUsage
}

// creditInput is what crediting one RPC looks at.
type creditInput struct {
	Now      time.Time
	Capacity Capacity
	Budget   budget
	Loc      *time.Location
	// Reports maps project ID to the usable counters the host reported.
	Reports map[int64]Usage
	Stored  map[int64]*hostProject
}

// creditResult is the credit of one RPC.
type creditResult struct {
	Changes []creditChange
	Budget  budget        // the host's budget after the RPC
	Elapsed time.Duration // since the host's previous accounted RPC
	Spent   Usage         // credited, over all projects
}

// credit computes the credit of one RPC: per project the delta against the
// stored counters (nothing on first sighting; the new value after a reset;
// nothing for a stale report), then the host's budget over all projects
// together, then the spread of what is credited and clamped over the days
// since each project's previous report.
//
// The stale-report rule: counters only grow, except that a reset (detach
// and re-attach, a new install) restarts them from zero. So a report with
// any counter below the stored one is a reset only if all its values could
// have been accumulated from zero since the host's previous RPC, within
// the host's limits for that time; otherwise it is an older report that
// arrived late or was replayed: it is stale.
func credit(in creditInput) creditResult {
	avail, elapsed := in.Budget.available(in.Capacity, in.Now)
	fromZero := in.Capacity.limits(elapsed)
	var changes []creditChange
	var deltas []Usage
	for _, id := range slices.Sorted(maps.Keys(in.Reports)) {
		cur, st := in.Reports[id], in.Stored[id]
		if st == nil || st.Last == nil {
			continue // first sighting: the report is the baseline
		}
		c := creditChange{ProjectID: id, From: st.ReportedAt, Prev: *st.Last, Cur: cur}
		delta := cur.Sub(c.Prev)
		if cur.decreased(c.Prev) {
			// A reset starts again from zero; a stale report carries old totals.
			c.Reset = fitsIn(cur, fromZero)
			c.Stale, delta = !c.Reset, Usage{}
			if c.Reset {
				delta = cur
			}
		}
		changes, deltas = append(changes, c), append(deltas, delta)
	}
	credited, clamped := clampAll(deltas, avail)
	res := creditResult{Elapsed: elapsed}
	for i := range changes {
		c := &changes[i]
		c.Credited, c.Clamped = credited[i], clamped[i]
		res.Spent = res.Spent.Add(c.Credited)
		if !c.Credited.IsZero() || !c.Clamped.IsZero() {
			c.Days = spread(c.Credited, c.Clamped, c.From, in.Now, in.Loc)
		}
	}
	res.Changes, res.Budget = changes, in.Budget.spend(avail, res.Spent, in.Now)
	return res
}

// fitsIn reports whether u is within lim: each amount, and the jobs
// (successes plus errors) within lim.JobsSuccess.
func fitsIn(u, lim Usage) bool {
	fu, fl := u.fields(), lim.fields()
	for i := range 4 {
		if *fu[i] > *fl[i] {
			return false
		}
	}
	return u.JobsSuccess+u.JobsError <= lim.JobsSuccess
}

package accounting

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// sim replays RPCs of one host through plan, keeping the stored state and
// the ledger in memory as the store would.
type sim struct {
	t        *testing.T
	catalog  []Project
	capacity Capacity
	stored   map[int64]*hostProject
	budget   budget
	record   bool                // keep every change in changes
	changes  []creditChange      // when record is set
	ledger   map[int64]*DayUsage // by project, summed over days
	events   map[EventKind]int   // by kind
	now      time.Time
}

func newSim(t *testing.T, projects int, capacity Capacity) *sim {
	s := &sim{t: t, capacity: capacity, stored: map[int64]*hostProject{}, ledger: map[int64]*DayUsage{},
		events: map[EventKind]int{}, now: t0}
	for i := 1; i <= projects; i++ {
		s.catalog = append(s.catalog, Project{ID: int64(i), URL: fmt.Sprintf("https://p%d.example.org/", i),
			Status: StatusActive, Resources: []string{ResourceCPU, ResourceNVIDIA}})
	}
	return s
}

// rpc reports counters (micro-units per project) after dt, and returns what
// the RPC credited and clamped per project.
func (s *sim) rpc(dt time.Duration, counters map[int64]Usage) map[int64]DayUsage {
	s.now = s.now.Add(dt)
	req := SyncRequest{Now: s.now}
	for id, u := range counters {
		c := u.counters()
		req.Projects = append(req.Projects, ProjectReport{URL: s.catalog[id-1].URL, AttachedViaAM: true, Counters: &c})
	}
	p := plan(planInput{Req: req, Catalog: s.catalog, Stored: s.stored, Capacity: s.capacity, Budget: s.budget,
		Loc: time.UTC, MaxProjects: 10})
	if s.record {
		s.changes = append(s.changes, p.Changes...)
	}
	this := map[int64]DayUsage{}
	for _, c := range p.Changes {
		this[c.ProjectID] = DayUsage{Credited: c.Credited, Clamped: c.Clamped}
		sum := s.ledger[c.ProjectID]
		if sum == nil {
			sum = &DayUsage{}
			s.ledger[c.ProjectID] = sum
		}
		for _, d := range c.Days {
			cf, kf := d.Credited.fields(), d.Clamped.fields()
			for _, f := range append(cf[:], kf[:]...) {
				if *f < 0 {
					s.t.Fatalf("negative ledger amount: %+v", d)
				}
			}
			sum.Credited, sum.Clamped = sum.Credited.Add(d.Credited), sum.Clamped.Add(d.Clamped)
		}
	}
	for _, e := range p.Events {
		s.events[e.Kind]++
	}
	s.stored, s.budget = p.Pairs, p.Budget
	return this
}

// randomStep returns increments for each project that together stay within
// the host's limits for dt (or, if over, up to ten times beyond them).
func randomStep(r *rand.Rand, lim Usage, projects int, over bool) []Usage {
	scale := 1.0 / float64(projects)
	if over {
		scale = 10.0 / float64(projects)
	}
	out := make([]Usage, projects)
	for i := range out {
		lf := lim.fields()
		for f, dst := range out[i].fields() {
			share := scale
			if f >= 4 {
				share /= 2 // successes and errors share one bound
			}
			*dst = int64(r.Float64() * share * float64(*lf[f]))
		}
	}
	return out
}

func capacities(r *rand.Rand) Capacity {
	c := Capacity{NCPUs: 1 + r.IntN(64), PFPOps: 1e8 + r.Float64()*1e10}
	if r.IntN(2) == 0 {
		c.GPUs = []Coproc{{Type: ResourceNVIDIA, Count: 1 + r.IntN(4), PeakFLOPS: 1e11 + r.Float64()*5e13}}
	}
	return c
}

// For any sequence of non-decreasing reports within the limits, the credit
// of each project is exactly its last report minus its first, and nothing
// is clamped.
func TestPropertyWithinLimitsCreditsExactly(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		projects := 1 + r.IntN(5)
		s := newSim(t, projects, capacities(r))
		first, cur := map[int64]Usage{}, map[int64]Usage{}
		for id := 1; id <= projects; id++ {
			u := Usage{CPUEC: r.Int64N(1e12), CPUTime: r.Int64N(1e12), JobsSuccess: r.Int64N(1000)}
			first[int64(id)], cur[int64(id)] = u, u
		}
		s.rpc(0, cur)
		for range 1 + r.IntN(30) {
			dt := time.Duration(1+r.Int64N(3*86400)) * time.Second
			for i, inc := range randomStep(r, s.capacity.accrual(dt), projects, false) {
				cur[int64(i+1)] = cur[int64(i+1)].Add(inc)
			}
			s.rpc(dt, cur)
		}
		for id := int64(1); id <= int64(projects); id++ {
			want := cur[id].Sub(first[id])
			got := s.ledger[id]
			if got == nil {
				got = &DayUsage{}
			}
			if got.Credited != want || !got.Clamped.IsZero() {
				t.Fatalf("seed %d project %d: credited %+v clamped %+v, want %+v", seed, id, got.Credited, got.Clamped, want)
			}
			if s.stored[id].Total != want {
				t.Fatalf("seed %d project %d: total %+v, want %+v", seed, id, s.stored[id].Total, want)
			}
		}
	}
}

// For any non-decreasing reports, over the limits or not, credited plus
// clamped is the whole increase, and the credited part never exceeds the
// host's limits.
func TestPropertyCreditedPlusClampedIsTheIncrease(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 11))
		projects := 1 + r.IntN(5)
		s := newSim(t, projects, capacities(r))
		first, cur := map[int64]Usage{}, map[int64]Usage{}
		for id := int64(1); id <= int64(projects); id++ {
			first[id], cur[id] = Usage{}, Usage{}
		}
		s.rpc(0, cur)
		for range 1 + r.IntN(30) {
			dt := time.Duration(1+r.Int64N(86400)) * time.Second
			before := s.creditedSum()
			for i, inc := range randomStep(r, s.capacity.limits(dt), projects, true) {
				cur[int64(i+1)] = cur[int64(i+1)].Add(inc)
			}
			s.rpc(dt, cur)
			step, lim := s.creditedSum().Sub(before), s.capacity.limits(dt)
			for f, v := range step.fields() {
				if *v > *lim.fields()[f] && f < 4 {
					t.Fatalf("seed %d: credited %+v over the limits %+v", seed, step, lim)
				}
			}
		}
		for id := int64(1); id <= int64(projects); id++ {
			got := s.ledger[id].Credited.Add(s.ledger[id].Clamped)
			if want := cur[id].Sub(first[id]); got != want {
				t.Fatalf("seed %d project %d: credited+clamped %+v, want %+v", seed, id, got, want)
			}
		}
	}
}

// Resets never produce negative amounts, and each reset credits at most the
// new value.
func TestPropertyResetsNeverGoNegative(t *testing.T) {
	t.Parallel()
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 13))
		s := newSim(t, 2, capacities(r))
		cur := map[int64]Usage{1: {}, 2: {}}
		s.rpc(0, cur)
		for range 20 {
			dt := time.Duration(1+r.Int64N(86400)) * time.Second
			reset := map[int64]bool{}
			for i, inc := range randomStep(r, s.capacity.limits(dt), 2, r.IntN(3) == 0) {
				id := int64(i + 1)
				if r.IntN(5) == 0 {
					cur[id], reset[id] = inc, true // detached and attached again: counters restart
				} else {
					cur[id] = cur[id].Add(inc)
				}
			}
			got := s.rpc(dt, cur) // rpc fails the test on any negative ledger amount
			for id := range reset {
				credited, claimed, now := got[id].Credited, got[id].Credited.Add(got[id].Clamped), cur[id]
				for f, v := range now.fields() {
					if *credited.fields()[f] > *v || *claimed.fields()[f] > *v {
						t.Fatalf("seed %d: a reset to %+v credited %+v and clamped %+v", seed, now, got[id].Credited, got[id].Clamped)
					}
				}
			}
		}
	}
}

func (s *sim) creditedSum() Usage {
	var u Usage
	for _, d := range s.ledger {
		u = u.Add(d.Credited)
	}
	return u
}

// For any stored pause, at any time, the plan decides the pause from the
// stored state and changes nothing else: credit, budget, rows and
// assignments are those of the same RPC without a pause. A known pause
// holds until its end and is over from then on; an unknown mode is no
// pause; the reply carries the decision, with one message when it has
// something to say.
func TestPropertyPauseChangesOnlyThePause(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 42))
	modes := []string{"", "none", "pause", "wind_down", "hibernate"}
	for i := range 300 {
		s := newSim(t, 1+r.IntN(4), capacities(r))
		s.rpc(time.Minute, map[int64]Usage{1: {}}) // the baseline
		now := s.now.Add(time.Duration(1+r.IntN(120)) * time.Minute)
		req := SyncRequest{Now: now}
		for _, pr := range s.catalog {
			c := Usage{CPUEC: r.Int64N(1e10), CPUTime: r.Int64N(1e10), JobsSuccess: r.Int64N(5)}.counters()
			req.Projects = append(req.Projects, ProjectReport{URL: pr.URL, AttachedViaAM: true, Counters: &c})
		}
		ps := pauseState{mode: modes[r.IntN(len(modes))], resumePending: r.IntN(2) == 0}
		if r.IntN(3) > 0 {
			until := now.Add(time.Duration(r.IntN(121)-60) * time.Minute)
			ps.until = &until
		}
		in := planInput{Req: req, Catalog: s.catalog, Stored: s.stored, Capacity: s.capacity, Budget: s.budget,
			Loc: time.UTC, MaxProjects: 10}
		without := plan(in)
		in.Pause = ps
		with := plan(in)
		if !reflect.DeepEqual(with.Changes, without.Changes) || !reflect.DeepEqual(with.Budget, without.Budget) ||
			!reflect.DeepEqual(with.Pairs, without.Pairs) || !reflect.DeepEqual(with.Assignments, without.Assignments) {
			t.Fatalf("case %d: the pause %+v changed more than the pause", i, ps)
		}
		d := with.Pause
		known := ps.mode == "pause" || ps.mode == "wind_down"
		over := ps.until != nil && !now.Before(*ps.until)
		switch {
		case known && !over && (d.Mode != PauseMode(ps.mode) || d.Ended):
			t.Fatalf("case %d: the pause %+v before its end decided %+v", i, ps, d)
		case known && over && (d.Mode != PauseNone || !d.Ended):
			t.Fatalf("case %d: the pause %+v at its end decided %+v", i, ps, d)
		case !known && (d.Mode != PauseNone || d.Ended || d.Odd != (ps.mode == "hibernate")):
			t.Fatalf("case %d: no usable pause %+v decided %+v", i, ps, d)
		}
		res := with.result(in)
		if res.Pause != (PauseReply{Mode: d.Mode, Resume: d.SendResume}) {
			t.Fatalf("case %d: the reply's pause %+v, decided %+v", i, res.Pause, d)
		}
		said := d.Ended || d.Mode != PauseNone || d.SendResume
		if n := len(res.Messages) - len(with.Messages); n != map[bool]int{false: 0, true: 1}[said] {
			t.Fatalf("case %d: %d pause messages for %+v", i, n, d)
		}
	}
}

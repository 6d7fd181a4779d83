package accounting

import (
	"math/rand/v2"
	"testing"
	"time"
)

// hostile replays a host's honest work as a hostile client or an unlucky
// network would deliver it: bursts of RPCs, older reports replayed,
// duplicates, projects left out, and (when resets is set) counters that
// restart from zero.
type hostile struct {
	*sim
	r       *rand.Rand
	truth   map[int64]Usage   // the counters the client holds now
	history map[int64][]Usage // reports delivered so far
	times   []time.Time       // of each RPC
	spent   []Usage           // credited so far, after each RPC
}

func (h *hostile) step(resets bool) {
	dt := time.Duration(h.r.Int64N(int64(2*time.Hour))) + time.Millisecond
	if h.r.IntN(3) == 0 {
		dt = time.Duration(h.r.Int64N(int64(2 * time.Second))) // a burst
	}
	work := h.capacity.accrual(dt)
	for id := range h.truth {
		inc := randomStep(h.r, work, len(h.truth), h.r.IntN(4) == 0)[0]
		if resets && h.r.IntN(10) == 0 {
			h.truth[id] = inc // detached and attached again
		} else {
			h.truth[id] = h.truth[id].Add(inc)
		}
	}
	reports := map[int64]Usage{}
	for id, u := range h.truth {
		switch k := h.r.IntN(10); {
		case k == 0: // left out
			continue
		case k <= 2 && len(h.history[id]) > 0: // an older report, or a duplicate
			reports[id] = h.history[id][h.r.IntN(len(h.history[id]))]
		default:
			reports[id] = u
		}
		h.history[id] = append(h.history[id], reports[id])
	}
	before := len(h.changes)
	h.rpc(dt, reports)
	for _, c := range h.changes[before:] {
		if c.Reset && c.Credited.Add(c.Clamped) != c.Cur {
			h.t.Fatalf("a reset to %+v credited %+v and clamped %+v", c.Cur, c.Credited, c.Clamped)
		}
	}
	h.times, h.spent = append(h.times, h.now), append(h.spent, h.creditedSum())
}

// checkWindows checks that between any two RPCs, T apart, the credit of
// each limited quantity is within capacity × (T + 60 s), allowing one
// micro-unit of rounding per RPC.
func (h *hostile) checkWindows(seed uint64) {
	r := h.capacity.rates()
	perSec := []float64{r.CPUEC, r.CPUTime, r.GPUEC, r.GPUTime}
	for i := range h.times {
		for j := i + 1; j < len(h.times); j++ {
			T := h.times[j].Sub(h.times[i]).Seconds()
			got := h.spent[j].Sub(h.spent[i])
			gf := got.fields()
			for f, v := range gf[:4] {
				if lim := perSec[f]*(T+accumulation) + float64(j-i); float64(*v) > lim {
					h.t.Fatalf("seed %d: RPCs %d–%d (%.3f s) credited %d µ of quantity %d; at most %.0f", seed, i, j, T, *v, f, lim)
				}
			}
			jobs := got.JobsSuccess + got.JobsError
			if lim := r.Jobs*(T+accumulation) + jobAllowance + float64(j-i); float64(jobs) > lim {
				h.t.Fatalf("seed %d: RPCs %d–%d credited %d jobs; at most %.0f", seed, i, j, jobs, lim)
			}
		}
	}
}

func newHostile(t *testing.T, seed uint64) *hostile {
	r := rand.New(rand.NewPCG(seed, 17))
	projects := 1 + r.IntN(4)
	h := &hostile{sim: newSim(t, projects, capacities(r)), r: r, truth: map[int64]Usage{}, history: map[int64][]Usage{}}
	h.record = true
	for id := int64(1); id <= int64(projects); id++ {
		// Long-running counters: far above what the host does between RPCs.
		h.truth[id] = Usage{CPUEC: 1e15 + r.Int64N(1e12), CPUTime: 1e15, JobsSuccess: 1e6}
		h.history[id] = []Usage{h.truth[id]}
	}
	h.rpc(0, h.truth)
	h.times, h.spent = []time.Time{h.now}, []Usage{{}}
	return h
}

// Over random RPC sequences with bursts, replays, duplicates and projects
// left out: what is credited in any window is within the host's capacity
// over it plus a minute; credited plus clamped is exactly each project's
// growth (stale reports credit nothing); the recent average stays within
// the host's capacity per day.
func TestPropertyHostileSequences(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		h := newHostile(t, seed)
		first := map[int64]Usage{}
		for id, u := range h.truth {
			first[id] = u
		}
		for range 5 + h.r.IntN(40) {
			h.step(false)
			h.checkAverage(seed)
		}
		h.checkWindows(seed)
		for id := range h.truth {
			top := first[id]
			for _, u := range h.history[id] {
				if !u.decreased(top) {
					top = u
				}
			}
			got := Usage{}
			if l := h.ledger[id]; l != nil {
				got = l.Credited.Add(l.Clamped)
			}
			if want := top.Sub(first[id]); got != want {
				t.Fatalf("seed %d project %d: credited + clamped %+v, want the growth %+v", seed, id, got, want)
			}
		}
	}
}

// With counters that restart from zero too: the window bound and the
// average hold, and a reset credits at most its new value.
func TestPropertyHostileSequencesWithResets(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		h := newHostile(t, seed)
		for range 5 + h.r.IntN(40) {
			h.step(true)
			h.checkAverage(seed)
		}
		h.checkWindows(seed)
	}
}

func (h *hostile) checkAverage(seed uint64) {
	r := h.capacity.rates()
	perDay := (r.CPUEC + r.GPUEC) / microPerUnit * 86400
	if avg := h.average(); avg > perDay*(1+1e-9) {
		h.t.Fatalf("seed %d: the average is %.3f a day; the host can do %.3f", seed, avg, perDay)
	}
}

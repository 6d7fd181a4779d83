package accounting

import (
	"testing"
	"time"
)

// cpuHostPerDay is what cpuHost can earn in a day: 2 × 1e9 × 86400 × SCALE = 400.
const cpuHostPerDay = 400.0

// Back-to-back RPCs share one budget: 200 of them in 0.3 s, each claiming
// 0.27 credits, get what two cores do in 0.3 s plus the 60 s carry-over.
func TestRPCRateDoesNotMultiplyCredit(t *testing.T) {
	t.Parallel()
	s := newSim(t, 1, cpuHost)
	cur := Usage{CPUEC: micro(1000)}
	s.rpc(time.Hour, map[int64]Usage{1: cur})
	start := s.now
	for range 200 {
		cur.CPUEC += micro(0.27)
		s.rpc(1500*time.Microsecond, map[int64]Usage{1: cur})
	}
	limit := perSecond * (s.now.Sub(start).Seconds() + 60)
	got := s.ledger[1]
	if c := fromMicro(got.Credited.CPUEC); c > limit {
		t.Errorf("credited %.3f in %v, more than the %.3f two cores do in that time plus a minute",
			c, s.now.Sub(start), limit)
	}
	if got.Credited.CPUEC+got.Clamped.CPUEC != micro(200*0.27) {
		t.Errorf("credited %d + clamped %d µ, want the whole claim %d µ", got.Credited.CPUEC, got.Clamped.CPUEC, micro(200*0.27))
	}
}

// A project left out of some requests does not widen the interval of the
// others: the interval is the host's, from its previous RPC.
func TestOmittedProjectDoesNotWidenTheInterval(t *testing.T) {
	t.Parallel()
	s := newSim(t, 2, cpuHost)
	cur := map[int64]Usage{1: {}, 2: {}}
	s.rpc(0, cur)
	start := s.now
	hourly := Usage{CPUEC: floorMicro(perSecond * 3600), CPUTime: micro(2 * 3600)}
	for range 24 {
		cur[1] = cur[1].Add(hourly)
		s.rpc(time.Hour, map[int64]Usage{1: cur[1]}) // project 2 left out
	}
	cur[1] = cur[1].Add(hourly)
	cur[2] = cur[2].Add(Usage{CPUEC: 25 * hourly.CPUEC, CPUTime: 25 * hourly.CPUTime})
	s.rpc(time.Hour, cur)
	T := s.now.Sub(start).Seconds()
	credited := s.creditedSum()
	if c := fromMicro(credited.CPUEC); c > perSecond*(T+60) {
		t.Errorf("credited %.3f Cobblestones in %.0f s, more than the host's %.3f", c, T, perSecond*(T+60))
	}
	if secs := fromMicro(credited.CPUTime); secs > 2*(T+60) {
		t.Errorf("credited %.0f CPU seconds in %.0f s of a 2-core host", secs, T)
	}
}

// A late or replayed older report is stale, not a reset: it credits
// nothing, keeps the baseline, and is recorded.
func TestStaleReportCreditsNothing(t *testing.T) {
	t.Parallel()
	s := newSim(t, 1, cpuHost)
	for _, ec := range []float64{1000.10, 1000.20, 1000.10, 1000.30} {
		s.rpc(time.Minute, map[int64]Usage{1: {CPUEC: micro(ec), CPUTime: micro(ec)}})
	}
	got := s.ledger[1]
	if got.Credited.CPUEC != micro(0.20) || !got.Clamped.IsZero() {
		t.Errorf("credited %d µ, clamped %+v; want 200000 µ (1000.30 − 1000.10) and nothing clamped",
			got.Credited.CPUEC, got.Clamped)
	}
	if s.events[EventReset] != 0 || s.events[EventStaleReport] != 1 {
		t.Errorf("events %v, want one stale_report and no reset", s.events)
	}
}

// Twenty copies of a host's rising reports, handled in a scrambled order
// at one instant, credit at most the growth, and none is a reset.
func TestRacingReportsAreNotResets(t *testing.T) {
	t.Parallel()
	s := newSim(t, 1, cpuHost)
	s.rpc(time.Hour, map[int64]Usage{1: {CPUEC: micro(1000), CPUTime: micro(5000)}})
	order := []int{3, 1, 7, 2, 0, 9, 4, 19, 5, 11, 6, 8, 13, 10, 12, 15, 14, 18, 16, 17}
	for _, i := range order {
		inc := int64(i+1) * micro(0.0125)
		s.rpc(0, map[int64]Usage{1: {CPUEC: micro(1000) + inc, CPUTime: micro(5000) + inc}})
	}
	got := s.ledger[1]
	if c := got.Credited.CPUEC + got.Clamped.CPUEC; c > micro(0.25) {
		t.Errorf("credited %d + clamped %d µ for %d µ of growth", got.Credited.CPUEC, got.Clamped.CPUEC, micro(0.25))
	}
	if s.events[EventReset] != 0 {
		t.Errorf("%d resets among rising reports", s.events[EventReset])
	}
}

// The recent average never exceeds what the host can do in a day, however
// short its intervals.
func TestAverageWithinCapacity(t *testing.T) {
	t.Parallel()
	s := newSim(t, 2, cpuHost)
	cur := map[int64]Usage{1: {}, 2: {}}
	s.rpc(0, cur)
	for i := range 300 {
		dt := 2 * time.Second
		if i%50 == 49 {
			dt = time.Hour
		}
		for id := range cur {
			cur[id] = cur[id].Add(Usage{CPUEC: floorMicro(perSecond * 40)})
		}
		s.rpc(dt, cur)
		if avg := s.average(); avg > cpuHostPerDay*(1+1e-9) {
			t.Fatalf("after RPC %d the average is %.1f a day; the host can do %.0f", i, avg, cpuHostPerDay)
		}
	}
}

// average is the host's recent average credit per day, over its projects.
func (s *sim) average() float64 {
	var sum float64
	for _, p := range s.stored {
		sum += decayedAverage(p.Avg, p.AvgTime, s.now)
	}
	return sum
}

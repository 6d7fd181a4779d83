package accounting

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// simSeed seeds the simulation's random hosts.
const simSeed = 7

// simHost is one computer of the share simulation.
type simHost struct {
	in       AssignInput
	capacity Capacity
	phase    int // the hour of the day (mod 6) of its RPCs
	rates    map[int64]float64
}

// simCatalog has projects of different shares, platforms, resources and
// keywords.
func simCatalog() []Project {
	p := func(id int64, share float64, res []string, plat []string, kw ...int) Project {
		return Project{ID: id, Share: share, Status: StatusActive, Resources: res, Platforms: plat, Keywords: kw}
	}
	cpu, nv := []string{"CPU"}, []string{"CPU", "NVIDIA"}
	return []Project{
		p(1, 100, []string{"CPU", "NVIDIA", "ATI", "intel_gpu"}, nil, 1, 4),
		p(2, 200, cpu, nil, 9, 11),
		p(3, 100, cpu, nil, 9, 13, 14),
		p(4, 50, nv, nil, 1),
		p(5, 150, []string{"CPU", "NVIDIA", "ATI"}, nil, 15, 32),
		p(6, 100, cpu, []string{"x86_64-pc-linux-gnu", "windows_x86_64"}, 29, 35),
		p(7, 100, []string{"CPU", "apple_gpu"}, nil, 16),
		p(8, 100, cpu, nil, 6, 7),
		{ID: 9, Share: 100, Status: StatusPaused, Resources: cpu},
	}
}

// newSimHost draws a host: platform, CPUs, GPUs and its volunteer's
// preferences.
func newSimHost(r *rand.Rand) *simHost {
	h := &simHost{phase: r.IntN(6)}
	switch x := r.Float64(); {
	case x < 0.5:
		h.in.Platforms = []string{"x86_64-pc-linux-gnu", "i686-pc-linux-gnu"}
	case x < 0.85:
		h.in.Platforms = []string{"windows_x86_64", "windows_intelx86"}
	default:
		h.in.Platforms = []string{"arm64-apple-darwin", "x86_64-apple-darwin"}
	}
	h.capacity = Capacity{NCPUs: 2 + r.IntN(15), PFPOps: 2e9 + 3e9*r.Float64()}
	for _, g := range []struct {
		kind string
		p    float64
	}{{"NVIDIA", 0.3}, {"ATI", 0.1}, {"intel_gpu", 0.1}, {"apple_gpu", 0.05}} {
		if r.Float64() < g.p {
			h.capacity.GPUs = append(h.capacity.GPUs, Coproc{Type: g.kind, Count: 1, PeakFLOPS: 2e10 + 6e10*r.Float64()})
		}
	}
	h.in.Resources = []string{"CPU"}
	for _, g := range h.capacity.GPUs {
		h.in.Resources = append(h.in.Resources, g.Type)
	}
	h.in.Keywords, h.in.Choices = map[int]KeywordAnswer{}, map[int64]ProjectChoice{}
	areas := []int{1, 6, 9, 15, 16, 29, 14, 35}
	switch x := r.Float64(); {
	case x < 0.25:
		h.in.Keywords[areas[r.IntN(len(areas))]] = "yes"
	case x < 0.4:
		h.in.Keywords[areas[r.IntN(len(areas))]] = "no"
	}
	if r.Float64() < 0.03 {
		h.in.Choices[int64(1+r.IntN(8))] = ChoiceNever
	}
	if r.Float64() < 0.03 {
		h.in.Choices[int64(1+r.IntN(8))] = ChoiceAlways
	}
	h.in.Max, h.in.Running = 4, map[int64]bool{}
	return h
}

// TestShareSimulation lets 5,000 hosts join over 40 days, each calling
// every 6 hours, with the recent work read from a simulated ledger every
// hour. The shares of the last 7 days' work must end within 10 % of the
// targets, no host may get a project its volunteer said never or no to, and
// under 1 % of RPCs may change a host's projects.
func TestShareSimulation(t *testing.T) {
	t.Parallel()
	nHosts := 5000
	if raceEnabled || testing.Short() {
		// The race detector makes this single-threaded simulation about ten
		// times slower: a fifth of the hosts, the same rules.
		nHosts = 1000
	}
	const joinHours, totalHours = 40 * 24, 60 * 24
	r := rand.New(rand.NewPCG(simSeed, 10))
	catalog := simCatalog()
	var hosts []*simHost
	var recent RecentWork
	daily := map[int]map[int64]float64{} // day → project → Cobblestones
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rpcs, changed := 0, 0
	rates := map[int64]float64{} // all hosts' work per day, by project
	for hour := 0; hour < totalHours; hour++ {
		now := start.Add(time.Duration(hour) * time.Hour)
		day := hour / 24
		recent.Set(ledgerPerDay(daily, day), now)
		for len(hosts) < nHosts*min(hour+1, joinHours)/joinHours {
			hosts = append(hosts, newSimHost(r))
		}
		if daily[day] == nil {
			daily[day] = map[int64]float64{}
		}
		for id, rate := range rates {
			daily[day][id] += rate / 24
		}
		for _, h := range hosts {
			if hour%6 != h.phase {
				continue
			}
			h.in.Catalog, h.in.Shares = catalog, recent.Fractions()
			before := h.in.Running
			work := Assign(h.in)
			h.in.Running = map[int64]bool{}
			for _, a := range work {
				h.in.Running[a.Project.ID] = a.Action != Detach
				checkAllowed(t, h, a)
			}
			same := sameKeys(before, h.in.Running)
			if len(before) > 0 {
				rpcs++
				if !same {
					changed++
				}
			}
			if !same {
				for id, r := range h.rates {
					rates[id] -= r
				}
				h.rates = workRates(h.capacity, work)
				for id, r := range h.rates {
					rates[id] += r
				}
			}
			recent.Expect(expectedRates(h.capacity, work), now)
		}
	}
	shares := ledgerPerDay(daily, totalHours/24)
	total, targetTotal := 0.0, 0.0
	for _, p := range catalog {
		total += shares[p.ID]
		if p.Status == StatusActive {
			targetTotal += p.Share
		}
	}
	worst := 0.0
	for _, p := range catalog[:8] {
		got, want := shares[p.ID]/total, p.Share/targetTotal
		dev := math.Abs(got-want) / want
		worst = max(worst, dev)
		t.Logf("project %d: target %.3f, recent work %.3f (%+.1f %%)", p.ID, want, got, 100*(got-want)/want)
		if dev > 0.10 {
			t.Errorf("project %d: share of recent work %.3f, target %.3f: off by %.1f %%", p.ID, got, want, 100*dev)
		}
	}
	churn := float64(changed) / float64(rpcs)
	t.Logf("%d hosts, %d RPCs of known hosts, %d changed their projects (%.3f %%); worst share deviation %.1f %%",
		len(hosts), rpcs, changed, 100*churn, 100*worst)
	if churn >= 0.01 {
		t.Errorf("churn %.2f %% per RPC, want under 1 %%", 100*churn)
	}
}

// ledgerPerDay is the simulated ledger's Cobblestones per day per project
// over the 7 days before day (as the store reads it).
func ledgerPerDay(daily map[int]map[int64]float64, day int) map[int64]float64 {
	out := map[int64]float64{}
	for d := day - 7; d < day; d++ {
		for id, v := range daily[d] {
			out[id] += v / 7
		}
	}
	return out
}

// workRates is the work a host really gives its projects per day: each
// resource split evenly over the projects that use it.
func workRates(c Capacity, as []Assignment) map[int64]float64 {
	kept := slices.Clone(as)
	for i := range kept {
		kept[i].Reason = ""
	}
	return expectedRates(c, kept)
}

func checkAllowed(t *testing.T, h *simHost, a Assignment) {
	t.Helper()
	if a.Action != Work {
		return
	}
	_, no := keywordMatches(a.Project.Keywords, h.in.Keywords)
	if h.in.Choices[a.Project.ID] == ChoiceNever || (no && h.in.Choices[a.Project.ID] != ChoiceAlways) {
		t.Fatalf("host given project %d against its volunteer's choices %v %v", a.Project.ID, h.in.Choices, h.in.Keywords)
	}
	if a.Project.Status != StatusActive {
		t.Fatalf("host given %s project %d", a.Project.Status, a.Project.ID)
	}
}

func sameKeys(a, b map[int64]bool) bool {
	return slices.Equal(keysOf(a), keysOf(b))
}

func keysOf(m map[int64]bool) []int64 {
	var out []int64
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

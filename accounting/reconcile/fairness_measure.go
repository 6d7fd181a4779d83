package reconcile

import (
	"math"
	"slices"
)

// FairProject names a project the measure reports on, and how many of its
// exports were read in the window.
type FairProject struct {
	ID      int64  `db:"id"`
	URL     string `db:"url"`
	Name    string `db:"name"`
	Exports int    `db:"exports"`
}

// measureFairness computes the measure over one window from the verified
// hosts' credit (any order): each project's figures and each ordered pair
// of projects. Hosts with less than MinFairEstimated estimated credit and
// hosts of projects not in projects are left out. It is pure and
// deterministic: the same hosts give the same figures.
func measureFairness(window int, projects []FairProject, hosts []CreditHost) Fairness {
	f := Fairness{WindowDays: window}
	byProject := map[int64][]CreditHost{}
	known := map[int64]bool{}
	for _, p := range projects {
		known[p.ID] = true
	}
	seenHosts, seenUsers := map[int64]bool{}, map[int64]bool{}
	for _, h := range hosts {
		if known[h.ProjectID] && h.Estimated >= MinFairEstimated {
			byProject[h.ProjectID] = append(byProject[h.ProjectID], h)
			seenHosts[h.HostID], seenUsers[h.UserID] = true, true
		}
	}
	f.Hosts, f.Volunteers = len(seenHosts), len(seenUsers)
	for _, p := range projects {
		pf := projectFairness(p, byProject[p.ID])
		pf.Window = window
		f.Projects = append(f.Projects, pf)
	}
	positions(f.Projects)
	ratioOf := map[int64]map[int64]float64{} // project → host → ratio
	for id, hs := range byProject {
		ratioOf[id] = make(map[int64]float64, len(hs))
		for _, h := range hs {
			ratioOf[id][h.HostID] = h.Ratio()
		}
	}
	for _, a := range projects {
		for _, b := range projects {
			if a.ID != b.ID {
				f.Pairs = append(f.Pairs, pairFairness(a, b, byProject[a.ID], ratioOf[b.ID]))
			}
		}
	}
	return f
}

// projectFairness is one project's figures from its counted hosts.
func projectFairness(p FairProject, hosts []CreditHost) ProjectFairness {
	pf := ProjectFairness{ProjectID: p.ID, URL: p.URL, Name: p.Name, Exports: p.Exports,
		Hosts: len(hosts), Volunteers: volunteersOf(hosts)}
	pf.Enough = enough(pf.Hosts, pf.Volunteers)
	if !pf.Enough {
		return pf
	}
	rs := ratios(hosts)
	s := summarize(rs, uint64(p.ID))
	pf.Median, pf.CI95, pf.IQR = s.Median, s.CI95, s.IQR
	above := 0
	for _, r := range rs {
		if r > CheatBound*pf.Median {
			above++
		}
	}
	pf.ShareAbove = float64(above) / float64(len(rs))
	deviceFigures(&pf, hosts)
	return pf
}

// deviceFigures sets pf's device figures: hosts whose GPU did at least
// half their estimated work against hosts that used no GPU.
func deviceFigures(pf *ProjectFairness, hosts []CreditHost) {
	var gpu, cpu []CreditHost
	for _, h := range hosts {
		switch {
		case h.GPUHours > 0 && h.EstimatedGPU >= h.Estimated/2:
			gpu = append(gpu, h)
		case h.GPUHours == 0 && h.EstimatedGPU == 0:
			cpu = append(cpu, h)
		}
	}
	pf.GPUHosts, pf.CPUHosts = len(gpu), len(cpu)
	if !enough(len(gpu), volunteersOf(gpu)) || !enough(len(cpu), volunteersOf(cpu)) {
		return
	}
	if m := median(ratios(cpu)); m > 0 {
		v := median(ratios(gpu)) / m
		pf.GPUvsCPU = &v
	}
	pf.PerCPUHour = perHour(cpu, func(h CreditHost) float64 { return h.CPUHours })
	pf.PerGPUHour = perHour(gpu, func(h CreditHost) float64 { return h.GPUHours })
}

// perHour is the median of granted credit per hour of the hosts that
// logged hours; nil when none did.
func perHour(hosts []CreditHost, hours func(CreditHost) float64) *float64 {
	var vs []float64
	for _, h := range hosts {
		if hrs := hours(h); hrs > 0 {
			vs = append(vs, h.Granted/hrs)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	m := median(vs)
	return &m
}

// positions sets each project's position: its median ÷ the median of the
// medians of the projects with enough data.
func positions(ps []ProjectFairness) {
	var ms []float64
	for _, p := range ps {
		if p.Enough {
			ms = append(ms, p.Median)
		}
	}
	mid := median(ms)
	for i := range ps {
		if ps[i].Enough && mid > 0 {
			ps[i].Position = ps[i].Median / mid
		}
	}
}

// pairFairness compares a with b from the hosts counted on both whose
// ratio on b (onB: host → ratio) is positive: the median of their ratio
// on a ÷ ratio on b, with a distribution-free 95 % interval
// (orderInterval).
func pairFairness(a, b FairProject, onA []CreditHost, onB map[int64]float64) PairFairness {
	pf := PairFairness{A: a.ID, B: b.ID, AURL: a.URL, BURL: b.URL, AName: a.Name, BName: b.Name}
	var qs []float64
	users := map[int64]bool{}
	for _, h := range onA {
		if rb := onB[h.HostID]; rb > 0 {
			qs = append(qs, h.Ratio()/rb)
			users[h.UserID] = true
		}
	}
	pf.Hosts, pf.Volunteers = len(qs), len(users)
	if pf.Enough = enough(pf.Hosts, pf.Volunteers); pf.Enough {
		slices.Sort(qs)
		pf.Median, pf.CI95 = quantile(qs, 0.5), orderInterval(qs)
	}
	return pf
}

// orderInterval is a distribution-free 95 % interval of the median of
// sorted values: the order statistics n/2 ∓ 0.98·√n (the normal
// approximation of the binomial), clamped to the sample.
func orderInterval(sorted []float64) Interval {
	n := float64(len(sorted))
	half := 0.98 * math.Sqrt(n)
	lo := max(int(math.Floor(n/2-half)), 0)
	hi := min(int(math.Ceil(n/2+half)), len(sorted)-1)
	return Interval{sorted[lo], sorted[hi]}
}

package reconcile

import (
	"math"
	"testing"
)

// synthHosts are the known answers in pure form: 24 hosts of 6 volunteers
// on projects 1 (granting 1.0× the estimate), 2 (0.5×) and 3 (2.0×), each
// host off by a factor of its own (±3 %) on every project, hosts 1–3 at 5×
// on project 1; project 4 grants GPU work 3× CPU work (24 CPU-only hosts,
// 24 GPU hosts); project 5 has 12 hosts of 6 volunteers, project 6 has 22
// hosts of 3 volunteers: both below the thresholds.
func synthHosts() []CreditHost {
	var hs []CreditHost
	host := func(p, id int64, ratio float64, gpu bool) {
		h := CreditHost{ProjectID: p, HostID: id, UserID: 1 + (id-1)%6, Estimated: 100, CPUHours: 48}
		if p == 6 {
			h.UserID = 1 + id%3
		}
		h.Granted = 100 * ratio * (1 + 0.01*float64(id%7-3))
		if gpu {
			h.EstimatedGPU, h.GPUHours, h.CPUHours = 100, 10, 0
		}
		hs = append(hs, h)
	}
	for id := int64(1); id <= 24; id++ {
		host(1, id, map[bool]float64{true: 5, false: 1}[id <= 3], false)
		host(2, id, 0.5, false)
		host(3, id, 2, false)
		host(4, id, 1, false)
		host(4, 100+id, 3, true)
		if id <= 12 {
			host(5, 200+id, 1.5, false)
		}
		if id <= 22 {
			host(6, 300+id, 1.5, false)
		}
	}
	// Too little estimated credit to count, however absurd its ratio.
	hs = append(hs, CreditHost{ProjectID: 2, HostID: 999, UserID: 9, Estimated: 10, Granted: 10000})
	return hs
}

var synthProjects = []FairProject{{ID: 1, Name: "One"}, {ID: 2, Name: "Half"}, {ID: 3, Name: "Double"},
	{ID: 4, Name: "GPU"}, {ID: 5, Name: "Small"}, {ID: 6, Name: "Few"}}

func TestMeasureRecoversKnownAnswers(t *testing.T) {
	f := measureFairness(30, synthProjects, synthHosts())
	// Project 4's hosts are half at 1 and half at 3: its median is theirs.
	truth := map[int64]float64{1: 1, 2: 0.5, 3: 2}
	for _, p := range f.Projects {
		want, ok := truth[p.ProjectID]
		if !ok {
			continue
		}
		if !p.Enough || p.CI95.Low > want || p.CI95.High < want || p.IQR.Low > p.Median || p.IQR.High < p.Median {
			t.Errorf("project %s: median %v, interval %v, IQR %v; want %v inside", p.Name, p.Median, p.CI95, p.IQR, want)
		}
	}
	one, gpu, small, few := f.Projects[0], f.Projects[3], f.Projects[4], f.Projects[5]
	if one.ShareAbove != 3.0/24 || f.Projects[1].ShareAbove != 0 {
		t.Errorf("shares above 1.1× the median: %v and %v, want 0.125 and 0", one.ShareAbove, f.Projects[1].ShareAbove)
	}
	if gpu.GPUvsCPU == nil || math.Abs(*gpu.GPUvsCPU-3) > 0.05 || gpu.GPUHosts != 24 || gpu.CPUHosts != 24 {
		t.Errorf("GPU ÷ CPU: %v over %d GPU and %d CPU hosts, want 3 over 24 and 24", gpu.GPUvsCPU, gpu.GPUHosts, gpu.CPUHosts)
	}
	if gpu.PerGPUHour == nil || gpu.PerCPUHour == nil || *gpu.PerGPUHour < 25 || *gpu.PerCPUHour > 2.2 {
		t.Errorf("per hour: CPU %v, GPU %v", gpu.PerCPUHour, gpu.PerGPUHour)
	}
	if small.Enough || small.Hosts != 12 || small.Volunteers != 6 || small.Median != 0 || small.GPUvsCPU != nil {
		t.Errorf("the small project shows figures: %+v", small)
	}
	if few.Enough || few.Hosts != 22 || few.Volunteers != 3 || few.Median != 0 || few.ShareAbove != 0 {
		t.Errorf("the project of 3 volunteers shows figures: %+v", few)
	}
	for _, c := range []struct {
		a, b int64
		want float64
	}{{2, 1, 0.5}, {1, 2, 2}, {3, 2, 4}, {3, 1, 2}} {
		p, ok := f.Pair(c.a, c.b)
		if !ok || !p.Enough || math.Abs(p.Median-c.want) > 1e-9 || p.Hosts != 24 || p.CI95.Low > c.want || p.CI95.High < c.want {
			t.Errorf("pair %d÷%d: %+v, want %v", c.a, c.b, p, c.want)
		}
	}
	if p, _ := f.Pair(5, 1); p.Enough || p.Hosts != 0 {
		t.Errorf("pair of projects sharing no host: %+v", p)
	}
	if f.Hosts != 24+24+12+22 || f.Volunteers != 6 {
		t.Errorf("counted %d hosts of %d volunteers", f.Hosts, f.Volunteers)
	}
}

// Positions are relative to the median project: the medians 1, 0.5, 2 and
// 2 (project 4) have 1.5 as theirs.
func TestMeasurePositions(t *testing.T) {
	f := measureFairness(30, synthProjects, synthHosts())
	for i, want := range []float64{1 / 1.5, 0.5 / 1.5, 2 / 1.5, 2 / 1.5, 0, 0} {
		if got := f.Projects[i].Position; math.Abs(got-want) > 0.02 {
			t.Errorf("%s: position %v, want %v", f.Projects[i].Name, got, want)
		}
	}
}

// The same hosts give the same figures, in any order.
func TestMeasureIsReproducible(t *testing.T) {
	hs := synthHosts()
	a := measureFairness(30, synthProjects, hs)
	for i, j := 0, len(hs)-1; i < j; i, j = i+1, j-1 {
		hs[i], hs[j] = hs[j], hs[i]
	}
	b := measureFairness(30, synthProjects, hs)
	for i := range a.Projects {
		if a.Projects[i].CI95 != b.Projects[i].CI95 {
			t.Errorf("%s: interval %v, then %v", a.Projects[i].Name, a.Projects[i].CI95, b.Projects[i].CI95)
		}
	}
}

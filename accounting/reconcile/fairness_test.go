package reconcile_test

import (
	"math"
	"slices"
	"testing"

	"github.com/cobble-am/cobble/accounting/reconcile"
)

// knownAnswers builds the fairness tests' world through the RPC and real
// exports: 24 CPU hosts of 6 volunteers work for One (granting 1.0× the
// estimate; hosts 1–3 at 5×), Half (0.5×), Double (2.0×) and Graphics
// (1.0× on CPU); 24 GPU hosts work for Graphics, which grants GPU work
// 3×; 8 of the CPU hosts also work for Small (too few); 3 rogue hosts
// claim records of One that are someone else's, and the test plants
// absurd granted credit for them.
func knownAnswers(t *testing.T) (*fairEnv, map[string]*fairProject) {
	one := &fairProject{name: "One", cpu: 1, gpu: 1, cheats: map[int]float64{1: 5, 2: 5, 3: 5}}
	half := &fairProject{name: "Half", cpu: 0.5, gpu: 0.5}
	double := &fairProject{name: "Double", cpu: 2, gpu: 2}
	graphics := &fairProject{name: "Graphics", cpu: 1, gpu: 3}
	small := &fairProject{name: "Small", cpu: 1, gpu: 1}
	e := newFairEnv(t, one, half, double, graphics, small)
	for n := range 24 {
		ps := []*fairProject{one, half, double, graphics}
		if n < 8 {
			ps = append(ps, small)
		}
		e.addHost(n, false, ps...)
		e.addHost(24+n, true, graphics)
	}
	for n := 48; n < 51; n++ {
		e.addRogue(n, one)
	}
	for _, p := range e.projects {
		e.export(p)
	}
	for _, h := range e.hosts {
		if !h.rogue {
			continue
		}
		if _, err := e.pool.Exec(e.ctx, `INSERT INTO confirmed_ledger (project_id, host_id, user_id, day, granted_micro)
			SELECT $1, id, user_id, '2026-05-01', 1000000000000 FROM hosts WHERE id = $2`, one.proj.ID, h.cobbleID); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.rec.RefreshRatios(e.ctx, one.proj); err != nil {
		t.Fatal(err)
	}
	if err := e.rec.Fairness.Measure(e.ctx); err != nil {
		t.Fatal(err)
	}
	return e, map[string]*fairProject{"One": one, "Half": half, "Double": double, "Graphics": graphics, "Small": small}
}

func TestFairnessRecoversKnownAnswers(t *testing.T) {
	t.Parallel()
	e, ps := knownAnswers(t)
	f, err := e.rec.Fairness.Fairness(e.ctx, 30)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]reconcile.ProjectFairness{}
	for _, p := range f.Projects {
		byName[p.Name] = p
	}
	for name, want := range map[string]float64{"One": 1, "Half": 0.5, "Double": 2} {
		p := byName[name]
		if !p.Enough || p.Hosts != 24 || p.Volunteers != 6 || p.Exports != 2 || p.CI95.Low > want || p.CI95.High < want {
			t.Errorf("%s: %d hosts of %d volunteers over %d exports, median %v in %v; want 24, 6, 2 and %v inside",
				name, p.Hosts, p.Volunteers, p.Exports, p.Median, p.CI95, want)
		}
	}
	if one := byName["One"]; one.ShareAbove != 3.0/24 || byName["Half"].ShareAbove != 0 {
		t.Errorf("shares above 1.1× the median: One %v, Half %v; want 0.125 and 0", one.ShareAbove, byName["Half"].ShareAbove)
	}
	g := byName["Graphics"]
	if g.GPUvsCPU == nil || math.Abs(*g.GPUvsCPU-3) > 0.05 || g.GPUHosts != 24 || g.CPUHosts != 24 {
		t.Errorf("Graphics: GPU ÷ CPU %v over %d GPU and %d CPU hosts; want 3 over 24 and 24", g.GPUvsCPU, g.GPUHosts, g.CPUHosts)
	}
	if s := byName["Small"]; s.Enough || s.Hosts != 8 || s.Median != 0 || s.GPUvsCPU != nil {
		t.Errorf("Small, below the threshold, shows figures: %+v", s)
	}
	for _, c := range []struct {
		a, b string
		want float64
	}{{"One", "Half", 2}, {"Half", "One", 0.5}, {"Double", "Half", 4}, {"Graphics", "One", 1}} {
		p, ok := f.Pair(ps[c.a].proj.ID, ps[c.b].proj.ID)
		if !ok || !p.Enough || p.Hosts != 24 || math.Abs(p.Median-c.want) > 1e-6 {
			t.Errorf("%s ÷ %s: %+v, want %v over 24 hosts", c.a, c.b, p, c.want)
		}
	}
	if p, ok := f.Pair(ps["Small"].proj.ID, ps["One"].proj.ID); !ok || p.Enough || p.Hosts != 8 || p.Median != 0 {
		t.Errorf("Small ÷ One shows figures: %+v", p)
	}
	if f90, err := e.rec.Fairness.Fairness(e.ctx, 90); err != nil || len(f90.Projects) != 5 || f90.ComputedAt.IsZero() {
		t.Errorf("the 90-day window: %+v %v", f90, err)
	}
}

// Projects no longer reconciled leave a window when their last export
// falls out of it.
func TestFairnessForgetsOldExports(t *testing.T) {
	t.Parallel()
	e, _ := knownAnswers(t)
	e.now = e.now.AddDate(0, 0, 40)
	if err := e.rec.Fairness.Measure(e.ctx); err != nil {
		t.Fatal(err)
	}
	f30, err := e.rec.Fairness.Fairness(e.ctx, 30)
	if err != nil {
		t.Fatal(err)
	}
	f90, err := e.rec.Fairness.Fairness(e.ctx, 90)
	if err != nil {
		t.Fatal(err)
	}
	if len(f30.Projects) != 0 || len(f30.Pairs) != 0 || f30.Hosts != 0 || len(f90.Projects) != 5 {
		t.Errorf("40 days on: %d projects over 30 days (%d hosts), %d over 90; want 0, 0, 5",
			len(f30.Projects), f30.Hosts, len(f90.Projects))
	}
}

// Matches that are not verified never count, however absurd the credit
// the ledgers hold for them: the planted rogue hosts' ratios are in the
// admin's host ratios, not in the measure.
func TestFairnessCountsOnlyVerifiedHosts(t *testing.T) {
	t.Parallel()
	e, ps := knownAnswers(t)
	var absurd int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM reconcile_ratios WHERE ratio > 1000`).Scan(&absurd); err != nil {
		t.Fatal(err)
	}
	if absurd != 3 {
		t.Fatalf("%d absurd host ratios stored for the admin, want the 3 planted", absurd)
	}
	var counted int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM credit_hosts c JOIN reconcile_unverified u
		ON u.host_id = c.host_id`).Scan(&counted); err != nil {
		t.Fatal(err)
	}
	ones, err := e.rec.Fairness.ProjectFairness(e.ctx, ps["One"].proj.ID)
	if err != nil {
		t.Fatal(err)
	}
	if counted != 0 || len(ones) != 2 || ones[0].Hosts != 24 || ones[0].Median > 1.05 || ones[0].ShareAbove != 3.0/24 {
		t.Errorf("%d unverified hosts' credit kept; One's figures %+v", counted, ones)
	}
	pull, err := e.rec.Fairness.PullingHosts(e.ctx, ps["One"].proj.ID, 30, ones[0].Median, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range pull {
		if h.Ratio < 4 {
			t.Errorf("the hosts pulling One most: %+v, want the three at 5×", pull)
		}
	}
}

// The hosts pulling a project's figures most are chosen once per
// reconciliation run: asked again, only the chosen hosts are read. Here a
// row changed under the same run (which no writer does) shows that the
// window was not sorted again; a new run's rows are chosen afresh, and a
// chosen host's deletion has them chosen again, the list still full.
func TestPullingHostsChosenOncePerRun(t *testing.T) {
	t.Parallel()
	e, ps := knownAnswers(t)
	one := ps["One"].proj.ID
	figures, err := e.rec.Fairness.ProjectFairness(e.ctx, one)
	if err != nil || len(figures) == 0 || figures[0].Window != 30 {
		t.Fatalf("One's figures: %+v, %v", figures, err)
	}
	pulling := func() []int64 {
		t.Helper()
		hs, err := e.rec.Fairness.PullingHosts(e.ctx, one, 30, figures[0].Median, 3)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, h := range hs {
			ids = append(ids, h.HostID)
		}
		return ids
	}
	first := pulling()
	if len(first) != 3 {
		t.Fatalf("the hosts pulling One: %v, want 3", first)
	}
	var other int64
	if err := e.pool.QueryRow(e.ctx, `SELECT host_id FROM credit_hosts WHERE project_id = $1 AND window_days = 30
		AND host_id <> ALL($2) ORDER BY host_id LIMIT 1`, one, first).Scan(&other); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(e.ctx, `UPDATE credit_hosts SET granted = granted + 1e9
		WHERE project_id = $1 AND window_days = 30 AND host_id = $2`, one, other); err != nil {
		t.Fatal(err)
	}
	if again := pulling(); !slices.Equal(again, first) {
		t.Errorf("asked again under the same run: %v, want the first choice %v", again, first)
	}
	if _, err := e.pool.Exec(e.ctx, `UPDATE credit_hosts SET run_id = (SELECT max(id) FROM reconcile_runs
		WHERE id <> credit_hosts.run_id) WHERE project_id = $1`, one); err != nil {
		t.Fatal(err)
	}
	fresh := pulling()
	if len(fresh) != 3 || fresh[0] != other {
		t.Errorf("under a new run: %v, want host %d first", fresh, other)
	}
	if _, err := e.pool.Exec(e.ctx, `DELETE FROM hosts WHERE id = $1`, other); err != nil {
		t.Fatal(err)
	}
	if after := pulling(); len(after) != 3 || slices.Contains(after, other) || !slices.Equal(after, first) {
		t.Errorf("after host %d was deleted: %v, want the first choice %v", other, after, first)
	}
}

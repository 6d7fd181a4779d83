package reconcile_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc/exporttest"
	"github.com/cobble-am/cobble/internal/testdb"
)

// fairProject is a project of the fairness tests: what it grants per
// estimated Cobblestone, on CPU and on GPU, and which hosts it overpays.
type fairProject struct {
	name     string
	cpu, gpu float64
	cheats   map[int]float64 // host number → its ratio instead
	proj     accounting.Project
	stats    *statsServer
	hostIDs  map[int]int64 // host number → project host id
}

// fairEnv is Cobble with volunteers' hosts working for several projects,
// each publishing credit exports that grant known multiples of what the
// hosts estimated.
type fairEnv struct {
	t        *testing.T
	ctx      context.Context
	pool     *pgxpool.Pool
	store    *accounting.Store
	rec      *reconcile.Reconciler
	projects []*fairProject
	hosts    []fairHost
	now      time.Time
}

// fairHost is one computer: its number, volunteer, Cobble host id, the
// projects it works for, whether it computes on a GPU, and whether it
// claims project host ids that are someone else's (never verified).
type fairHost struct {
	n        int
	email    string
	cobbleID int64
	projects []*fairProject
	gpu      bool
	rogue    bool
}

// newFairEnv makes the projects (none of them exporting yet) and six
// volunteers.
func newFairEnv(t *testing.T, projects ...*fairProject) *fairEnv {
	ctx := context.Background()
	pool := testdb.New(t)
	e := &fairEnv{t: t, ctx: ctx, pool: pool, store: accounting.NewStore(pool, testOptions),
		projects: projects, now: may1.Add(50 * time.Hour)}
	e.rec = reconcile.New(e.store, pool, reconcile.Options{AllowPrivate: true, Now: func() time.Time { return e.now }})
	for i, p := range projects {
		p.stats, p.hostIDs = newStatsServer(t), map[int]int64{}
		var err error
		p.proj, err = e.store.Catalog.AddProject(ctx, accounting.Project{URL: fmt.Sprintf("https://p%d.example.org/", i),
			Name: p.name, Authenticator: "k", StatsURL: p.stats.URL()})
		if err != nil {
			t.Fatal(err)
		}
	}
	for v := range 6 {
		if _, err := e.store.Accounts.CreateUser(ctx, accounting.NewUser{Email: volunteer(v), Password: "first-pass"}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func volunteer(v int) string { return fmt.Sprintf("v%d@example.org", v) }

// addRogue is addHost for a host whose project host ids are someone
// else's in the exports.
func (e *fairEnv) addRogue(n int, projects ...*fairProject) {
	e.addHost(n, false, projects...)
	e.hosts[len(e.hosts)-1].rogue = true
}

// addHost joins host number n, of volunteer n mod 6, and has it report
// 100 Cobblestones estimated for each of its projects over May 1st and
// 2nd: on its GPU (10 GPU-hours) when gpu, else on its CPU (48 CPU-hours).
func (e *fairEnv) addHost(n int, gpu bool, projects ...*fairProject) {
	email, cpid := volunteer(n%6), fmt.Sprintf("fair-cpid-%d", n)
	h := fairHost{n: n, email: email, projects: projects, gpu: gpu}
	report := accounting.HostReport{CPID: cpid, Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: 4, PFPOps: 2e9}
	if gpu {
		report.Coprocs = []accounting.Coproc{{Type: "NVIDIA", Count: 1, PeakFLOPS: 5e12}}
	}
	req := joinRequest(email, "first-pass", cpid)
	req.Now, req.Host = may1.Add(-time.Hour), report
	res, err := e.store.Sync.Sync(e.ctx, req)
	if err != nil {
		e.t.Fatal(err)
	}
	h.cobbleID = res.HostID
	for i, day := range []time.Duration{0, 48 * time.Hour} {
		req := accounting.SyncRequest{Authenticator: res.Authenticator, HostToken: res.HostToken, Now: may1.Add(day), Host: report}
		for _, p := range projects {
			p.hostIDs[n] = int64(100 + n)
			c := accounting.Counters{}
			if i == 1 && gpu {
				c = accounting.Counters{GPUEC: 100, GPUTime: 36000}
			} else if i == 1 {
				c = accounting.Counters{CPUEC: 100, CPUTime: 172800}
			}
			req.Projects = append(req.Projects, accounting.ProjectReport{URL: p.proj.URL, AttachedViaAM: true,
				HostID: p.hostIDs[n], Counters: &c})
		}
		if _, err := e.store.Sync.Sync(e.ctx, req); err != nil {
			e.t.Fatal(err)
		}
	}
	e.hosts = append(e.hosts, h)
}

// factor is host n's own deviation, the same on every project (a
// benchmark that flatters or wrongs it): within ±3 %.
func factor(n int) float64 { return 1 + 0.01*float64(n%7-3) }

// export publishes p's two exports and reconciles each: the baseline on
// May 1st, and on May 3rd each host's credit grown by what p grants for
// its 100 estimated Cobblestones, all under Cobble's account (42). The
// records rogue hosts claim are someone else's (user 9) and grow
// absurdly.
func (e *fairEnv) export(p *fairProject) {
	for i, at := range []time.Time{may1, may1.Add(48 * time.Hour)} {
		var recs []exporttest.Host
		for _, h := range e.hosts {
			id, ok := p.hostIDs[h.n]
			if !ok {
				continue
			}
			ratio := map[bool]float64{false: p.cpu, true: p.gpu}[h.gpu]
			if r, ok := p.cheats[h.n]; ok {
				ratio = r
			}
			if h.rogue {
				recs = append(recs, gen(id, 9, 1000+float64(i)*1e6))
				continue
			}
			recs = append(recs, gen(id, 42, 1000+float64(i)*100*ratio*factor(h.n)))
		}
		p.stats.publish(at, recs, 1)
		if run, err := e.rec.RunProject(e.ctx, p.proj, nil, ""); err != nil || run.Status != reconcile.RunOK {
			e.t.Fatalf("%s export %d: %+v %v", p.name, i, run, err)
		}
	}
}

package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc/exporttest"
	"github.com/cobble-am/cobble/internal/testdb"
)

var may1 = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

// reconEnv is a project with Cobble hosts that reported estimated credit,
// and a stats server publishing its exports.
type reconEnv struct {
	t     *testing.T
	ctx   context.Context
	pool  *pgxpool.Pool
	store *accounting.Store
	rec   *reconcile.Reconciler
	stats *statsServer
	proj  accounting.Project
	hosts map[int64]int64 // project host id → Cobble host id
	now   time.Time
}

// newReconEnv makes hosts with project host ids 101–106, each estimating
// 100 credits over May 1st and 2nd (50 a day).
func newReconEnv(t *testing.T) *reconEnv {
	ctx := context.Background()
	pool := testdb.New(t)
	e := &reconEnv{t: t, ctx: ctx, pool: pool, store: accounting.NewStore(pool, testOptions),
		stats: newStatsServer(t), hosts: map[int64]int64{}, now: may1.Add(50 * time.Hour)}
	e.rec = reconcile.New(e.store, e.pool, reconcile.Options{AllowPrivate: true, Now: func() time.Time { return e.now }})
	var err error
	e.proj, err = e.store.Catalog.AddProject(ctx, accounting.Project{URL: "https://proj.example.org/", Name: "P",
		Authenticator: "k", StatsURL: e.stats.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	for id := int64(101); id <= 106; id++ {
		e.hosts[id] = e.estimate(id)
	}
	return e
}

// estimate joins a host reporting project host id hostid, and reports 100
// credits over the two days from May 1st.
func (e *reconEnv) estimate(hostid int64) int64 {
	return e.estimateAs(hostid, fmt.Sprintf("cpid-%d", hostid))
}

// estimateAs is estimate for a computer whose client host_cpid is cpid.
func (e *reconEnv) estimateAs(hostid int64, cpid string) int64 {
	req := joinRequest("ada@example.org", "first-pass", cpid)
	req.Now = may1.Add(-time.Hour) // the host's budget runs on the test's clock
	res, err := e.store.Sync.Sync(e.ctx, req)
	if err != nil {
		e.t.Fatal(err)
	}
	for i, c := range []accounting.Counters{{}, {CPUEC: 100, CPUTime: 172800}} {
		req := accounting.SyncRequest{Authenticator: res.Authenticator, HostToken: res.HostToken,
			Now: may1.Add(time.Duration(i) * 48 * time.Hour), Host: accounting.HostReport{CPID: cpid,
				Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: 4, PFPOps: 2e9},
			Projects: []accounting.ProjectReport{{URL: e.proj.URL, AttachedViaAM: true, HostID: hostid, Counters: &c}}}
		if _, err := e.store.Sync.Sync(e.ctx, req); err != nil {
			e.t.Fatal(err)
		}
	}
	return res.HostID
}

func (e *reconEnv) run() reconcile.Run {
	e.t.Helper()
	run, err := e.rec.RunProject(e.ctx, e.proj, nil, "")
	if err != nil {
		e.t.Fatalf("run: %v (%+v)", err, run)
	}
	return run
}

// confirmed returns the granted credit per (project host id, day).
func (e *reconEnv) confirmed() map[string]float64 {
	rows, err := e.pool.Query(e.ctx, `SELECT host_id, day, granted_micro FROM confirmed_ledger`)
	if err != nil {
		e.t.Fatal(err)
	}
	byHost := map[int64]int64{}
	for hostid, id := range e.hosts {
		byHost[id] = hostid
	}
	out := map[string]float64{}
	for rows.Next() {
		var host, micro int64
		var day time.Time
		if err := rows.Scan(&host, &day, &micro); err != nil {
			e.t.Fatal(err)
		}
		out[fmt.Sprintf("%d %s", byHost[host], day.Format("01-02"))] = float64(micro) / 1e6
	}
	return out
}

func gen(id, user int64, total float64) exporttest.Host {
	return exporttest.Host{ID: id, UserID: user, TotalCredit: total, ExpavgCredit: total / 10,
		ExpavgTime: 1.77e9, HostCPID: fmt.Sprintf("%032x", id), NCPUs: 4, PFPOps: 2e9, MiscForm: id%2 == 0}
}

func TestReconcileEndToEnd(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	// Export 1 (May 1st): the baseline. 104 is missing; 555 is hidden,
	// 777 is someone else's, 999 is an orphan under Cobble's account (42).
	first := []exporttest.Host{gen(101, 42, 1000), gen(102, 42, 500), gen(103, 42, 200), gen(105, 42, 300),
		gen(106, 42, 100), {ID: 555, Hidden: true, TotalCredit: 9}, gen(777, 9, 70), gen(999, 42, 12)}
	e.stats.publish(may1, first, 1)
	run := e.run()
	if run.Status != reconcile.RunOK || run.HostsScanned != 8 || run.HostsMatched != 5 || run.Missing != 1 || run.Orphans != 1 {
		t.Fatalf("first run: %+v", run)
	}
	if got := e.confirmed(); len(got) != 0 {
		t.Fatalf("the first export was credited: %v", got)
	}
	// Export 2 (May 3rd), split in two files: 101 +100, 102 +90, 103 +95,
	// 105 went down by 50, 106 +300.
	second := []exporttest.Host{gen(101, 42, 1100), gen(102, 42, 590), gen(103, 42, 295), gen(105, 42, 250),
		gen(106, 42, 400), {ID: 555, Hidden: true, TotalCredit: 9}, gen(777, 9, 80), gen(999, 42, 20)}
	lastContact := may1.Add(36 * time.Hour)
	second[0].RPCTime = lastContact.Unix() // the project's last scheduler contact with 101
	e.stats.publish(may1.Add(48*time.Hour), second, 2)
	run = e.run()
	if run.Status != reconcile.RunOK || run.HostsMatched != 5 || run.Missing != 1 || run.Orphans != 1 {
		t.Fatalf("second run: %+v", run)
	}
	// The export's rpc_time is kept with the host's credit, for the
	// failing check ("the project has not heard from it").
	var rpcTime *time.Time
	var withTime int
	if err := e.pool.QueryRow(e.ctx, `SELECT (SELECT rpc_time FROM export_credit WHERE host_id = $1 AND run_id = $2),
		(SELECT count(*) FROM export_credit WHERE rpc_time IS NOT NULL)`, e.hosts[101], run.ID).Scan(&rpcTime, &withTime); err != nil {
		t.Fatal(err)
	}
	if rpcTime == nil || !rpcTime.Equal(lastContact) || withTime != 1 {
		t.Errorf("rpc_time of 101: %v (want %v); %d rows with one, want 1", rpcTime, lastContact, withTime)
	}
	want := map[string]float64{"101 05-01": 50, "101 05-02": 50, "102 05-01": 45, "102 05-02": 45,
		"103 05-01": 47.5, "103 05-02": 47.5, "106 05-01": 150, "106 05-02": 150}
	if diff := cmp.Diff(want, e.confirmed()); diff != "" {
		t.Errorf("confirmed ledger (-want +got):\n%s", diff)
	}
	var decreases int
	e.pool.QueryRow(e.ctx, `SELECT count(*) FROM accounting_events WHERE kind = 'credit_decrease' AND host_id = $1`,
		e.hosts[105]).Scan(&decreases)
	if decreases != 1 {
		t.Errorf("%d credit decreases recorded for 105, want 1", decreases)
	}

	// Ratios over the window ending May 2nd: 1.0, 0.9, 0.95, 0 (missing),
	// 0 (decrease), 3.0; median (0.9+0.95)/2; project 585/600.
	pr, err := e.rec.Report(e.ctx, e.proj)
	if err != nil {
		t.Fatal(err)
	}
	page, err := e.rec.HostRatios(e.ctx, pr, reconcile.HostQuery{})
	if err != nil {
		t.Fatal(err)
	}
	flags := map[int64]string{}
	for _, h := range page.Hosts {
		for hostid, id := range e.hosts {
			if id == h.HostID && h.Flag != "" {
				flags[hostid] = h.Flag
			}
		}
	}
	if !near(pr.Ratio, 0.975) || !near(pr.Median, 0.925) || pr.Hosts != 6 || len(page.Hosts) != 6 || page.Total != 6 {
		t.Errorf("ratio %v median %v over %d hosts (%d listed of %d); want 0.975, 0.925, 6", pr.Ratio, pr.Median,
			pr.Hosts, len(page.Hosts), page.Total)
	}
	if diff := cmp.Diff(map[int64]string{104: "low", 105: "low", 106: "high"}, flags); diff != "" {
		t.Errorf("flagged hosts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1 orphan", "1 missing", "3 hosts off the median ratio"}, pr.Flags); diff != "" {
		t.Errorf("project flags (-want +got):\n%s", diff)
	}
	orphans, _ := e.rec.Orphans(e.ctx, run.ID, 0, 10)
	missing, _ := e.rec.Missing(e.ctx, run.ID, 0, 10)
	if len(orphans) != 1 || orphans[0].ProjectHostID != 999 || len(missing) != 1 || missing[0].ProjectHostID != 104 {
		t.Errorf("orphans %+v, missing %+v", orphans, missing)
	}
	// Days later without a new export, the export is stale.
	e.now = may1.Add(6 * 24 * time.Hour)
	if pr, _ := e.rec.Report(e.ctx, e.proj); !contains(pr.Flags, "stale export") {
		t.Errorf("flags %v lack the stale export", pr.Flags)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// An unchanged export is skipped: tables.xml answers 304 to its ETag.
func TestReconcileSkipsUnchangedExport(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1, []exporttest.Host{gen(101, 42, 1000)}, 1)
	e.run()
	run := e.run()
	if run.Status != reconcile.RunUnchanged || e.stats.gets["host.gz"] != 1 {
		t.Errorf("second run of the same export: %+v, host.gz fetched %d times", run, e.stats.gets["host.gz"])
	}
}

// A failed download or scan stores nothing but the failed run.
func TestReconcileFailuresStoreNothing(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1, []exporttest.Host{gen(101, 42, 1000), gen(102, 42, 500)}, 1)
	e.run()
	good := gzipExport(t, []exporttest.Host{gen(101, 42, 1100), gen(102, 42, 600)}, false)
	tests := []struct {
		name   string
		break_ func()
		want   string
	}{
		{"truncated gzip", func() { e.stats.setFile("host.gz", good[:len(good)-9]) }, "host.gz"},
		{"server error", func() { e.stats.failWith("host.gz", 500) }, "HTTP 500"},
		{"malformed XML", func() {
			e.stats.setFile("host.gz", gzipBytes(t, []byte("<hosts><host><id>101</id><total_credit>x</total_credit></host></hosts>")))
		}, "host.gz"},
		{"no host file", func() { e.stats.failWith("host.gz", 404); e.stats.failWith("host_0.gz", 404) }, "neither host.gz nor host_0.gz"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.stats.publish(may1.Add(time.Duration(i+1)*time.Hour), nil, 1)
			e.stats.fail = map[string]int{}
			tt.break_()
			run, err := e.rec.RunProject(e.ctx, e.proj, nil, "")
			if err == nil || run.Status != reconcile.RunFailed || run.Error == "" {
				t.Fatalf("run: %+v %v, want failed", run, err)
			}
			if !containsText(run.Error, tt.want) {
				t.Errorf("error %q does not mention %q", run.Error, tt.want)
			}
			var credits, confirmed int
			e.pool.QueryRow(e.ctx, `SELECT (SELECT count(*) FROM export_credit), (SELECT count(*) FROM confirmed_ledger)`).
				Scan(&credits, &confirmed)
			if credits != 2 || confirmed != 0 {
				t.Errorf("a failed run stored data: %d export rows, %d confirmed rows", credits, confirmed)
			}
		})
	}
}

func containsText(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// Only one runner works on a project at a time.
func TestReconcileLock(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1, []exporttest.Host{gen(101, 42, 1000)}, 1)
	conn, err := e.pool.Acquire(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	key := int64(0x5245_4300)<<32 | e.proj.ID
	if _, err := conn.Exec(e.ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
		t.Fatal(err)
	}
	if _, err := e.rec.RunProject(e.ctx, e.proj, nil, ""); !errors.Is(err, reconcile.ErrRunBusy) {
		t.Errorf("run while locked: %v, want ErrRunBusy", err)
	}
	conn.Exec(e.ctx, `SELECT pg_advisory_unlock($1)`, key)
	if run := e.run(); run.Status != reconcile.RunOK {
		t.Errorf("run after unlock: %+v", run)
	}
}

// A run whose process died stays "running" in the table; the next runner
// to take the project's lock marks it abandoned.
func TestDeadRunIsAbandoned(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	var dead int64
	if err := e.pool.QueryRow(e.ctx, `INSERT INTO reconcile_runs (project_id, started_at, status, source)
		VALUES ($1, $2, 'running', 'killed mid-run') RETURNING id`, e.proj.ID, may1).Scan(&dead); err != nil {
		t.Fatal(err)
	}
	e.stats.publish(may1, []exporttest.Host{gen(101, 42, 1000)}, 1)
	if run := e.run(); run.Status != reconcile.RunOK {
		t.Fatalf("next run: %+v", run)
	}
	var status string
	var finished *time.Time
	if err := e.pool.QueryRow(e.ctx, `SELECT status, finished_at FROM reconcile_runs WHERE id = $1`, dead).
		Scan(&status, &finished); err != nil {
		t.Fatal(err)
	}
	if status != string(reconcile.RunAbandoned) || finished == nil {
		t.Errorf("the dead run is %q (finished %v), want abandoned with a finish time", status, finished)
	}
}

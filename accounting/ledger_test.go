package accounting_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

const projURL = "https://proj.example.org/"

// host is one volunteer's computer syncing with a store.
type host struct {
	t     *testing.T
	s     *accounting.Store
	pool  *pgxpool.Pool
	auth  string
	token string
	now   time.Time
}

// newHost creates a volunteer and a project and joins one computer.
func newHost(t *testing.T) *host {
	t.Helper()
	ctx := context.Background()
	pool := testdb.New(t)
	s := accounting.NewStore(pool, testOptions)
	if _, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Catalog.AddProject(ctx, accounting.Project{URL: projURL, Name: "P", Authenticator: "k"}); err != nil {
		t.Fatal(err)
	}
	h := &host{t: t, s: s, pool: pool, now: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}
	join := joinRequest("ada@example.org", "first-pass", "cpid-1")
	join.Now = h.now // the host's budget runs on the test's clock
	res, err := s.Sync.Sync(ctx, join)
	if err != nil {
		t.Fatal(err)
	}
	h.auth, h.token = res.Authenticator, res.HostToken
	return h
}

// request is a sync after dt reporting the project's counters (nil: none).
func (h *host) request(dt time.Duration, c *accounting.Counters) accounting.SyncRequest {
	h.now = h.now.Add(dt)
	return accounting.SyncRequest{Authenticator: h.auth, HostToken: h.token, Now: h.now,
		Host:     accounting.HostReport{CPID: "cpid-1", Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: 4, PFPOps: 2e9},
		Projects: []accounting.ProjectReport{{URL: projURL, AttachedViaAM: true, HostID: 77, Counters: c}}}
}

func (h *host) sync(dt time.Duration, c *accounting.Counters) accounting.SyncResult {
	h.t.Helper()
	res, err := h.s.Sync.Sync(context.Background(), h.request(dt, c))
	if err != nil {
		h.t.Fatalf("sync: %v", err)
	}
	return res
}

// ledger sums the host's ledger rows: credited and clamped CPU credit, CPU
// seconds, successful jobs, and the number of rows.
func (h *host) ledger() (cpuEC, clamped, cpuTime float64, jobs, rows int64) {
	h.t.Helper()
	err := h.pool.QueryRow(context.Background(), `
		SELECT coalesce(sum(cpu_ec_micro), 0) / 1e6, coalesce(sum(clamped_cpu_ec_micro), 0) / 1e6,
			coalesce(sum(cpu_time_micro), 0) / 1e6, coalesce(sum(njobs_success), 0), count(*)
		FROM ledger`).Scan(&cpuEC, &clamped, &cpuTime, &jobs, &rows)
	if err != nil {
		h.t.Fatal(err)
	}
	return
}

func (h *host) events(kind string) int {
	var n int
	if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FROM accounting_events WHERE kind = $1`, kind).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

func TestLedgerRecordsDeltas(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.sync(time.Hour, &accounting.Counters{CPUEC: 100, CPUTime: 1000, JobsSuccess: 5})
	if ec, _, _, _, rows := h.ledger(); ec != 0 || rows != 0 {
		t.Fatalf("the baseline was credited: %v in %d rows", ec, rows)
	}
	// An RPC without counters (not yet dynamic) changes nothing.
	h.sync(time.Hour, nil)
	// Two hours since the baseline; 4 cores × 2e9 allow far more than 3.5.
	res := h.sync(time.Hour, &accounting.Counters{CPUEC: 103.5, CPUTime: 4600, JobsSuccess: 9})
	ec, clamped, secs, jobs, _ := h.ledger()
	if ec != 3.5 || clamped != 0 || secs != 3600 || jobs != 4 {
		t.Errorf("ledger: %v credited, %v clamped, %v s, %d jobs; want 3.5, 0, 3600 s, 4 jobs", ec, clamped, secs, jobs)
	}
	var credit accounting.ProjectCredit
	for _, c := range res.Credit {
		credit = c
	}
	if credit.Total != 3.5 || credit.Avg <= 0 {
		t.Errorf("reply credit %+v, want total 3.5 and a positive average", credit)
	}
	// A lower report is a reset: recorded, and only the new value credited.
	h.sync(time.Hour, &accounting.Counters{CPUEC: 2, CPUTime: 100, JobsSuccess: 1})
	if ec, _, _, _, _ := h.ledger(); ec != 5.5 || h.events("reset") != 1 {
		t.Errorf("after a reset: %v credited, %d reset events; want 5.5 and 1", ec, h.events("reset"))
	}
}

func TestLedgerClampsAndFlags(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.sync(time.Hour, &accounting.Counters{})
	// 4 cores × 2e9 FLOPS for an hour (plus a minute) is at most 4 × 2e9 × 3660 × 200/86400e9 ≈ 67.8.
	res := h.sync(time.Hour, &accounting.Counters{CPUEC: 1000, CPUTime: 3600})
	ec, clamped, _, _, _ := h.ledger()
	if ec < 67.7 || ec > 67.8 || ec+clamped != 1000 {
		t.Errorf("credited %v + clamped %v, want ≈67.8 + the rest of 1000", ec, clamped)
	}
	if h.events("clamp") != 1 || len(res.Messages) == 0 {
		t.Errorf("clamp events %d, messages %q", h.events("clamp"), res.Messages)
	}
	// A host claiming a million cores is flagged and treated as one core.
	req := h.request(time.Hour, &accounting.Counters{CPUEC: 1000, CPUTime: 3600})
	req.Host.NCPUs = 1_000_000
	res, err := h.s.Sync.Sync(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var implausible string
	h.pool.QueryRow(context.Background(), `SELECT implausible FROM hosts`).Scan(&implausible)
	if h.events("implausible_host") != 1 || !strings.Contains(implausible, "1000000 CPUs") || len(res.Messages) == 0 {
		t.Errorf("implausible host not flagged: %q, %d events", implausible, h.events("implausible_host"))
	}
}

// Twenty copies of one RPC at once credit it once: the host row lock
// serialises them, and each later copy sees the counters already stored.
func TestConcurrentCopiesCreditOnce(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.sync(time.Hour, &accounting.Counters{CPUEC: 10, CPUTime: 100})
	req := h.request(time.Hour, &accounting.Counters{CPUEC: 12.25, CPUTime: 3700, JobsSuccess: 2})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := h.s.Sync.Sync(context.Background(), req); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ec, _, secs, jobs, _ := h.ledger(); ec != 2.25 || secs != 3600 || jobs != 2 {
		t.Errorf("ledger %v credits, %v s, %d jobs; want 2.25, 3600 s, 2 jobs", ec, secs, jobs)
	}
}

// A failure in the middle of an RPC stores nothing; the next RPC carries
// the whole delta.
func TestFailedRPCStoresNothing(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	ctx := context.Background()
	h.sync(time.Hour, &accounting.Counters{CPUEC: 10, CPUTime: 100})
	_, err := h.pool.Exec(ctx, `
		CREATE FUNCTION fail_ledger() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN RAISE EXCEPTION 'ledger is broken'; END $$;
		CREATE TRIGGER fail_ledger BEFORE INSERT ON ledger FOR EACH ROW EXECUTE FUNCTION fail_ledger();`)
	if err != nil {
		t.Fatal(err)
	}
	var rpcsBefore int
	h.pool.QueryRow(ctx, `SELECT rpc_count FROM hosts`).Scan(&rpcsBefore)
	if _, err := h.s.Sync.Sync(ctx, h.request(time.Hour, &accounting.Counters{CPUEC: 11, CPUTime: 1000})); err == nil ||
		errors.Is(err, accounting.ErrBadPassword) {
		t.Fatalf("sync with a broken ledger: %v, want an infrastructure error", err)
	}
	var rpcsAfter int
	var last float64
	h.pool.QueryRow(ctx, `SELECT rpc_count FROM hosts`).Scan(&rpcsAfter)
	h.pool.QueryRow(ctx, `SELECT last_cpu_ec_micro / 1e6 FROM host_projects`).Scan(&last)
	if rpcsAfter != rpcsBefore || last != 10 {
		t.Fatalf("the failed RPC left traces: rpc_count %d→%d, last cpu_ec %v", rpcsBefore, rpcsAfter, last)
	}
	if _, err := h.pool.Exec(ctx, `DROP TRIGGER fail_ledger ON ledger`); err != nil {
		t.Fatal(err)
	}
	h.sync(time.Hour, &accounting.Counters{CPUEC: 11.5, CPUTime: 1900})
	if ec, _, secs, _, _ := h.ledger(); ec != 1.5 || secs != 1800 {
		t.Errorf("after recovery: %v credits, %v s; want 1.5 and 1800 s", ec, secs)
	}
}

// Rebuilding the totals finds a total that no longer matches the ledger
// and restores the ledger's value.
func TestRebuildTotals(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	ctx := context.Background()
	h.sync(time.Hour, &accounting.Counters{CPUEC: 10, CPUTime: 100})
	h.sync(time.Hour, &accounting.Counters{CPUEC: 12, CPUTime: 3700, JobsSuccess: 3})
	rep, err := h.s.Ledger.RebuildTotals(ctx, false)
	if err != nil || rep.Pairs != 1 || len(rep.Differences) != 0 {
		t.Fatalf("consistent totals: %+v %v", rep, err)
	}
	if _, err := h.pool.Exec(ctx, `UPDATE host_projects SET total_cpu_ec_micro = 99, total_njobs_success = 7`); err != nil {
		t.Fatal(err)
	}
	rep, err = h.s.Ledger.RebuildTotals(ctx, true)
	if err != nil || len(rep.Differences) != 2 {
		t.Fatalf("dry run: %+v %v", rep, err)
	}
	if d := rep.Differences[0]; d.Field != "cpu_ec" || d.Stored != 0.000099 || d.Ledger != 2 {
		t.Errorf("difference %+v", d)
	}
	if rep, _ = h.s.Ledger.RebuildTotals(ctx, false); len(rep.Differences) != 2 {
		t.Errorf("rebuild found %d differences, want 2", len(rep.Differences))
	}
	if rep, _ = h.s.Ledger.RebuildTotals(ctx, false); len(rep.Differences) != 0 {
		t.Errorf("after rebuild still %d differences", len(rep.Differences))
	}
}

func TestDailyTotals(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	ctx := context.Background()
	h.sync(time.Hour, &accounting.Counters{})
	// 11:00 to 23:00 on May 1st, then to 11:00 on May 2nd: one day each.
	h.sync(12*time.Hour, &accounting.Counters{CPUEC: 3, CPUTime: 43200})
	h.sync(12*time.Hour, &accounting.Counters{CPUEC: 4, CPUTime: 86400, JobsSuccess: 2})
	from, to := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var userID int64
	h.pool.QueryRow(ctx, `SELECT id FROM users`).Scan(&userID)
	days, err := h.s.Ledger.UserDays(ctx, userID, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 || days[0].Day.Day() != 1 || days[1].Day.Day() != 2 ||
		days[0].CPUEC+days[1].CPUEC != 4 || days[0].CPUTime+days[1].CPUTime != 86400 {
		t.Fatalf("user days %+v", days)
	}
	// May 1st holds all of the first delta and 1/12 of the second (23:00–24:00 of 23:00–11:00).
	if got := days[0].CPUEC; got < 3.083 || got > 3.084 {
		t.Errorf("May 1st has %v, want 3 + 1/12", got)
	}
	system, err := h.s.Ledger.SystemDays(ctx, from, to)
	if err != nil || len(system) != 2 || system[1].JobsSuccess != 2 {
		t.Errorf("system days %+v %v", system, err)
	}
}

// The budget lives on the host row: RPCs in quick succession through the
// store share it, and a replayed older report is recorded as stale.
func TestBudgetSpansRPCs(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.sync(time.Hour, &accounting.Counters{CPUEC: 1000, CPUTime: 1000})
	for i := 1; i <= 50; i++ {
		h.sync(10*time.Millisecond, &accounting.Counters{CPUEC: 1000 + float64(i), CPUTime: 1000})
	}
	// 4 cores × 2e9 FLOPS for 0.5 s plus the minute carried over.
	limit := 4 * 2e9 * (0.5 + 60) * accounting.CobblestoneScale
	if ec, clamped, _, _, _ := h.ledger(); ec > limit || ec+clamped != 50 {
		t.Errorf("credited %v + clamped %v in 0.5 s, want at most %v + the rest of 50", ec, clamped, limit)
	}
	h.sync(time.Hour, &accounting.Counters{CPUEC: 1020, CPUTime: 1000})
	if h.events("stale_report") != 1 || h.events("reset") != 0 {
		t.Errorf("%d stale reports and %d resets, want 1 and 0", h.events("stale_report"), h.events("reset"))
	}
}

package web_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/boinctest"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// recorder keeps the bodies of the AM requests Cobble receives.
type recorder struct {
	mu     sync.Mutex
	bodies []string
}

func (rec *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/rpc.php" {
			b, _ := io.ReadAll(r.Body)
			rec.mu.Lock()
			rec.bodies = append(rec.bodies, string(b))
			rec.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		next.ServeHTTP(w, r)
	})
}

func (rec *recorder) last() string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.bodies) == 0 {
		return ""
	}
	return rec.bodies[len(rec.bodies)-1]
}

// startCobble serves Cobble on a loopback port, as `cobble serve` would.
func startCobble(t *testing.T) (amURL string, store *accounting.Store, rec *recorder) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	amURL = "http://" + l.Addr().String() + "/"
	pool := testdb.New(t)
	srv, err := web.New(context.Background(), web.Config{Site: web.Site{Name: "Cobble E2E", BaseURL: amURL, RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost}, pool, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	rec = &recorder{}
	hs := httptest.NewUnstartedServer(rec.wrap(srv.Handler()))
	hs.Listener.Close()
	hs.Listener = l
	hs.Start()
	t.Cleanup(hs.Close)
	return amURL, srv.Store(), rec
}

func TestRealClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	amURL, store, rec := startCobble(t)
	projA, projB := boinctest.NewProject(t), boinctest.NewProject(t)
	if _, err := store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "vol@example.org", Password: "secret-pass"}); err != nil {
		t.Fatal(err)
	}
	a, err := store.Catalog.AddProject(ctx, accounting.Project{URL: projA.URL(), Name: "A", Authenticator: "key-a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Catalog.AddProject(ctx, accounting.Project{URL: projB.URL(), Name: "B", Authenticator: "key-b"}); err != nil {
		t.Fatal(err)
	}
	client := boinctest.Start(t)

	// Join: the client accepts the signing key and attaches both projects.
	out, err := client.JoinAcctMgr(ctx, amURL, "vol@example.org", "secret-pass")
	if err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("join failed: %v\n%s\n%s", err, out, client.Log())
	}
	if !strings.Contains(rec.last(), "<password_hash>") {
		t.Fatalf("join request without password hash:\n%s", rec.last())
	}
	boinctest.WaitFor(t, "the client to fetch both master pages", 30*time.Second, func() bool {
		return projA.MasterFetches() > 0 && projB.MasterFetches() > 0
	})
	if strings.Contains(client.Log(), "Inconsistent signing key") || strings.Contains(client.Log(), "parse error") {
		t.Fatalf("the client rejected the reply:\n%s", client.Log())
	}

	// Sync: the client now authenticates with Cobble's authenticator and
	// lists the projects as attached by the account manager.
	out, err = client.SyncAcctMgr(ctx)
	if err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("sync failed: %v\n%s", err, out)
	}
	req := rec.last()
	if !strings.Contains(req, "<authenticator>") || strings.Contains(req, "<password_hash>") {
		t.Errorf("sync did not authenticate with the authenticator:\n%s", req)
	}
	for _, u := range []string{projA.URL(), projB.URL()} {
		if !strings.Contains(req, "<url>"+u+"</url>") {
			t.Errorf("sync request does not list %s", u)
		}
	}
	if strings.Count(req, "<attached_via_acct_mgr>1</attached_via_acct_mgr>") != 2 {
		t.Errorf("want both projects attached via the account manager:\n%s", req)
	}
	projects, err := client.Projects(ctx)
	if err != nil || len(projects) != 2 || !projects[0].AttachedViaAcctMgr || !projects[1].AttachedViaAcctMgr {
		t.Errorf("client's projects: %+v (err %v)", projects, err)
	}

	// Retire A in Cobble: the next sync asks the client to finish and detach.
	if err := store.Catalog.SetProjectStatus(ctx, a.ID, accounting.StatusRetired); err != nil {
		t.Fatal(err)
	}
	if out, err := client.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("sync after retiring failed: %v\n%s", err, out)
	}
	// The client took the instruction: it reports A as detach-when-done on
	// its next request, or has detached it already.
	if out, err := client.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("second sync after retiring failed: %v\n%s", err, out)
	}
	if block := projectBlock(rec.last(), projA.URL()); block != "" &&
		(!strings.Contains(block, "<detach_when_done>1</detach_when_done>") ||
			!strings.Contains(block, "<dont_request_more_work>1</dont_request_more_work>")) {
		t.Errorf("retired project not marked detach-when-done by the client:\n%s", block)
	}
	if block := projectBlock(rec.last(), projB.URL()); !strings.Contains(block, "<detach_when_done>0</detach_when_done>") {
		t.Errorf("project B should carry on:\n%s", block)
	}

	// A second computer with a wrong password hears "bad password".
	other := boinctest.Start(t)
	out, err = other.JoinAcctMgr(ctx, amURL, "vol@example.org", "wrong-password")
	if err != nil || boinctest.ParseAMOutput(out).Status != "bad password" {
		t.Errorf("wrong password: boinccmd printed %q (err %v)", out, err)
	}
	// An email without an account hears the same: the client is not told
	// which emails have accounts.
	out, err = other.JoinAcctMgr(ctx, amURL, "nobody@example.org", "wrong-password")
	if err != nil || boinctest.ParseAMOutput(out).Status != "bad password" {
		t.Errorf("unknown email: boinccmd printed %q (err %v)", out, err)
	}
}

// projectBlock returns the <project> element of an AM request for url, or "".
func projectBlock(req, url string) string {
	for _, block := range strings.Split(req, "<project>")[1:] {
		block, _, _ = strings.Cut(block, "</project>")
		if strings.Contains(block, "<url>"+url+"</url>") {
			return block
		}
	}
	return ""
}

// The real client reports counters it keeps in client_state.xml: seeded
// values are the baseline, a raise is credited exactly, and a lowering is
// a reset, never negative credit.
func TestRealClientCounters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	amURL, store, _ := startCobble(t)
	proj := boinctest.NewProject(t)
	u, err := store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "vol@example.org", Password: "secret-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Catalog.AddProject(ctx, accounting.Project{URL: proj.URL(), Name: "P", Authenticator: "key"}); err != nil {
		t.Fatal(err)
	}
	client := boinctest.Start(t)
	if out, err := client.JoinAcctMgr(ctx, amURL, "vol@example.org", "secret-pass"); err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("join failed: %v\n%s", err, out)
	}
	setCounters := func(values map[string]string) {
		t.Helper()
		client.Stop()
		client.EditProjectCounters(t, proj.URL(), values)
		client.Restart(t)
		if out, err := client.SyncAcctMgr(ctx); err != nil || !boinctest.ParseAMOutput(out).OK() {
			t.Fatalf("sync failed: %v\n%s", err, out)
		}
	}
	ledger := func() accounting.DayCredit {
		t.Helper()
		days, err := store.Ledger.UserDays(ctx, u.ID, time.Now().AddDate(0, 0, -2), time.Now().AddDate(0, 0, 2))
		if err != nil {
			t.Fatal(err)
		}
		var sum accounting.DayCredit
		for _, d := range days {
			sum.CPUEC, sum.CPUTime, sum.ClampedEC = sum.CPUEC+d.CPUEC, sum.CPUTime+d.CPUTime, sum.ClampedEC+d.ClampedEC
			sum.JobsSuccess, sum.JobsError = sum.JobsSuccess+d.JobsSuccess, sum.JobsError+d.JobsError
		}
		return sum
	}

	// Seeded lifetime counters: the first report of them is the baseline.
	setCounters(map[string]string{"cpu_ec": "12345.678", "cpu_time": "86400.5", "njobs_success": "42", "njobs_error": "3"})
	if got := ledger(); got != (accounting.DayCredit{}) {
		t.Fatalf("the baseline was credited: %+v", got)
	}
	// A raise within what the 2-core, 1 GFLOPS host does in the seconds
	// between syncs plus the minute carried over (0.278 credits, 120 CPU
	// seconds) is credited exactly.
	setCounters(map[string]string{"cpu_ec": "12345.728", "cpu_time": "86410.5", "njobs_success": "43", "njobs_error": "3"})
	got := ledger()
	if want := (accounting.DayCredit{Counters: accounting.Counters{CPUEC: 0.05, CPUTime: 10, JobsSuccess: 1}}); !near(got.CPUEC, 0.05) ||
		got.CPUTime != 10 || got.JobsSuccess != 1 || got.JobsError != 0 || got.ClampedEC != 0 {
		t.Fatalf("after the raise the ledger holds %+v, want %+v", got, want)
	}
	// Lowered counters (a re-attach): a reset, credited at most the new value.
	setCounters(map[string]string{"cpu_ec": "0.025", "cpu_time": "5", "njobs_success": "0", "njobs_error": "0"})
	got = ledger()
	if !near(got.CPUEC, 0.075) || got.CPUTime != 15 || got.JobsSuccess != 1 || got.ClampedEC != 0 {
		t.Errorf("after the reset the ledger holds %+v, want 0.075 credits, 15 s, 1 job", got)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

package boinctest

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fixture reply's signing key and url_signature are a valid pair for
// this project URL, so the self-test serves its project there.
const (
	fixtureProjectAddr = "127.0.0.1:18641"
	fixtureProjectPath = "/proj/"
	fixtureProjectURL  = "http://127.0.0.1:18641/proj/"
	fixtureReplyFile   = "1-join.reply.xml"
	badPasswordReply   = "<acct_mgr_reply>\n<error_num>-206</error_num>\n</acct_mgr_reply>\n"
)

// stubAM is a throwaway account manager: it answers POST /rpc.php with a
// settable reply and records the request bodies.
type stubAM struct {
	srv *httptest.Server

	mu    sync.Mutex
	reply string
	reqs  []string
}

func newStubAM(t *testing.T, reply string) *stubAM {
	t.Helper()
	a := &stubAM{reply: reply}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/rpc.php" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.reqs = append(a.reqs, string(body))
		reply := a.reply
		a.mu.Unlock()
		w.Header().Set("Content-Type", "text/xml")
		io.WriteString(w, reply)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// URL is the account manager URL as the client stores it.
func (a *stubAM) URL() string { return a.srv.URL + "/" }

func (a *stubAM) setReply(reply string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reply = reply
}

func (a *stubAM) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.reqs...)
}

// last returns the last request, failing if there are fewer than n.
func (a *stubAM) last(t *testing.T, n int) string {
	t.Helper()
	reqs := a.requests()
	if len(reqs) < n {
		t.Fatalf("stub AM got %d requests, want at least %d", len(reqs), n)
	}
	return reqs[len(reqs)-1]
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tagValue returns the text of the first <tag> in xml.
func tagValue(xml, tag string) string {
	m := regexp.MustCompile(`(?s)<` + tag + `>\s*(.*?)\s*</` + tag + `>`).FindStringSubmatch(xml)
	if m == nil {
		return ""
	}
	return m[1]
}

// projectBlockOf returns the <project> element of an acct_mgr_request for
// url, or "".
func projectBlockOf(req, url string) string {
	for _, m := range regexp.MustCompile(`(?s)<project>.*?</project>`).FindAllString(req, -1) {
		if tagValue(m, "url") == url {
			return m
		}
	}
	return ""
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestHarness drives the real client through a join, an attach, an error
// reply, an HTTP failure and a counter edit against a stub account manager.
func TestHarness(t *testing.T) {
	joinReply := fixture(t, fixtureReplyFile)
	ln, err := net.Listen("tcp", fixtureProjectAddr)
	if err != nil {
		t.Skipf("fixture project address %s is busy: %v", fixtureProjectAddr, err)
	}
	proj := NewProjectWith(t, ProjectOptions{Listener: ln, Path: fixtureProjectPath})
	if proj.URL() != fixtureProjectURL {
		t.Fatalf("project URL = %s, want %s", proj.URL(), fixtureProjectURL)
	}
	am := newStubAM(t, badPasswordReply)

	start := time.Now()
	c := Start(t)
	t.Logf("client started in %v (pid %d, GUI RPC port %d)", time.Since(start), c.PID(), c.RPCPort)
	ctx := context.Background()

	// Before any join.
	out, err := c.AcctMgrInfo(ctx)
	if err != nil || out != "Account manager info:\n   Name: \n   URL: \n" {
		t.Fatalf("AcctMgrInfo before join = %q, %v", out, err)
	}
	out, err = c.SyncAcctMgr(ctx)
	if err != nil || ParseAMOutput(out).GUIError != "bad arg" {
		t.Fatalf("sync before join = %q, %v; want GUI RPC error: bad arg", out, err)
	}

	// A reply with error_num -206.
	start = time.Now()
	out, err = c.JoinAcctMgr(ctx, am.URL(), "harness-user", "harness-pass")
	t.Logf("join answered -206 in %v: %q", time.Since(start), out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out, "poll status: bad password\n") {
		t.Errorf("join with -206 printed %q, want it to end with poll status: bad password", out)
	}
	if o := ParseAMOutput(out); !o.Done || o.Status != "bad password" || o.OK() {
		t.Errorf("ParseAMOutput(%q) = %+v", out, o)
	}
	if err := c.WaitLog(ctxTimeout(t, 10*time.Second), "Message from account manager: bad password", 1); err != nil {
		t.Error(err)
	}

	// An HTTP failure: boinccmd keeps polling until it is stopped.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + closed.Addr().String() + "/"
	closed.Close()
	failCtx, cancel := context.WithTimeout(ctx, 2500*time.Millisecond)
	out, err = c.JoinAcctMgr(failCtx, deadURL, "harness-user", "harness-pass")
	cancel()
	t.Logf("join to a closed port: %q, %v", out, err)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("join to a closed port: err = %v, want a deadline error", err)
	}
	if o := ParseAMOutput(out); o.Done || !strings.Contains(out, "poll status: operation in progress\n") {
		t.Errorf("join to a closed port printed %q (%+v), want it still polling", out, o)
	}
	if err := c.WaitLog(ctxTimeout(t, 10*time.Second), "AM RPC HTTP failure: connect() failed", 1); err != nil {
		t.Error(err)
	}

	// A successful join.
	am.setReply(joinReply)
	nBefore := len(am.requests())
	start = time.Now()
	out, err = c.JoinAcctMgr(ctx, am.URL(), "harness-user", "harness-pass")
	joinTime := time.Since(start)
	t.Logf("join succeeded in %v: %q", joinTime, out)
	if err != nil {
		t.Fatal(err)
	}
	if o := ParseAMOutput(out); !o.OK() {
		t.Errorf("join printed %q (%+v), want success", out, o)
	}
	req := am.last(t, nBefore+1)
	if got := tagValue(req, "name"); got != "harness-user" {
		t.Errorf("join request <name> = %q", got)
	}
	if got, want := tagValue(req, "password_hash"), md5hex("harness-pass"+"harness-user"); got != want {
		t.Errorf("join request <password_hash> = %q, want %q", got, want)
	}
	if strings.Contains(req, "<project>") || strings.Contains(req, "<cpu_ec>") {
		t.Errorf("join request lists projects or counters:\n%s", req)
	}
	if err := c.WaitLog(ctxTimeout(t, 10*time.Second), "Account manager contact succeeded", 1); err != nil {
		t.Fatal(err)
	}
	out, err = c.AcctMgrInfo(ctx)
	if want := "Account manager info:\n   Name: Harness AM\n   URL: " + am.URL() + "\n"; err != nil || out != want {
		t.Errorf("AcctMgrInfo = %q, %v; want %q", out, err, want)
	}

	// The client attaches the project and fetches its master page.
	start = time.Now()
	WaitFor(t, "the master page fetch", 15*time.Second, func() bool { return proj.MasterFetches() > 0 })
	t.Logf("master page fetched %v after the join", time.Since(start)+joinTime)
	ps, err := c.Projects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].MasterURL != fixtureProjectURL || !ps[0].AttachedViaAcctMgr {
		t.Fatalf("projects = %+v, want %s attached via the account manager", ps, fixtureProjectURL)
	}

	// The next request lists the project, with counters (the join reply
	// had <dynamic/>).
	nBefore = len(am.requests())
	start = time.Now()
	out, err = c.SyncAcctMgr(ctx)
	t.Logf("sync in %v: %q", time.Since(start), out)
	if err != nil || !ParseAMOutput(out).OK() {
		t.Fatalf("sync = %q, %v", out, err)
	}
	req = am.last(t, nBefore+1)
	pb := projectBlockOf(req, fixtureProjectURL)
	if pb == "" {
		t.Fatalf("sync request does not list %s:\n%s", fixtureProjectURL, req)
	}
	for tag, want := range map[string]string{
		"attached_via_acct_mgr": "1",
		"account_key":           "0123456789abcdef0123456789abcdef",
		"cpu_ec":                "0.000000",
	} {
		if got := tagValue(pb, tag); got != want {
			t.Errorf("sync request project <%s> = %q, want %q", tag, got, want)
		}
	}

	// The scheduler RPC that follows gives the host its id.
	start = time.Now()
	if err := c.WaitLog(ctxTimeout(t, 20*time.Second), "Scheduler request completed", 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("scheduler request completed %v after the sync", time.Since(start))
	if got := proj.SchedulerRequests(); got != 1 {
		t.Errorf("scheduler requests = %d, want 1", got)
	}

	// Edit the counters with the client stopped, restart, sync.
	pid := c.PID()
	start = time.Now()
	c.Stop()
	t.Logf("stopped in %v", time.Since(start))
	if processExists(pid) {
		t.Fatalf("client pid %d still exists after Stop", pid)
	}
	if v, ok := c.ProjectStateValue(t, fixtureProjectURL, "hostid"); !ok || v != "1001" {
		t.Errorf("client_state.xml hostid = %q, %v; want 1001", v, ok)
	}
	counters := map[string]string{
		"cpu_ec":        "12345.678",
		"cpu_time":      "86400.5",
		"gpu_ec":        "250.25",
		"gpu_time":      "3600",
		"njobs_success": "42",
		"njobs_error":   "3",
	}
	c.EditProjectCounters(t, fixtureProjectURL, counters)
	start = time.Now()
	c.Restart(t)
	t.Logf("restarted in %v (pid %d)", time.Since(start), c.PID())
	nBefore = len(am.requests())
	out, err = c.SyncAcctMgr(ctx)
	if err != nil || !ParseAMOutput(out).OK() {
		t.Fatalf("sync after restart = %q, %v", out, err)
	}
	pb = projectBlockOf(am.last(t, nBefore+1), fixtureProjectURL)
	for tag, want := range map[string]string{
		"cpu_ec":        "12345.678000",
		"cpu_time":      "86400.500000",
		"gpu_ec":        "250.250000",
		"gpu_time":      "3600.000000",
		"njobs_success": "42",
		"njobs_error":   "3",
		"hostid":        "1001",
		"project_name":  proj.Name(),
	} {
		if got := tagValue(pb, tag); got != want {
			t.Errorf("sync after the edit: project <%s> = %q, want %q", tag, got, want)
		}
	}

	// Nothing is left running.
	pid = c.PID()
	c.Stop()
	if processExists(pid) {
		t.Errorf("client pid %d still exists after Stop", pid)
	}
	if c.Running() {
		t.Error("Running() = true after Stop")
	}
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestParseAMOutput(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want AMOutput
	}{
		{"polling for reply\npoll status: operation in progress\npolling for reply\n",
			AMOutput{Done: true}},
		{"polling for reply\npoll status: operation in progress\npolling for reply\npoll status: bad password\n",
			AMOutput{Done: true, Status: "bad password"}},
		{"polling for reply\npoll status: operation in progress\npolling for reply\nMessages from account manager:\nGo away\n",
			AMOutput{Done: true, Messages: []string{"Go away"}}},
		{"polling for reply\npoll status: operation in progress\npolling for reply\npoll status: operation in progress\n",
			AMOutput{}},
		{"polling for reply\npoll status: invalid URL\n",
			AMOutput{Done: true, Status: "invalid URL"}},
		{"22-Nov-2026 04:12:35: GUI RPC error: attached to a different AM - detach first\n",
			AMOutput{GUIError: "attached to a different AM - detach first"}},
		{"", AMOutput{}},
	} {
		got := ParseAMOutput(tc.out)
		if got.Done != tc.want.Done || got.Status != tc.want.Status || got.GUIError != tc.want.GUIError ||
			strings.Join(got.Messages, "|") != strings.Join(tc.want.Messages, "|") {
			t.Errorf("ParseAMOutput(%q) = %+v, want %+v", tc.out, got, tc.want)
		}
	}
}

func TestParseProjectStatus(t *testing.T) {
	out := "======== Projects ========\n1) -----------\n   name: \n   master URL: http://127.0.0.1:18641/proj/\n" +
		"   attached via Account Manager: yes\n   jobs failed: 3\n" +
		"2) -----------\n   name: Other\n   master URL: http://127.0.0.1:1/x/\n   attached via Account Manager: no\n"
	ps := ParseProjectStatus(out)
	if len(ps) != 2 {
		t.Fatalf("got %d projects, want 2: %+v", len(ps), ps)
	}
	if ps[0].Name != "" || ps[0].MasterURL != "http://127.0.0.1:18641/proj/" || !ps[0].AttachedViaAcctMgr || ps[0].Fields["jobs failed"] != "3" {
		t.Errorf("project 1 = %+v", ps[0])
	}
	if ps[1].Name != "Other" || ps[1].AttachedViaAcctMgr {
		t.Errorf("project 2 = %+v", ps[1])
	}
}

func TestEditState(t *testing.T) {
	c := &Client{Dir: t.TempDir()}
	state := "<client_state>\n<project>\n    <master_url>http://a.example/</master_url>\n    <cpu_ec>1.000000</cpu_ec>\n</project>\n" +
		"<project>\n    <master_url>http://127.0.0.1:18641/proj/</master_url>\n    <cpu_ec>0.000000</cpu_ec>\n    <ended/>\n</project>\n</client_state>\n"
	if err := os.WriteFile(c.StateFile(), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	c.EditProjectCounters(t, "HTTP://127.0.0.1:18641/proj/", map[string]string{"cpu_ec": "5.5", "gpu_ec": "2", "ended": "0"})
	want := "<client_state>\n<project>\n    <master_url>http://a.example/</master_url>\n    <cpu_ec>1.000000</cpu_ec>\n</project>\n" +
		"<project>\n    <master_url>http://127.0.0.1:18641/proj/</master_url>\n    <cpu_ec>5.5</cpu_ec>\n    <ended>0</ended>\n    <gpu_ec>2</gpu_ec>\n</project>\n</client_state>\n"
	if got := c.ReadState(t); got != want {
		t.Errorf("state after edit:\n%s\nwant:\n%s", got, want)
	}
	if v, ok := c.ProjectStateValue(t, "http://a.example/", "cpu_ec"); !ok || v != "1.000000" {
		t.Errorf("ProjectStateValue = %q, %v", v, ok)
	}
}

// recordTB records Skip and Fatal instead of acting on them.
type recordTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recordTB) Helper() {}

func (r *recordTB) Skip(args ...any) {
	r.skipped, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recordTB) Fatal(args ...any) {
	r.failed, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func TestMissingClientPolicy(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	old := binDir
	binDir = t.TempDir()
	t.Cleanup(func() { binDir = old })
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		r := &recordTB{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			requireTools(r)
		}()
		<-done
		if ci == "true" && (!r.failed || r.skipped) || ci == "" && (!r.skipped || r.failed) {
			t.Errorf("CI=%q: skipped=%v failed=%v", ci, r.skipped, r.failed)
		}
		if !strings.Contains(r.msg, "boinc-client") {
			t.Errorf("CI=%q: message %q does not say what to install", ci, r.msg)
		}
	}
	if Installed() {
		t.Error("Installed() = true with boinc nowhere to be found")
	}
}

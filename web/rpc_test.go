package web_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
)

const fixtureURL = "http://127.0.0.1:18641/proj/"

func TestJoinAndSync(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	p1 := e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	p2 := e.project(accounting.Project{URL: "http://127.0.0.1:18642/gpu/", Name: "GPU only", Resources: []string{"NVIDIA"}})
	p3 := e.project(accounting.Project{URL: "https://second.example.org/", Name: "Second"})

	status, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if status != http.StatusOK || join.ErrorNum != 0 {
		t.Fatalf("join: status %d, error %d %q", status, join.ErrorNum, join.ErrorMsg)
	}
	// vol gave no name: the reply names none (issue 45, item 4).
	if join.Dynamic == nil || join.RepeatSec != 3600 || join.UserName != "" || join.Name != "Cobble Test" {
		t.Errorf("join reply header wrong:\n%s", join.Raw)
	}
	if len(join.Authenticator) != 32 || !strings.Contains(join.Opaque.Inner, "host_token") {
		t.Errorf("join reply lacks authenticator or opaque:\n%s", join.Raw)
	}
	pub, err := boinc.ParsePublicKeyText(join.SigningKey)
	if err != nil {
		t.Fatalf("signing key: %v", err)
	}
	var urls []string
	for _, a := range join.Accounts {
		urls = append(urls, a.URL)
		if err := boinc.VerifyURL(pub, a.URL, a.URLSignature); err != nil {
			t.Errorf("signature of %s: %v", a.URL, err)
		}
		if a.Authenticator != "shared-account-key" || a.ResourceShare != 100 {
			t.Errorf("account %s: authenticator %q share %v", a.URL, a.Authenticator, a.ResourceShare)
		}
		if diff := cmp.Diff([]string{"NVIDIA", "ATI", "intel_gpu", "apple_gpu"}, a.NoRsc); diff != "" {
			t.Errorf("no_rsc of %s (-want +got):\n%s", a.URL, diff)
		}
	}
	if diff := cmp.Diff([]string{p1.URL, p3.URL}, urls); diff != "" {
		t.Errorf("assigned (-want +got):\n%s", diff)
	}
	_ = p2

	// The client attached the project; now it syncs with the authenticator
	// and the opaque host token, and reports counters.
	status, sync := e.rpc(join.followUp(fixture(t, "3-sync-with-ec.request.xml", "vol@example.org", "x")))
	if status != http.StatusOK || sync.ErrorNum != 0 {
		t.Fatalf("sync: status %d, error %d %q", status, sync.ErrorNum, sync.ErrorMsg)
	}
	if sync.Authenticator != join.Authenticator || sync.Opaque.Inner != join.Opaque.Inner {
		t.Errorf("sync changed authenticator or host: %q/%q vs %q/%q",
			sync.Authenticator, sync.Opaque.Inner, join.Authenticator, join.Opaque.Inner)
	}
	if sync.SigningKey != join.SigningKey {
		t.Error("signing key changed between replies")
	}
	var hosts, hostID int64
	var cpuEC, gpuTime float64
	var jobs int64
	err = e.pool.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM hosts), project_hostid, last_cpu_ec_micro / 1e6, last_gpu_time_micro / 1e6,
			last_njobs_success
		FROM host_projects WHERE project_id = $1`, p1.ID).Scan(&hosts, &hostID, &cpuEC, &gpuTime, &jobs)
	if err != nil {
		t.Fatal(err)
	}
	if hosts != 1 || hostID != 1004 || cpuEC != 12345.678 || gpuTime != 3600 || jobs != 42 {
		t.Errorf("stored: hosts %d hostid %d cpu_ec %v gpu_time %v jobs %d", hosts, hostID, cpuEC, gpuTime, jobs)
	}
}

func TestRPCErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	join := fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")
	tests := []struct {
		name   string
		body   []byte
		status int
		num    int
	}{
		{"wrong password", fixture(t, "1-join.request.xml", "vol@example.org", "wrong-pass"), 200, boinc.CodeBadPassword},
		{"unknown email", fixture(t, "1-join.request.xml", "nobody@example.org", "secret-pass"), 200, boinc.CodeBadPassword},
		{"unknown authenticator", []byte(strings.Replace(string(join), "<name>vol@example.org</name>",
			"<authenticator>0123456789abcdef0123456789abcdef</authenticator>", 1)), 200, boinc.CodeBadPassword},
		{"no credentials", []byte("<acct_mgr_request><host_cpid>x</host_cpid></acct_mgr_request>"), 200, boinc.CodeBadPassword},
		{"not XML", []byte("name=vol&password=x"), 200, boinc.CodeXMLParse},
		{"empty", nil, 200, boinc.CodeXMLParse},
		{"oversized", []byte("<acct_mgr_request>" + strings.Repeat("<x>y</x>", 200_000) + "</acct_mgr_request>"),
			200, boinc.CodeXMLParse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, r := e.rpc(tt.body)
			if status != tt.status || r.ErrorNum != tt.num || r.ErrorMsg == "" {
				t.Errorf("got status %d error %d %q, want %d error %d", status, r.ErrorNum, r.ErrorMsg, tt.status, tt.num)
			}
			if len(r.Accounts) != 0 || r.SigningKey != "" {
				t.Errorf("error reply carries accounts or key:\n%s", r.Raw)
			}
		})
	}
	var hosts int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM hosts`).Scan(&hosts); err != nil || hosts != 0 {
		t.Errorf("failed RPCs created %d hosts (err %v)", hosts, err)
	}
}

func TestRetiredProjectIsDetached(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	p := e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	e.project(accounting.Project{URL: "https://second.example.org/", Name: "Second"})
	e.project(accounting.Project{URL: "https://third.example.org/", Name: "Third"})
	_, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if join.account(fixtureURL) == nil {
		t.Fatalf("fixture project not assigned:\n%s", join.Raw)
	}
	if err := e.store.Catalog.SetProjectStatus(context.Background(), p.ID, accounting.StatusRetired); err != nil {
		t.Fatal(err)
	}
	_, sync := e.rpc(join.followUp(fixture(t, "2-sync-after-attach.request.xml", "", "")))
	a := sync.account(fixtureURL)
	if a == nil || a.DetachWhenDone == nil || a.DontRequestMoreWork == nil {
		t.Fatalf("retired project not sent detach_when_done:\n%s", sync.Raw)
	}
	if len(sync.Accounts) != 3 || sync.account("https://third.example.org/") == nil {
		t.Errorf("want the retired project replaced by the third one:\n%s", sync.Raw)
	}
}

func TestHostTokenOfAnotherVolunteerIsIgnored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("a@example.org", "secret-pass")
	e.user("b@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	_, a := e.rpc(fixture(t, "1-join.request.xml", "a@example.org", "secret-pass"))
	// b's client presents a's host token (a copied state file, say).
	req := strings.Replace(string(fixture(t, "1-join.request.xml", "b@example.org", "secret-pass")),
		"</acct_mgr_request>", "<opaque>"+a.Opaque.Inner+"</opaque></acct_mgr_request>", 1)
	_, b := e.rpc([]byte(req))
	if b.ErrorNum != 0 || b.Opaque.Inner == a.Opaque.Inner {
		t.Fatalf("b got a's host: %q", b.Opaque.Inner)
	}
	var owners int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(DISTINCT user_id) FROM hosts`).Scan(&owners); err != nil || owners != 2 {
		t.Errorf("hosts belong to %d users (err %v), want 2", owners, err)
	}
}

func TestHostMatchedByCPID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	join := fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")
	_, first := e.rpc(join)
	// The same computer joins again (state file lost): same host_cpid.
	_, again := e.rpc(join)
	// It got a new host CPID, and reports the old one as previous.
	moved := strings.Replace(string(join), "<host_cpid>c4771a3760054c4e7da2f2662c8a484c</host_cpid>",
		"<host_cpid>ffff1a3760054c4e7da2f2662c8a484c</host_cpid><previous_host_cpid>c4771a3760054c4e7da2f2662c8a484c</previous_host_cpid>", 1)
	_, third := e.rpc([]byte(moved))
	if first.Opaque.Inner != again.Opaque.Inner || first.Opaque.Inner != third.Opaque.Inner {
		t.Errorf("one computer became several hosts: %q %q %q", first.Opaque.Inner, again.Opaque.Inner, third.Opaque.Inner)
	}
}

// With its database gone, Cobble answers a BOINC client's RPC with HTTP
// 503 and an XML reply saying the service is down for now, which the client
// retries later, and a page with 503.
func TestDatabaseDownAnswers503(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := testdb.NewURL(t)
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e := newEnvOn(t, pool)
	e.user("vol@example.org", "secret-pass")
	join := fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")
	// The same request succeeds while the database answers.
	if status, r := e.rpc(join); status != http.StatusOK || r.ErrorNum != 0 {
		t.Fatalf("with the database up: status %d, error %d %q", status, r.ErrorNum, r.ErrorMsg)
	}
	// The database goes away under the running server.
	admin, err := pgx.Connect(ctx, os.Getenv(testdb.EnvURL))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE "+pgx.Identifier{cfg.Database}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname = $1`, cfg.Database).Scan(&left); err != nil || left != 0 {
		t.Fatalf("the database is still there (%d, %v)", left, err)
	}

	resp, err := http.Post(e.http.URL+"/rpc.php", "application/x-www-form-urlencoded", bytes.NewReader(join))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("RPC with the database down: status %d, want 503", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/xml; charset=utf-8" {
		t.Errorf("RPC with the database down: Content-Type %q, want XML", ct)
	}
	r := parseReply(t, string(body))
	type answer struct {
		Name, Authenticator, Opaque, SigningKey string
		ErrorNum, Accounts                      int
	}
	want := answer{Name: "Cobble Test", ErrorNum: boinc.CodeProjectDown}
	got := answer{Name: r.Name, Authenticator: r.Authenticator, Opaque: r.Opaque.Inner, SigningKey: r.SigningKey,
		ErrorNum: r.ErrorNum, Accounts: len(r.Accounts)}
	if diff := cmp.Diff(want, got); diff != "" || !strings.Contains(r.ErrorMsg, "try again later") {
		t.Errorf("RPC reply with the database down (-want +got):\n%s\n%s", diff, r.Raw)
	}

	status, page := e.post("/login", "application/x-www-form-urlencoded", []byte("email=a@b.org&password=x"))
	if status != http.StatusServiceUnavailable || !strings.Contains(page, "try again") {
		t.Errorf("login with the database down: status %d\n%s", status, page)
	}
}

func TestProjectConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resp, err := http.Get(e.http.URL + "/get_project_config.php")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	text := string(b)
	for _, want := range []string{"<project_config>", "<name>Cobble Test</name>", "<account_manager/>",
		"<min_passwd_length>8</min_passwd_length>", "<client_account_creation_disabled/>"} {
		if !strings.Contains(text, want) {
			t.Errorf("project config lacks %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "uses_username") {
		t.Error("Cobble logs in with an email; uses_username must not be sent")
	}
}

func TestWrongPasswordsAreRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	wrong := fixture(t, "1-join.request.xml", "vol@example.org", "wrong-pass")
	for range 10 {
		if _, r := e.rpc(wrong); r.ErrorNum != boinc.CodeBadPassword {
			t.Fatalf("wrong password: error %d", r.ErrorNum)
		}
	}
	_, r := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if r.ErrorNum != boinc.CodeBadPassword || !strings.Contains(r.ErrorMsg, "Too many") {
		t.Errorf("after 10 failures the right password got error %d %q, want the limit", r.ErrorNum, r.ErrorMsg)
	}
	status, _ := e.post("/login", "application/x-www-form-urlencoded", []byte("email=VOL@example.org&password=secret-pass"))
	if status != http.StatusTooManyRequests {
		t.Errorf("web log-in after 10 failures: status %d, want 429", status)
	}
}

package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc/exporttest"
	"github.com/cobble-am/cobble/internal/boinctest"
)

// login returns a browser logged in as a new account.
func (e *env) login(email string, admin bool) *http.Client {
	e.t.Helper()
	if _, err := e.store.Accounts.CreateUser(context.Background(), accounting.NewUser{Email: email, Password: "long-enough", IsAdmin: admin}); err != nil {
		e.t.Fatal(err)
	}
	return e.session(e.t, email, "long-enough")
}

// exportServer serves a stats directory with one host export on loopback.
func exportServer(t *testing.T, hosts []exporttest.Host) *httptest.Server {
	var tables, gz bytes.Buffer
	exporttest.WriteTables(&tables, exporttest.Tables{UpdateTime: time.Now().Add(-time.Hour).Unix()})
	zw := gzip.NewWriter(&gz)
	if err := exporttest.WriteHostExport(zw, slices.Values(hosts), exporttest.Options{}); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/stats/tables.xml":
			w.Write(tables.Bytes())
		case "/stats/host.gz":
			w.Write(gz.Bytes())
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAdminPagesAreForAdminsOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project(accounting.Project{URL: "https://proj.example.org/", Name: "Proj"})
	volunteer := e.login("vol@example.org", false)
	for _, path := range []string{"/admin/reconciliation", "/admin/reconciliation/runs", "/admin/hosts/1",
		"/admin/projects/" + itoa(p.ID) + "/reconciliation"} {
		status, page, _ := do(t, volunteer, "GET", e.http.URL+path, nil, nil)
		if status != http.StatusForbidden || !strings.Contains(page, "for Cobble&#39;s administrators") {
			t.Errorf("volunteer GET %s: status %d", path, status)
		}
		if status, _, h := do(t, e.browser(), "GET", e.http.URL+path, nil, nil); status != http.StatusSeeOther || h.Get("Location") != "/login" {
			t.Errorf("anonymous GET %s: status %d", path, status)
		}
	}
	status, _, _ := do(t, volunteer, "POST", e.http.URL+"/admin/projects/"+itoa(p.ID)+"/reconcile", url.Values{}, nil)
	if status != http.StatusForbidden {
		t.Errorf("volunteer run now: status %d", status)
	}
}

func TestAdminReconciliation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	stats := exportServer(t, []exporttest.Host{{ID: 7, UserID: 3, TotalCredit: 50}, {ID: 8, UserID: 3, TotalCredit: 10},
		{ID: 9, Hidden: true, TotalCredit: 5}})
	p := e.project(accounting.Project{URL: "https://proj.example.org/", Name: "Proj", StatsURL: stats.URL + "/stats/"})
	admin := e.login("admin@example.org", true)
	// A Cobble host reports host 9, whose owner the export hides: without
	// the account email nothing verifies it.
	vol := e.user("vol@example.org", "secret-pass")
	_, err := e.pool.Exec(context.Background(), `WITH h AS (INSERT INTO hosts (user_id, opaque_token) VALUES ($1, 'tok') RETURNING id)
		INSERT INTO host_projects (host_id, project_id, user_id, project_hostid) SELECT h.id, $2, $1, 9 FROM h`, vol.ID, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	status, page, _ := do(t, admin, "GET", e.http.URL+"/admin/reconciliation", nil, nil)
	if status != http.StatusOK || !strings.Contains(page, "Proj") || !strings.Contains(page, "never reconciled") {
		t.Fatalf("overview: status %d\n%s", status, page)
	}
	status, _, h := do(t, admin, "POST", e.http.URL+"/admin/projects/"+itoa(p.ID)+"/reconcile", url.Values{}, nil)
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/admin/runs/") {
		t.Fatalf("run now: status %d, location %q", status, h.Get("Location"))
	}
	runURL := e.http.URL + h.Get("Location")
	boinctest.WaitFor(t, "the run to finish", 30*time.Second, func() bool {
		_, page, _ = do(t, admin, "GET", runURL, nil, nil)
		return !strings.Contains(page, ">running<")
	})
	if !strings.Contains(page, `id="run-status">ok<`) || !strings.Contains(page, `id="run-scanned">3<`) {
		t.Fatalf("run page:\n%s", page)
	}
	// The run page lists its orphans and missing hosts under counted headings.
	if !regexp.MustCompile(`<h2>\d+ orphans?</h2>`).MatchString(page) || !regexp.MustCompile(`<h2>\d+ missing hosts?</h2>`).MatchString(page) {
		t.Errorf("run page does not list its orphans and missing hosts:\n%s", page)
	}
	status, page, _ = do(t, admin, "GET", e.http.URL+"/admin/projects/"+itoa(p.ID)+"/reconciliation", nil, nil)
	for _, want := range []string{"<svg", "Estimated and granted per day", "Ratio over time", "Run now", "Orphans", "Missing hosts",
		"the window ends the day before the latest export", "Estimated since then", "median host ratio",
		`id="unverified"`, "no account email is set", "--account-email", "1 unverified match"} {
		if status != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("project page (status %d) lacks %q", status, want)
		}
	}
	if strings.Contains(page, "1 unverified matches") {
		t.Error(`project page says "1 unverified matches"`)
	}
	if status, _, _ := do(t, admin, "GET", e.http.URL+"/admin/projects/999/reconciliation", nil, nil); status != http.StatusNotFound {
		t.Errorf("unknown project: status %d", status)
	}
	if status, _, _ := do(t, admin, "GET", e.http.URL+"/admin/hosts/abc", nil, nil); status != http.StatusNotFound {
		t.Errorf("bad host id: status %d", status)
	}
}

func TestAdminHostPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	status, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if status != http.StatusOK || join.ErrorNum != 0 {
		t.Fatalf("join: status %d, error %d %q", status, join.ErrorNum, join.ErrorMsg)
	}
	if status, r := e.rpc(join.followUp(fixture(t, "3-sync-with-ec.request.xml", "", ""))); status != http.StatusOK || r.ErrorNum != 0 {
		t.Fatalf("sync: status %d, error %d %q", status, r.ErrorNum, r.ErrorMsg)
	}
	admin := e.login("admin@example.org", true)
	var hostID int64
	if err := e.pool.QueryRow(context.Background(), `SELECT id FROM hosts`).Scan(&hostID); err != nil {
		t.Fatalf("reading the host's id: %v", err)
	}
	status, page, _ := do(t, admin, "GET", e.http.URL+"/admin/hosts/"+itoa(hostID), nil, nil)
	for _, want := range []string{"vm (host", "c4771a3760054c4e7da2f2662c8a484c", "vol@example.org", "Fixture", "Project host id 1004", "<svg",
		"on Debian GNU/Linux 12"} {
		if status != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("host page (status %d) lacks %q", status, want)
		}
	}
	if strings.Contains(page, "Volunteer's name for it") {
		t.Error("the host page names a nickname the volunteer never gave")
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE hosts SET nickname = 'Study desk' WHERE id = $1`, hostID); err != nil {
		t.Fatalf("naming the computer: %v", err)
	}
	status, page, _ = do(t, admin, "GET", e.http.URL+"/admin/hosts/"+itoa(hostID), nil, nil)
	for _, want := range []string{"vm (host", "Volunteer's name for it", "Study desk"} {
		if status != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("host page of a named computer (status %d) lacks %q", status, want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
)

// volunteerEnv is a server with two volunteers; Ada has two computers ×
// two projects × 40 days of history up to today, Bob has one computer.
type volunteerEnv struct {
	*env
	ada, bob             accounting.User
	adaHosts, bobHosts   []accounting.Computer
	adaClient, bobClient *http.Client
	projects             []accounting.Project // "Project <One>", "Two"
}

func newVolunteerEnv(t *testing.T) *volunteerEnv {
	t.Helper()
	e := &volunteerEnv{env: newEnv(t)}
	ctx := context.Background()
	e.ada, e.bob = e.user("ada@example.org", "ada-password"), e.user("bob@example.org", "bob-password")
	p1 := e.project(accounting.Project{URL: "https://one.example.org/", Name: "Project <One>", Keywords: []int{9}})
	p2 := e.project(accounting.Project{URL: "https://two.example.org/", Name: "Two"})
	e.projects = []accounting.Project{p1, p2}
	today := e.store.Ledger.Today(time.Now(), "UTC")
	for _, s := range []demodata.Spec{
		{UserID: e.ada.ID, Projects: []int64{p1.ID, p2.ID}, Days: 40, End: today, ConfirmedLag: 3, Events: true,
			Computers: []demodata.Computer{{Name: "alpha<script>", NCPUs: 4, PFPOps: 3e9, ClientVersion: "7.20.5"},
				{Name: "beta", NCPUs: 8, PFPOps: 4e9, ClientVersion: "7.20.5", GPUs: 1, GPUPeakFLOPS: 5e12}}},
		{UserID: e.bob.ID, Projects: []int64{p2.ID}, Days: 5, End: today,
			Computers: []demodata.Computer{{Name: "bobs-box", NCPUs: 2, PFPOps: 1e9, ClientVersion: "7.20.5"}}},
	} {
		if _, err := demodata.Seed(ctx, e.pool, s); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if e.adaHosts, err = e.store.Computers.Computers(ctx, e.ada.ID, today); err != nil {
		t.Fatal(err)
	}
	if e.bobHosts, err = e.store.Computers.Computers(ctx, e.bob.ID, today); err != nil {
		t.Fatal(err)
	}
	e.adaClient, e.bobClient = e.session(t, "ada@example.org", "ada-password"), e.session(t, "bob@example.org", "bob-password")
	return e
}

// session returns a client with a session of the volunteer.
func (e *env) session(t testing.TB, email, password string) *http.Client {
	t.Helper()
	c := e.browser()
	status, _, _ := do(t, c, "POST", e.http.URL+"/login", url.Values{"email": {email}, "password": {password}}, nil)
	if status != http.StatusSeeOther {
		t.Fatalf("log in %s: status %d", email, status)
	}
	return c
}

// Every volunteer route sends visitors to log in, and answers 404 for
// another volunteer's computer.
func TestVolunteerRoutesAccess(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	bobs := "/computers/" + strconv.FormatInt(e.bobHosts[0].ID, 10)
	routes := []struct{ method, path string }{
		{"GET", "/computers"}, {"GET", bobs}, {"POST", bobs + "/disconnect"}, {"GET", "/projects"},
		{"GET", "/settings"}, {"POST", "/settings/password"}, {"POST", "/settings/email"},
		{"POST", "/settings/time-zone"}, {"POST", "/settings/delete"},
		{"GET", "/export/history.csv"}, {"GET", "/export/history.json"},
		{"GET", "/settings/api"}, {"POST", "/settings/api"}, {"POST", "/settings/api/1/revoke"},
	}
	for _, rt := range routes {
		var form url.Values
		if rt.method == "POST" {
			form = url.Values{}
		}
		status, _, h := do(t, e.browser(), rt.method, e.http.URL+rt.path, form, nil)
		if status != http.StatusSeeOther || h.Get("Location") != "/login" {
			t.Errorf("visitor %s %s: status %d location %q, want 303 to /login", rt.method, rt.path, status, h.Get("Location"))
		}
	}
	for _, path := range []string{bobs, bobs + "/disconnect", "/computers/999999", "/computers/x"} {
		method, form := "GET", url.Values(nil)
		if strings.HasSuffix(path, "/disconnect") {
			method, form = "POST", url.Values{}
		}
		if status, _, _ := do(t, e.adaClient, method, e.http.URL+path, form, nil); status != http.StatusNotFound {
			t.Errorf("Ada %s %s: status %d, want 404", method, path, status)
		}
	}
	if c, _ := e.store.Computers.Computer(context.Background(), e.bob.ID, e.bobHosts[0].ID, time.Now()); !c.Connected {
		t.Error("Ada disconnected Bob's computer")
	}
	for _, path := range []string{"/", "/computers", "/projects", "/export/history.csv"} {
		if _, page, _ := do(t, e.adaClient, "GET", e.http.URL+path, nil, nil); strings.Contains(page, "bobs-box") {
			t.Errorf("Ada's %s shows Bob's computer", path)
		}
	}
}

func TestDashboardAndComputerPages(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	status, page, _ := do(t, e.adaClient, "GET", e.http.URL+"/", nil, nil)
	sum, _ := e.store.Ledger.Summary(context.Background(), e.ada.ID, e.store.Ledger.Today(time.Now(), "UTC"))
	for _, want := range []string{"Estimated credit", "Confirmed credit", "<svg class=\"chart\"", "lags",
		"Computers</a>", "claimed 2,000 more credit", "Days are counted in your time zone (UTC)"} {
		if !strings.Contains(page, want) {
			t.Errorf("dashboard lacks %q", want)
		}
	}
	if status != http.StatusOK || !strings.Contains(page, ">"+strings.TrimSpace(fmtCredit(sum.AllTime.Estimated))+"<") {
		t.Errorf("dashboard: status %d, all-time estimate %v not shown", status, sum.AllTime.Estimated)
	}
	for _, q := range []string{"?days=90", "?days=365&by=project", "?days=7000"} {
		if status, page, _ := do(t, e.adaClient, "GET", e.http.URL+"/"+q, nil, nil); status != 200 || !strings.Contains(page, "<svg") {
			t.Errorf("dashboard %s: status %d", q, status)
		}
	}
	alpha := "/computers/" + strconv.FormatInt(e.adaHosts[0].ID, 10)
	_, page, _ = do(t, e.adaClient, "GET", e.http.URL+"/computers", nil, nil)
	if !strings.Contains(page, "alpha&lt;script&gt;") || strings.Contains(page, "alpha<script>") || !strings.Contains(page, alpha) {
		t.Error("computers page: host name missing or not escaped")
	}
	_, page, _ = do(t, e.adaClient, "GET", e.http.URL+alpha, nil, nil)
	for _, want := range []string{"started again from zero", "kept 2,000 aside", "Project &lt;One&gt;", "Disconnect this computer"} {
		if !strings.Contains(page, want) {
			t.Errorf("computer page lacks %q", want)
		}
	}
	status, _, h := do(t, e.adaClient, "POST", e.http.URL+alpha+"/disconnect", url.Values{"confirm": {"yes"}}, nil)
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), alpha) {
		t.Fatalf("disconnect: status %d location %q", status, h.Get("Location"))
	}
	if _, page, _ = do(t, e.adaClient, "GET", e.http.URL+h.Get("Location"), nil, nil); !strings.Contains(page, "is disconnected") {
		t.Error("no confirmation after disconnecting")
	}
	_, page, _ = do(t, e.adaClient, "GET", e.http.URL+"/projects", nil, nil)
	if !strings.Contains(page, `href="https://one.example.org/"`) || !strings.Contains(page, "Two") {
		t.Error("projects page lacks the projects and their links")
	}
}

func fmtCredit(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func TestExportIsExact(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	var want []accounting.ExportRow
	e.store.Ledger.ExportHistory(context.Background(), e.ada.ID, func(r accounting.ExportRow) error {
		want = append(want, r)
		return nil
	})
	status, body, h := do(t, e.adaClient, "GET", e.http.URL+"/export/history.csv", nil, nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if status != 200 || err != nil || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") {
		t.Fatalf("CSV: status %d, %v", status, err)
	}
	header := "day,computer_id,computer_name,project_url,project_name,estimated_credit,cpu_time_s,gpu_time_s,jobs_ok,jobs_error,clamped_credit,confirmed_credit"
	if strings.Join(rows[0], ",") != header || len(rows) != len(want)+1 || len(want) != 2*2*40 {
		t.Fatalf("CSV header %v, %d rows, want %d", rows[0], len(rows)-1, len(want))
	}
	for i, w := range want {
		r := rows[i+1]
		if r[0] != w.Day.Format("2006-01-02") || r[2] != w.ComputerName || r[5] != w.Estimated.String() ||
			r[6] != w.CPUTime.String() || r[10] != w.Clamped.String() || r[11] != w.Confirmed.String() {
			t.Fatalf("row %d: %v, want %+v", i, r, w)
		}
	}
	status, body, _ = do(t, e.adaClient, "GET", e.http.URL+"/export/history.json", nil, nil)
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var raw []map[string]any
	if err := dec.Decode(&raw); status != 200 || err != nil || len(raw) != len(want) {
		t.Fatalf("JSON: status %d, %v, %d objects", status, err, len(raw))
	}
	if raw[0]["estimated_credit"].(json.Number).String() != want[0].Estimated.String() || raw[0]["computer_name"] != want[0].ComputerName {
		t.Errorf("JSON first object %v, want %+v", raw[0], want[0])
	}
	_, body, _ = do(t, e.bobClient, "GET", e.http.URL+"/export/history.json", nil, nil)
	if strings.Contains(body, "alpha") {
		t.Error("Bob's export holds Ada's computers")
	}
}

func TestSettingsForms(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	c := e.adaClient
	tests := []struct {
		path  string
		form  url.Values
		field string
		msg   string
	}{
		{"/settings/password", url.Values{"current_password": {"wrong-one"}, "password": {"new-password"}}, "current_password", "not your current password"},
		{"/settings/password", url.Values{"current_password": {"ada-password"}, "password": {"short"}}, "password", "at least 8"},
		{"/settings/password", url.Values{"current_password": {"ada-password"}, "password": {"bad\x07password"}}, "password", "printable"},
		{"/settings/email", url.Values{"email": {"bob@example.org"}, "email_password": {"ada-password"}}, "email", "Another account"},
		{"/settings/email", url.Values{"email": {"ada\xff@example.org"}, "email_password": {"ada-password"}}, "email", "not valid text"},
		{"/settings/email", url.Values{"email": {"ada2@example.org"}, "email_password": {"nope-nope"}}, "email_password", "not your current password"},
		{"/settings/email", url.Values{"email": {"ada@example.org"}, "email_password": {"ada-password"}}, "email", "your email already"},
		{"/settings/email", url.Values{"email": {"ada@x.org\r\nBcc: b@x.org"}, "email_password": {"ada-password"}}, "email", "printable"},
		{"/settings/email", url.Values{"email": {strings.Repeat("a", 290) + "@example.org"}, "email_password": {"ada-password"}}, "email", "like name@example.org"},
		{"/settings/alerts", url.Values{"silence": {"on"}, "silence_days": {"0"}}, "silence_days", "between 1 and 60"},
		{"/settings/alerts", url.Values{"silence": {"on"}, "silence_days": {"1e9"}}, "silence_days", "between 1 and 60"},
		{"/settings/alerts", url.Values{"silence": {"on"}, "silence_days": {"\xff"}}, "silence_days", "not valid text"},
		{"/settings/time-zone", url.Values{"time_zone": {"Mars/Olympus"}}, "time_zone", "Choose a time zone"},
		{"/settings/time-zone", url.Values{"time_zone": {"Europe/Paris\x00"}}, "time_zone", "printable"},
		{"/settings/delete", url.Values{"confirm": {"yes"}, "password": {"wrong-one"}}, "password", "not your current password"},
	}
	for _, tt := range tests {
		status, page, _ := do(t, c, "POST", e.http.URL+tt.path, tt.form, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(page, tt.msg) ||
			!strings.Contains(page, `id="`+tt.field+`-error"`) || !strings.Contains(page, `aria-describedby="`+tt.field+`-error"`) ||
			!strings.Contains(page, "autofocus") {
			t.Errorf("%s %v: status %d, want 422 with %q on %s", tt.path, tt.form, status, tt.msg, tt.field)
		}
	}
	post := func(path string, form url.Values) {
		t.Helper()
		if status, _, h := do(t, c, "POST", e.http.URL+path, form, nil); status != http.StatusSeeOther {
			t.Fatalf("%s: status %d location %q", path, status, h.Get("Location"))
		}
	}
	post("/settings/time-zone", url.Values{"time_zone": {"Asia/Tokyo"}})
	post("/settings/password", url.Values{"current_password": {"ada-password"}, "password": {"second-password"}})
	post("/settings/email", url.Values{"email": {"ada@new.example.org"}, "email_password": {"second-password"}})
	if _, page, _ := do(t, c, "GET", e.http.URL+"/settings", nil, nil); !strings.Contains(page, "A link is on its way to <strong class=\"wrap\">ada@new.example.org") {
		t.Error("settings page does not show the email change waiting for its link")
	}
	if status, _, _ := do(t, c, "POST", e.http.URL+"/email/confirm/"+lastSecret(t, e.store, accounting.MailEmailChange), url.Values{}, nil); status != http.StatusOK {
		t.Fatalf("following the email change's link: status %d", status)
	}
	if _, page, _ := do(t, c, "GET", e.http.URL+"/settings", nil, nil); !strings.Contains(page, "ada@new.example.org") ||
		!strings.Contains(page, "Now: Asia/Tokyo") || !strings.Contains(page, "/notices/") || !strings.Contains(page, "Science and computing") {
		t.Error("settings page does not show the changes")
	}
	e.session(t, "ada@new.example.org", "second-password")
	status, page, _ := do(t, c, "POST", e.http.URL+"/settings/delete", url.Values{}, nil)
	if status != http.StatusOK || !strings.Contains(page, `name="confirm" value="yes"`) {
		t.Fatalf("delete without confirmation: status %d", status)
	}
	post("/settings/delete", url.Values{"confirm": {"yes"}, "password": {"second-password"}})
	if _, err := e.store.Accounts.User(context.Background(), e.ada.ID); err == nil {
		t.Error("Ada's account is still there")
	}
	if status, _, _ := do(t, c, "GET", e.http.URL+"/settings", nil, nil); status != http.StatusSeeOther {
		t.Errorf("settings after deletion: status %d, want 303 to log in", status)
	}
}

func TestNoticesFeed(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	token, err := e.store.Accounts.FeedToken(context.Background(), e.ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	status, body, h := do(t, e.browser(), "GET", e.http.URL+"/notices/"+token+".rss", nil, nil)
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "application/rss+xml") ||
		!strings.Contains(body, "Your computers contributed") || !strings.Contains(body, "<guid>") {
		t.Errorf("feed: status %d\n%s", status, body)
	}
	for _, bad := range []string{"/notices/" + strings.Repeat("0", 64) + ".rss", "/notices/" + token, "/notices/x.rss"} {
		if status, _, _ := do(t, e.browser(), "GET", e.http.URL+bad, nil, nil); status != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", bad, status)
		}
	}
	if err := e.store.Accounts.RenewFeedToken(context.Background(), e.ada.ID); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := do(t, e.browser(), "GET", e.http.URL+"/notices/"+token+".rss", nil, nil); status != http.StatusNotFound {
		t.Errorf("revoked feed: status %d, want 404", status)
	}
}

// lastSecret returns the link token of the newest outbox message of kind.
func lastSecret(t *testing.T, store *accounting.Store, kind accounting.MailKind) string {
	t.Helper()
	ms, err := store.Mail.MailList(context.Background(), accounting.MailFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Kind == kind && m.Secret != "" {
			return m.Secret
		}
	}
	t.Fatalf("no %s message with a link in the outbox", kind)
	return ""
}

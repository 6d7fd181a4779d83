package web_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// axePages are the pages the accessibility test checks, and as whom:
// "visitor", "volunteer" (Ada, with 40 days of history) or "admin". In a
// path, {host}, {user}, {project} and {run} stand for ids of the test's
// data ({host2}: a second computer, paused and failing; {day}: a day of
// the history, with a report; {certificate}: a certificate of Ada's, whose
// profile is public as ada-l). To check a new page, add its line here.
var axePages = []struct{ as, path string }{
	{"visitor", "/"},
	{"visitor", "/login"},
	{"visitor", "/signup"},
	{"visitor", "/password/forgot"},
	{"visitor", "/password/reset/not-a-token"},
	{"visitor", "/email/confirm/not-a-token"},
	{"visitor", "/unsubscribe/not-a-token"},
	{"visitor", "/no-such-page"},
	{"visitor", "/api"},
	{"visitor", "/v/ada-l"},
	{"visitor", "/leaderboards"},
	{"visitor", "/leaderboards?area=9"},
	{"visitor", "/certificates/{certificate}"},
	{"visitor", "/credit"},
	{"volunteer", "/"},
	{"volunteer", "/?days=365&by=project"},
	{"volunteer", "/computers"},
	{"volunteer", "/computers/{host}"},
	{"volunteer", "/computers/{host}?days=90"},
	{"volunteer", "/computers/{host}/days/{day}"},
	{"volunteer", "/computers/{host2}"},
	{"volunteer", "/projects"},
	{"volunteer", "/settings"},
	{"volunteer", "/settings/science"},
	{"volunteer", "/settings/projects"},
	{"volunteer", "/settings/compute"},
	{"volunteer", "/settings/two-factor"},
	{"volunteer", "/settings/sessions"},
	{"volunteer", "/settings/api"},
	{"volunteer", "/api"},
	{"volunteer", "/settings/public"},
	{"volunteer", "/certificates"},
	{"volunteer", "/certificates/{certificate}"},
	{"volunteer", "/credit?window=90"},
	{"admin", "/admin/overview"},
	{"admin", "/admin/lookup"},
	{"admin", "/admin/lookup?q=ada"},
	{"admin", "/admin/users/{user}"},
	{"admin", "/admin/mail"},
	{"admin", "/admin/projects"},
	{"admin", "/admin/projects/new"},
	{"admin", "/admin/projects/{project}/edit"},
	{"admin", "/admin/audit"},
	{"admin", "/admin/reconciliation"},
	{"admin", "/admin/reconciliation/runs"},
	{"admin", "/admin/runs/{run}"},
	{"admin", "/admin/projects/{project}/reconciliation"},
	{"admin", "/admin/hosts/{host}"},
	{"admin", "/admin/reports"},
}

// Every page, as a visitor, a volunteer and an admin, at 1280 and 390
// pixels wide, breaks none of axe-core's rules of WCAG 2.1 A and AA.
func TestAccessibilityEveryPage(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	b := browsertest.New(t)
	ctx := context.Background()
	if _, err := e.store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "admin@example.org", Password: "long-enough", IsAdmin: true}); err != nil {
		t.Fatal(err)
	}
	var project, run int64
	if err := e.pool.QueryRow(ctx, `SELECT (SELECT min(id) FROM projects), (SELECT max(id) FROM reconcile_runs)`).
		Scan(&project, &run); err != nil {
		t.Fatal(err)
	}
	seedJobProblems(t, e.env) // so that the overview shows the job queue's table
	day := seedTrust(t, e)
	cert := publishAda(t, e)
	ids := strings.NewReplacer("{host2}", strconv.FormatInt(e.adaHosts[1].ID, 10), "{day}", day, "{certificate}", cert,
		"{host}", strconv.FormatInt(e.adaHosts[0].ID, 10), "{user}", strconv.FormatInt(e.ada.ID, 10),
		"{project}", strconv.FormatInt(project, 10), "{run}", strconv.FormatInt(run, 10))
	logins := map[string][2]string{"volunteer": {"ada@example.org", "ada-password"}, "admin": {"admin@example.org", "long-enough"}}
	as := "visitor"
	for _, p := range axePages {
		if p.as != as {
			if as != "visitor" {
				b.Click(t, "header.site form button") // Log out
			}
			if login, ok := logins[p.as]; ok {
				b.Open(t, e.http.URL+"/login")
				b.Fill(t, "#email", login[0])
				b.Fill(t, "#password", login[1])
				b.Click(t, "main form button[type=submit]")
			}
			as = p.as
		}
		url := e.http.URL + ids.Replace(p.path)
		for _, w := range []int{1280, phoneWidth} {
			b.Resize(t, w, 900)
			b.Open(t, url)
			if b.Status() >= 500 {
				t.Errorf("%s as %s: status %d", p.path, p.as, b.Status())
			}
			for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
				t.Errorf("%s as %s at %d px: %v", p.path, p.as, w, v)
			}
		}
	}
	b.Resize(t, 1280, 900)
}

// publishAda makes Ada's profile public as ada-l with every part shown
// and listed, folds the rollups, and returns the code of a certificate
// of hers.
func publishAda(t *testing.T, e *volunteerEnv) string {
	t.Helper()
	ctx := context.Background()
	if err := e.store.Ledger.RebuildRollups(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Public.SetPublicProfile(ctx, e.ada.ID, accounting.PublicProfile{Handle: "ada-l", Public: true,
		ShowTotals: true, ShowProjects: true, ShowAreas: true, ShowChart: true, ListMe: true}); err != nil {
		t.Fatal(err)
	}
	today := e.store.Ledger.Today(time.Now(), "UTC")
	c, err := e.store.Public.IssueCertificate(ctx, e.ada.ID, accounting.CertificateRequest{Name: "Ada",
		From: today.AddDate(0, 0, -30), To: today, Language: "en"}, today)
	if err != nil {
		t.Fatal(err)
	}
	return c.Code
}

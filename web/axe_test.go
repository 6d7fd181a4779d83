package web_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// axePages are the pages the accessibility test checks, and as whom:
// "visitor", "volunteer" (Ada, with 40 days of history) or "admin". In a
// path, {host}, {user}, {project} and {run} stand for ids of the test's
// data. To check a new page, add its line here.
var axePages = []struct{ as, path string }{
	{"visitor", "/"},
	{"visitor", "/login"},
	{"visitor", "/signup"},
	{"visitor", "/password/forgot"},
	{"visitor", "/password/reset/not-a-token"},
	{"visitor", "/email/confirm/not-a-token"},
	{"visitor", "/unsubscribe/not-a-token"},
	{"visitor", "/no-such-page"},
	{"visitor", "/credit"},
	{"volunteer", "/"},
	{"volunteer", "/?days=365&by=project"},
	{"volunteer", "/computers"},
	{"volunteer", "/computers/{host}"},
	{"volunteer", "/computers/{host}?days=90"},
	{"volunteer", "/projects"},
	{"volunteer", "/settings"},
	{"volunteer", "/settings/science"},
	{"volunteer", "/settings/projects"},
	{"volunteer", "/settings/compute"},
	{"volunteer", "/settings/two-factor"},
	{"volunteer", "/settings/sessions"},
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
	ids := strings.NewReplacer("{host}", strconv.FormatInt(e.adaHosts[0].ID, 10), "{user}", strconv.FormatInt(e.ada.ID, 10),
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

package web_test

import (
	"context"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// A project's page lists its hosts 50 at a time; the links to the next
// page, to the orders and to the filters keep the rest of the query, and
// the page's size does not grow with the hosts.
func TestReconProjectPagesHosts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	p := e.project(accounting.Project{URL: "https://proj.example.org/", Name: "Proj"})
	admin := e.login("admin@example.org", true)
	vol := e.user("vol@example.org", "secret-pass")
	// 120 hosts with project host ids: every one is in the report.
	if _, err := e.pool.Exec(ctx, `
		WITH h AS (INSERT INTO hosts (user_id, opaque_token) SELECT $1, 'tok' || i FROM generate_series(1, 120) i RETURNING id)
		INSERT INTO host_projects (host_id, project_id, user_id, project_hostid) SELECT id, $2, $1, 1000 + id FROM h`,
		vol.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	base := e.http.URL + "/admin/projects/" + itoa(p.ID) + "/reconciliation"
	status, first, _ := do(t, admin, "GET", base+"?sort=ratio&days=90", nil, nil)
	if status != http.StatusOK || !strings.Contains(first, "Hosts 1–50 of 120.") {
		t.Fatalf("first page: status %d\n%s", status, first)
	}
	if n := strings.Count(first, `href="/admin/hosts/`); n != 50 {
		t.Errorf("first page links %d hosts, want 50", n)
	}
	next := regexp.MustCompile(`rel="next" href="([^"]+)"`).FindStringSubmatch(first)
	if next == nil || !strings.Contains(next[1], "sort=ratio") || !strings.Contains(next[1], "days=90") {
		t.Fatalf("next link %q does not keep the order and the range", next)
	}
	_, second, _ := do(t, admin, "GET", e.http.URL+html.UnescapeString(next[1]), nil, nil)
	if !strings.Contains(second, "Hosts 51–100 of 120.") || !strings.Contains(second, `rel="prev"`) {
		t.Errorf("second page:\n%s", second)
	}
	_, last, _ := do(t, admin, "GET", base+"?from=100", nil, nil)
	if !strings.Contains(last, "Hosts 101–120 of 120.") || strings.Contains(last, `rel="next"`) {
		t.Errorf("last page lacks its range or offers a next one")
	}
	// The page of 120 hosts is about as long as one of 50: it lists 50.
	// Filters with nothing in them say so; bad values fall back to the
	// defaults, never an error.
	_, flagged, _ := do(t, admin, "GET", base+"?flag=low", nil, nil)
	if !strings.Contains(flagged, "No host on this page (0 hosts in all).") {
		t.Errorf("low filter:\n%s", flagged)
	}
	for _, q := range []string{"?from=-5", "?from=abc", "?sort=%27;drop", "?flag=%3Cb%3E", "?days=7", "?from=99999999999"} {
		if status, page, _ := do(t, admin, "GET", base+q, nil, nil); status != http.StatusOK || !strings.Contains(page, "Hosts 1–50 of 120.") {
			t.Errorf("%s: status %d", q, status)
		}
	}
}

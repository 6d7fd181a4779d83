package web_test

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
)

// maxPageWeight bounds a page's HTML plus its stylesheet.
const maxPageWeight = 150 << 10

// scriptLike matches what would make a page run script: a script element,
// an event handler attribute, a javascript: address.
var scriptLike = regexp.MustCompile(`(?i)<script|\son[a-z]+\s*=|javascript:`)

// stylesheet matches the address of a page's stylesheet.
var stylesheet = regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)"`)

// Every page the accessibility test checks, and the 365-day charts, weigh
// less than 150 KB of HTML and CSS and hold no script, for a volunteer with
// the demo's data: three computers, three projects, here a year and more of
// history instead of the demo's 120 days.
func TestPageWeight(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	u := e.user("heavy@example.org", "heavy-password")
	var projects []int64
	for _, name := range []string{"Einstein@Home", "Rosetta@home", "World Community Grid"} {
		p := e.project(accounting.Project{URL: "https://" + strings.ToLower(name[:4]) + ".example.org/", Name: name})
		projects = append(projects, p.ID)
	}
	today := e.store.Ledger.Today(time.Now(), "UTC")
	if _, err := demodata.Seed(ctx, e.pool, demodata.Spec{UserID: u.ID, Projects: projects, Days: 400, End: today,
		ConfirmedLag: 3, Events: true, Computers: []demodata.Computer{
			{Name: "studio-desktop", NCPUs: 16, PFPOps: 4.5e9, ClientVersion: "8.0.4", GPUs: 1, GPUPeakFLOPS: 1.2e13},
			{Name: "kitchen-laptop", NCPUs: 8, PFPOps: 3.1e9, ClientVersion: "7.24.1"},
			{Name: "old-mac-mini", NCPUs: 4, PFPOps: 2.2e9, ClientVersion: "7.20.5"}}}); err != nil {
		t.Fatal(err)
	}
	hosts, err := e.store.Computers.Computers(ctx, u.ID, today)
	if err != nil || len(hosts) != 3 {
		t.Fatalf("%d computers, %v", len(hosts), err)
	}
	var run int64
	if err := e.pool.QueryRow(ctx, `SELECT max(id) FROM reconcile_runs`).Scan(&run); err != nil {
		t.Fatal(err)
	}
	ids := strings.NewReplacer("{host}", strconv.FormatInt(hosts[0].ID, 10), "{user}", strconv.FormatInt(u.ID, 10),
		"{project}", strconv.FormatInt(projects[0], 10), "{run}", strconv.FormatInt(run, 10))
	clients := map[string]*http.Client{"visitor": e.browser(), "volunteer": e.session(t, "heavy@example.org", "heavy-password"),
		"admin": e.login("admin@example.org", true)}
	pages := append(axePages, []struct{ as, path string }{
		{"volunteer", "/?days=365"}, {"volunteer", "/?days=365&by=project"}, {"volunteer", "/computers/{host}?days=365"},
		{"volunteer", "/computers/{host}?days=365&by=project"}}...)
	for _, p := range pages {
		path := ids.Replace(p.path)
		_, page, _ := do(t, clients[p.as], "GET", e.http.URL+path, nil, nil)
		css := stylesheet.FindStringSubmatch(page)
		if css == nil {
			t.Errorf("%s as %s: no stylesheet", path, p.as)
			continue
		}
		_, style, _ := do(t, clients[p.as], "GET", e.http.URL+css[1], nil, nil)
		weight := len(page) + len(style)
		t.Logf("%-45s %-9s %6.1f KB", path, p.as, float64(weight)/1024)
		if weight > maxPageWeight || len(style) == 0 {
			t.Errorf("%s as %s: %d bytes of HTML and %d of CSS, over %d", path, p.as, len(page), len(style), maxPageWeight)
		}
		if s := scriptLike.FindString(page); s != "" {
			t.Errorf("%s as %s holds script: %q", path, p.as, s)
		}
	}
}

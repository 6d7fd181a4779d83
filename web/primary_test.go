package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// /readyz, the admin overview and the metrics name the primary database
// server: the one the pool reaches, at its timeline, with no failover
// seen and no standby.
func TestReadyAndOverviewNameThePrimary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cc := e.pool.Config().ConnConfig
	addr := fmt.Sprintf("%s:%d", cc.Host, cc.Port)
	var timeline int
	if err := e.pool.QueryRow(t.Context(), `SELECT timeline_id FROM pg_control_checkpoint()`).Scan(&timeline); err != nil {
		t.Fatal(err)
	}
	status, body, _ := do(t, e.browser(), "GET", e.http.URL+"/readyz", nil, nil)
	want := fmt.Sprintf("ready\nprimary database %s (timeline %d)\n", addr, timeline)
	if status != http.StatusOK || body != want {
		t.Errorf("readyz: %d %q, want 200 %q", status, body, want)
	}
	admin := e.login("admin@example.org", true)
	_, page, _ := do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil)
	line := fmt.Sprintf(`<p class="muted" id="primary">Primary database: %s, timeline %d, without a synchronous standby; `+
		`failovers seen by this instance: 0 (checked `, addr, timeline)
	if !strings.Contains(page, line) {
		t.Errorf("overview lacks %q:\n%s", line, page)
	}
	m := e.scrape()
	for name, want := range map[string]float64{"cobble_database_failovers_total": 0, "cobble_database_hosts": 1,
		"cobble_database_synchronous_standby": 0, "cobble_database_standbys_streaming": 0} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("metric %s = %v (present: %v), want %v", name, got, ok, want)
		}
	}
}

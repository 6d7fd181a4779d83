package web_test

import (
	"bufio"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// scrape reads the server's metrics into "name{labels}" → value.
func (e *env) scrape() map[string]float64 {
	e.t.Helper()
	rec := httptest.NewRecorder()
	e.srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		e.t.Fatalf("metrics: status %d", rec.Code)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if v, err := strconv.ParseFloat(line[i+1:], 64); i > 0 && err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

func TestMetricsCountRPCsAndReadiness(t *testing.T) {
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
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	if status, _, _ := do(t, e.browser(), "GET", e.http.URL+"/readyz", nil, nil); status != http.StatusOK {
		t.Errorf("readyz: status %d", status)
	}
	before := e.scrape()
	for range 2 {
		if status, r := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")); status != 200 || r.ErrorNum != 0 {
			t.Fatalf("join: %d %d", status, r.ErrorNum)
		}
	}
	for range 3 {
		if _, r := e.rpc(fixture(t, "1-join.request.xml", "nobody@example.org", "secret-pass")); r.ErrorNum == 0 {
			t.Fatal("unknown account accepted")
		}
	}
	e.srv.Rollup(ctx)
	var ok, bad int64
	query := `SELECT COALESCE(sum(count) FILTER (WHERE outcome = 'ok'), 0), COALESCE(sum(count) FILTER (WHERE outcome = 'error_reply'), 0) FROM rpc_hourly`
	if err := pool.QueryRow(ctx, query).Scan(&ok, &bad); err != nil || ok != 2 || bad != 3 {
		t.Errorf("hourly counters: ok %d, error replies %d, %v", ok, bad, err)
	}

	admin, err := pgx.Connect(ctx, os.Getenv(testdb.EnvURL))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	cfg, _ := pgx.ParseConfig(dbURL)
	if _, err := admin.Exec(ctx, "DROP DATABASE "+pgx.Identifier{cfg.Database}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	if status, _ := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")); status != http.StatusServiceUnavailable {
		t.Errorf("RPC with the database gone: status %d", status)
	}
	if status, _, _ := do(t, e.browser(), "GET", e.http.URL+"/readyz", nil, nil); status != http.StatusServiceUnavailable {
		t.Errorf("readyz with the database gone: status %d", status)
	}
	if status, _, _ := do(t, e.browser(), "GET", e.http.URL+"/healthz", nil, nil); status != http.StatusOK {
		t.Errorf("healthz with the database gone: status %d, want 200 (the process is up)", status)
	}
	after := e.scrape()
	for name, want := range map[string]float64{
		`cobble_rpc_requests_total{outcome="ok"}`:          2,
		`cobble_rpc_requests_total{outcome="error_reply"}`: 3,
		`cobble_rpc_requests_total{outcome="unavailable"}`: 1,
		`cobble_rpc_duration_seconds_count`:                6,
	} {
		if got := after[name] - before[name]; got != want {
			t.Errorf("%s moved by %v, want %v", name, got, want)
		}
	}
	for _, name := range []string{`cobble_db_pool_max_connections`, `go_goroutines`, `cobble_credit_accepted_cobblestones_total`} {
		if _, ok := after[name]; !ok {
			t.Errorf("no %s in the metrics", name)
		}
	}
}

// The time of each project's last successful reconciliation comes from
// the database, so every instance reports it, before and after a restart.
func TestMetricsSayWhenReconciliationLastSucceeded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	done := e.project(accounting.Project{URL: "https://done.example.org/", Name: "Done"})
	fresh := e.project(accounting.Project{URL: "https://fresh.example.org/", Name: "Fresh"})
	retired := e.project(accounting.Project{URL: "https://retired.example.org/", Name: "Retired"})
	noStats := e.project(accounting.Project{URL: "https://nostats.example.org/", Name: "No stats"})
	day := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for i, status := range []string{"ok", "unchanged", "failed", "running"} {
		start := day.Add(time.Duration(i) * 24 * time.Hour)
		var finished *time.Time
		if status != "running" {
			f := start.Add(time.Minute)
			finished = &f
		}
		if _, err := e.pool.Exec(ctx, `INSERT INTO reconcile_runs (project_id, started_at, finished_at, status, source)
			VALUES ($1, $2, $3, $4, 'test')`, done.ID, start, finished, status); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.pool.Exec(ctx, `UPDATE projects SET status = CASE id WHEN $1 THEN 'retired' ELSE status END,
		stats_url = CASE id WHEN $2 THEN '' ELSE stats_url END`, retired.ID, noStats.ID); err != nil {
		t.Fatal(err)
	}
	var added time.Time
	if err := e.pool.QueryRow(ctx, `SELECT created_at FROM projects WHERE id = $1`, fresh.ID).Scan(&added); err != nil {
		t.Fatal(err)
	}

	got := e.scrape()
	name := func(url string) string {
		return `cobble_reconcile_last_success_timestamp_seconds{project="` + url + `"}`
	}
	for url, want := range map[string]time.Time{
		done.URL:  day.Add(24*time.Hour + time.Minute), // the unchanged run: the failed and running ones came later
		fresh.URL: added,                               // no run yet: since it was added
	} {
		if v, ok := got[name(url)]; !ok || math.Abs(v-float64(want.UnixMilli())/1e3) > 0.001 {
			t.Errorf("%s = %v (present %v), want %v", name(url), v, ok, float64(want.Unix()))
		}
	}
	for _, url := range []string{retired.URL, noStats.URL} {
		if v, ok := got[name(url)]; ok {
			t.Errorf("%s = %v, want no such series (not reconciled)", name(url), v)
		}
	}
	for _, outcome := range []string{"ok", "unchanged", "failed"} {
		if _, ok := got[`cobble_reconcile_runs_total{outcome="`+outcome+`"}`]; !ok {
			t.Errorf("no cobble_reconcile_runs_total{outcome=%q} before any run: rates over it start late", outcome)
		}
	}
}

package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// BenchmarkAdminOverview measures the server time of /admin/overview over a
// ledger of 300,000 rows (2,000 hosts × 5 of 20 projects × 30 days), 48 hours
// of RPC counters and the rollup's daily credit: the page reads only the
// counters, so its time does not grow with the ledger.
func BenchmarkAdminOverview(b *testing.B) {
	ctx := context.Background()
	pool := testdb.New(b)
	srv, err := web.New(ctx, web.Config{Site: web.Site{Name: "Bench", BaseURL: "http://127.0.0.1:1/", RepeatSec: 3600},
		MaxProjects: 4},
		pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	if _, err := srv.Store().Accounts.CreateUser(ctx, accounting.NewUser{Email: "admin@example.org", Password: "long-enough", IsAdmin: true}); err != nil {
		b.Fatal(err)
	}
	for _, sql := range []string{
		`INSERT INTO projects (url, name, authenticator) SELECT 'https://p' || i || '.example.org/', 'Project ' || i, 'k' FROM generate_series(1, 20) i`,
		`INSERT INTO hosts (user_id, opaque_token, last_rpc_at) SELECT 1, 'tok' || i, now() - (i || ' minutes')::interval FROM generate_series(1, 2000) i`,
		`INSERT INTO host_projects (host_id, project_id, user_id, assigned) SELECT h.id, p.id, 1, true FROM hosts h
		   JOIN projects p ON p.id % 4 = h.id % 4 AND p.id <= 20 WHERE p.id % 4 = h.id % 4`,
		`INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro, clamped_cpu_ec_micro)
		   SELECT hp.host_id, hp.project_id, current_date - d, 1, 1000000 * (1 + d), CASE WHEN d % 7 = 0 THEN 5000000 ELSE 0 END
		   FROM host_projects hp, generate_series(0, 29) d`,
		`INSERT INTO rpc_hourly (hour, outcome, count) SELECT date_trunc('hour', now()) - (h || ' hours')::interval, o, 1000 + h
		   FROM generate_series(0, 47) h, unnest(ARRAY['ok', 'error_reply']) o`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			b.Fatal(err)
		}
	}
	if err := srv.Store().Ledger.Rollup(ctx, mustDate("2000-01-01"), mustDate("2100-01-01")); err != nil {
		b.Fatal(err)
	}
	var rows int64
	pool.QueryRow(ctx, `SELECT count(*) FROM ledger`).Scan(&rows)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if resp, err := c.PostForm(hs.URL+"/login", url.Values{"email": {"admin@example.org"}, "password": {"long-enough"}}); err != nil {
		b.Fatal(err)
	} else {
		resp.Body.Close()
	}
	b.ResetTimer()
	for b.Loop() {
		resp, err := c.Get(hs.URL + "/admin/overview")
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("overview: %v %v", resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.ReportMetric(float64(rows), "ledger-rows")
}

func mustDate(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

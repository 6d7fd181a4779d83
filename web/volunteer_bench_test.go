package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// BenchmarkVolunteerPages measures the server time of the dashboard, a
// computer page and the CSV download for a volunteer with 5 computers × 5
// projects × 3 years of days (27,375 ledger rows and as many confirmed),
// among other volunteers' rows. It reports p50 and p99 per request.
//
//	go run ./internal/pgcluster/withpg -- go test -run '^$' -bench BenchmarkVolunteerPages ./web/
func BenchmarkVolunteerPages(b *testing.B) {
	ctx := context.Background()
	pool := testdb.New(b)
	srv, err := web.New(ctx, web.Config{Site: web.Site{Name: "Cobble", BaseURL: "http://127.0.0.1:1/", RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost}, pool, quietLog())
	if err != nil {
		b.Fatal(err)
	}
	store, h := srv.Store(), srv.Handler()
	var projects []int64
	for i := range 5 {
		p, err := store.Catalog.AddProject(ctx, accounting.Project{URL: fmt.Sprintf("https://p%d.example.org/", i), Name: fmt.Sprintf("P%d", i), Authenticator: "k"})
		if err != nil {
			b.Fatal(err)
		}
		projects = append(projects, p.ID)
	}
	var computers []demodata.Computer
	for i := range 5 {
		computers = append(computers, demodata.Computer{Name: fmt.Sprintf("host-%d", i), NCPUs: 8, PFPOps: 4e9, ClientVersion: "7.20.5", GPUs: i % 2, GPUPeakFLOPS: 1e13})
	}
	today := store.Ledger.Today(time.Now(), "UTC")
	var user accounting.User
	for i := range 4 { // the measured volunteer and three others with as much history
		u, err := store.Accounts.CreateUser(ctx, accounting.NewUser{Email: fmt.Sprintf("v%d@example.org", i), Password: "bench-password"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := demodata.Seed(ctx, pool, demodata.Spec{UserID: u.ID, Computers: computers, Projects: projects,
			Days: 3 * 365, End: today, ConfirmedLag: 3, Events: true}); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			user = u
		}
	}
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	cookie := benchLogin(b, h, "v0@example.org", "bench-password")
	cs, err := store.Computers.Computers(ctx, user.ID, today)
	if err != nil || len(cs) != 5 {
		b.Fatalf("computers: %d, %v", len(cs), err)
	}
	for _, page := range []struct{ name, path string }{
		{"dashboard", "/"}, {"dashboard-365", "/?days=365"}, {"dashboard-365-by-project", "/?days=365&by=project"},
		{"computer", "/computers/" + strconv.FormatInt(cs[0].ID, 10)}, {"computers", "/computers"},
		{"projects", "/projects"}, {"csv", "/export/history.csv"},
	} {
		b.Run(page.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				req := httptest.NewRequest("GET", page.path, nil)
				req.Header.Set("Cookie", cookie)
				rec := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(rec, req)
				times = append(times, time.Since(start))
				if rec.Code != 200 {
					b.Fatalf("%s: status %d", page.path, rec.Code)
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// benchLogin logs in through h and returns the session cookie.
func benchLogin(b *testing.B, h http.Handler, email, password string) string {
	form := url.Values{"email": {email}, "password": {password}}
	req := httptest.NewRequest("POST", "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		b.Fatalf("log in: status %d", rec.Code)
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == "cobble_session" {
			return c.Name + "=" + c.Value
		}
	}
	b.Fatal("no session cookie")
	return ""
}

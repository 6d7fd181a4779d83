package demodata_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
	"github.com/cobble-am/cobble/internal/testdb"
)

// The demo's reports from a computer are dated on the days they added to,
// not today: a day's evidence of weeks ago does not say it was reported
// this morning (issue 45, item 10).
func TestDemoReportsAreOnTheirDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	s := accounting.NewStore(pool, accounting.Options{PasswordCost: bcrypt.MinCost})
	u, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Date(2026, 5, 31, 0, 0, 0, 0, time.UTC)
	if _, err := demodata.Seed(ctx, pool, demodata.Spec{UserID: u.ID, Projects: []int64{p.ID}, Days: 40, End: end,
		Events: true, Computers: []demodata.Computer{{Name: "alpha", NCPUs: 4, PFPOps: 3e9, ClientVersion: "7.20.5"}}}); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT day::text, first_report_at::date::text, last_report_at::date::text
		FROM ledger WHERE reports > 0`)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for rows.Next() {
		var day, first, last string
		if err := rows.Scan(&day, &first, &last); err != nil {
			t.Fatal(err)
		}
		if n++; first != day || last != day {
			t.Errorf("the demo's row of %s was reported from %s to %s", day, first, last)
		}
	}
	if rows.Err() != nil || n == 0 {
		t.Errorf("%d rows with reports (%v): the test sees nothing", n, rows.Err())
	}
}

// Each settled day of the demo shows its confirmed credit as the share of
// one export's grant, all of whose time falls on that day, as daily
// reconciliations would leave it: the day's evidence adds up, and lists
// no export of the day before (one at the day's very start granted for
// the time before it).
func TestDemoDaysShowTheirGrant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	s := accounting.NewStore(pool, accounting.Options{PasswordCost: bcrypt.MinCost})
	u, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	var projects []int64
	for _, name := range []string{"A", "B"} {
		p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://" + name + ".example.org/", Name: name, Authenticator: "k"})
		if err != nil {
			t.Fatal(err)
		}
		projects = append(projects, p.ID)
	}
	const days, lag = 12, 3
	end := time.Date(2026, 5, 31, 0, 0, 0, 0, time.UTC)
	if _, err := demodata.Seed(ctx, pool, demodata.Spec{UserID: u.ID, Projects: projects, Days: days, End: end,
		ConfirmedLag: lag, Computers: []demodata.Computer{{Name: "alpha", NCPUs: 4, PFPOps: 3e9, ClientVersion: "7.20.5"}}}); err != nil {
		t.Fatal(err)
	}
	var host int64
	if err := pool.QueryRow(ctx, `SELECT id FROM hosts WHERE user_id = $1`, u.ID).Scan(&host); err != nil {
		t.Fatal(err)
	}
	for day := end.AddDate(0, 0, 1-days); !day.After(end.AddDate(0, 0, -lag)); day = day.AddDate(0, 0, 1) {
		ev, err := s.Ledger.DayEvidence(ctx, u.ID, host, day, "UTC")
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.Projects) != len(projects) {
			t.Fatalf("%s: %d projects, want %d", day.Format(time.DateOnly), len(ev.Projects), len(projects))
		}
		for _, p := range ev.Projects {
			if len(p.Exports) != 1 || p.Exports[0].DayHours != p.Exports[0].Hours || !p.SharesAddUp() {
				t.Errorf("%s, %s: confirmed %.2f from exports %+v; want one export, all of its time on the day, "+
					"whose share is the day's confirmed credit", day.Format(time.DateOnly), p.Name, p.Granted, p.Exports)
			}
		}
	}
}

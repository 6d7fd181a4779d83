package accounting_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
	"github.com/cobble-am/cobble/internal/testdb"
)

// volunteerWithHistory makes two volunteers; the first has two computers ×
// two projects × 40 days of history ending on end.
func volunteerWithHistory(t *testing.T, end time.Time) (s *accounting.Store, ada, bob accounting.User) {
	t.Helper()
	ctx := context.Background()
	pool := testdb.New(t)
	s = accounting.NewStore(pool, testOptions)
	ada, _ = s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	bob, _ = s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "bob@example.org", Password: "bobs-pass"})
	var ids []int64
	for _, u := range []string{"https://a.example.org/", "https://b.example.org/"} {
		p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: u, Name: u[8:9], Authenticator: "k"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	_, err := demodata.Seed(ctx, pool, demodata.Spec{UserID: ada.ID, Projects: ids, Days: 40, End: end,
		ConfirmedLag: 3, Events: true, Computers: []demodata.Computer{
			{Name: "alpha", NCPUs: 4, PFPOps: 3e9, ClientVersion: "7.20.5"},
			{Name: "beta", NCPUs: 8, PFPOps: 4e9, ClientVersion: "7.12.1", GPUs: 1, GPUPeakFLOPS: 5e12}}})
	if err != nil {
		t.Fatal(err)
	}
	return s, ada, bob
}

func TestSummaryAndHistoryAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	end := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	s, ada, bob := volunteerWithHistory(t, end)
	sum, err := s.Ledger.Summary(ctx, ada.ID, end)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := s.Ledger.History(ctx, ada.ID, 0, end.AddDate(0, 0, -100), end)
	if err != nil {
		t.Fatal(err)
	}
	var all, today, last7 accounting.Totals
	for _, d := range hist {
		for _, tt := range []struct {
			t  *accounting.Totals
			ok bool
		}{{&all, true}, {&today, d.Day.Equal(end)}, {&last7, !d.Day.Before(end.AddDate(0, 0, -6))}} {
			if tt.ok {
				tt.t.Estimated += d.Estimated()
				tt.t.Confirmed += d.Confirmed
				tt.t.JobsOK += d.JobsOK
				tt.t.JobsError += d.JobsError
			}
		}
	}
	near := func(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
	if !near(sum.AllTime.Estimated, all.Estimated) || !near(sum.Today.Estimated, today.Estimated) ||
		!near(sum.Last7.Estimated, last7.Estimated) || sum.AllTime.JobsOK != all.JobsOK || sum.Last7.JobsOK != last7.JobsOK {
		t.Errorf("summary %+v disagrees with history: all %+v today %+v last7 %+v", sum, all, today, last7)
	}
	if sum.Today.Confirmed != 0 || sum.AllTime.Confirmed <= 0 || !near(sum.AllTime.Confirmed, all.Confirmed) {
		t.Errorf("confirmed: today %v (want 0, it lags), all time %v (history %v)", sum.Today.Confirmed, sum.AllTime.Confirmed, all.Confirmed)
	}
	if sum.Last30.Clamped != 2000 || sum.AllTime.GPUHours <= 0 || sum.AllTime.JobsError != all.JobsError {
		t.Errorf("clamped %v, GPU hours %v", sum.Last30.Clamped, sum.AllTime.GPUHours)
	}
	if other, err := s.Ledger.Summary(ctx, bob.ID, end); err != nil || other.AllTime != (accounting.Totals{}) {
		t.Errorf("another volunteer's summary: %+v, %v", other, err)
	}
}

func TestComputersBelongToTheirVolunteer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	end := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	s, ada, bob := volunteerWithHistory(t, end)
	cs, err := s.Computers.Computers(ctx, ada.ID, end)
	if err != nil || len(cs) != 2 {
		t.Fatalf("computers: %v, %v", cs, err)
	}
	beta := cs[1]
	if beta.Name != "beta" || beta.GPUs() != 1 || len(beta.Projects) != 2 || beta.Credit7Days <= 0 || !beta.Connected {
		t.Errorf("beta: %+v", beta)
	}
	if _, err := s.Computers.Computer(ctx, bob.ID, beta.ID, end); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("another volunteer's computer: %v, want ErrNotFound", err)
	}
	if err := s.Computers.Disconnect(ctx, bob.ID, beta.ID); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("disconnecting another volunteer's computer: %v, want ErrNotFound", err)
	}
	if ps, _ := s.Computers.ComputerProjects(ctx, bob.ID, beta.ID); len(ps) != 0 {
		t.Errorf("another volunteer sees projects %v", ps)
	}
	if h, _ := s.Ledger.History(ctx, bob.ID, beta.ID, end.AddDate(-1, 0, 0), end); len(h) != 0 {
		t.Errorf("another volunteer sees %d history rows", len(h))
	}
	if err := s.Computers.Disconnect(ctx, ada.ID, beta.ID); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Computers.Computer(ctx, ada.ID, beta.ID, end); c.Connected {
		t.Error("still connected after Disconnect")
	}
	w := accounting.Warnings(cs, accounting.Summary{}, end.AddDate(0, 0, 5))
	if len(w) != 3 || w[0].Kind != accounting.WarningSilent || w[2].Kind != accounting.WarningOldClient {
		t.Errorf("warnings: %+v", w)
	}
}

func TestExportMatchesLedger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	end := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	s, ada, _ := volunteerWithHistory(t, end)
	var est, conf accounting.Micro
	n := 0
	err := s.Ledger.ExportHistory(ctx, ada.ID, func(r accounting.ExportRow) error {
		n++
		est, conf = est+r.Estimated, conf+r.Confirmed
		return nil
	})
	sum, _ := s.Ledger.Summary(ctx, ada.ID, end)
	if err != nil || n != 2*2*40 {
		t.Fatalf("%d rows, %v", n, err)
	}
	if float64(est)/1e6 != sum.AllTime.Estimated || float64(conf)/1e6 != sum.AllTime.Confirmed {
		t.Errorf("export sums %v %v, summary %+v", est, conf, sum.AllTime)
	}
	for m, want := range map[accounting.Micro]string{0: "0", 1: "0.000001", 12_500_000: "12.5", -3_000_000: "-3"} {
		if m.String() != want {
			t.Errorf("Micro(%d) = %q, want %q", m, m.String(), want)
		}
	}
}

func TestAccountSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "bob@example.org", Password: "bobs-pass"})
	res, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "first-pass", "cpid-1"))
	if err != nil {
		t.Fatal(err)
	}
	field := func(err error) string {
		var v *accounting.ValidationError
		if !errors.As(err, &v) {
			return "not a validation error: " + errString(err)
		}
		for k := range v.Fields {
			return k
		}
		return ""
	}
	if f := field(s.Accounts.ChangePassword(ctx, u.ID, 0, "wrong-pass", "second-pass")); f != "current_password" {
		t.Errorf("wrong current password: field %q", f)
	}
	if f := field(s.Accounts.ChangePassword(ctx, u.ID, 0, "first-pass", "bad\x01pass-word")); f != "password" {
		t.Errorf("control character: field %q", f)
	}
	if err := s.Accounts.ChangePassword(ctx, u.ID, 0, "first-pass", "second-pass"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync.Sync(ctx, accounting.SyncRequest{Authenticator: res.Authenticator, Now: time.Now()}); err != nil {
		t.Errorf("the computer stops working after a password change: %v", err)
	}
	if f := field(s.Accounts.RequestEmailChange(ctx, u.ID, "second-pass", "BOB@example.org")); f != "email" {
		t.Errorf("taken email: field %q", f)
	}
	if f := field(s.Accounts.RequestEmailChange(ctx, u.ID, "second-pass", "ada\xff@example.org")); f != "email" {
		t.Errorf("invalid UTF-8: field %q", f)
	}
	if err := s.Accounts.RequestEmailChange(ctx, u.ID, "second-pass", "ada@new.example.org"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accounts.ConfirmEmail(ctx, newestSecret(t, s, accounting.MailEmailChange)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync.Sync(ctx, joinRequest("ada@new.example.org", "second-pass", "cpid-1")); err != nil {
		t.Errorf("join with the new email (password re-hashed): %v", err)
	}
	if f := field(s.Accounts.SetTimeZone(ctx, u.ID, "Mars/Olympus")); f != "time_zone" {
		t.Errorf("unknown zone: field %q", f)
	}
	if err := s.Accounts.SetTimeZone(ctx, u.ID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	if f := field(s.Accounts.DeleteUser(ctx, u.ID, "first-pass")); f != "password" {
		t.Errorf("delete with a wrong password: field %q", f)
	}
	if err := s.Accounts.DeleteUser(ctx, u.ID, "second-pass"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync.Sync(ctx, accounting.SyncRequest{Authenticator: res.Authenticator, Now: time.Now()}); !errors.Is(err, accounting.ErrBadPassword) {
		t.Errorf("a deleted volunteer's computer: %v, want ErrBadPassword", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

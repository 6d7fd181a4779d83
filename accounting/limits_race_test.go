package accounting_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
	"github.com/cobble-am/cobble/internal/testdb"
)

// racers is how many calls the tests of limits make at once.
const racers = 8

// limitsFixture is a store on a fresh database whose pool has room for
// every racer, with Ada's racers computers that work for one project.
func limitsFixture(t *testing.T) (s *accounting.Store, pool *pgxpool.Pool, ada accounting.User, hosts []int64, project int64) {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = racers + 4
	if pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s = accounting.NewStore(pool, testOptions)
	if ada, err = s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	spec := demodata.Spec{UserID: ada.ID, Projects: []int64{p.ID}, Days: 2, End: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	for range racers {
		spec.Computers = append(spec.Computers, demodata.Computer{Name: "box", NCPUs: 2, PFPOps: 1e9, ClientVersion: "7.20.5"})
	}
	if _, err := demodata.Seed(ctx, pool, spec); err != nil {
		t.Fatal(err)
	}
	rows, _ := pool.Query(ctx, `SELECT DISTINCT host_id FROM host_projects WHERE user_id = $1 ORDER BY 1`, ada.ID)
	if hosts, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil || len(hosts) != racers {
		t.Fatalf("Ada's computers: %v, %v", hosts, err)
	}
	return s, pool, ada, hosts, p.ID
}

// atOnce runs call(i) for i in [0, racers) at once, with their inserts
// into table held back until every call waits on a lock: each has counted
// what it counts before any inserts, unless they count under one lock (and
// then all but one wait for it). It returns the calls' errors.
func atOnce(t *testing.T, pool *pgxpool.Pool, table string, call func(i int) error) []error {
	t.Helper()
	ctx, cancel := context.Background(), func() {}
	if d, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, d.Add(-5*time.Second))
	}
	defer cancel()
	hold, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.WithoutCancel(ctx))
	// SHARE: reads go on, inserts wait.
	if _, err := hold.Exec(ctx, `LOCK TABLE `+table+` IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() { errs[i] = call(i) })
	}
	for waiting := 0; waiting < racers; time.Sleep(10 * time.Millisecond) {
		err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
		if err != nil {
			t.Errorf("waiting for the %d calls to wait on a lock: %v", racers, err)
			break
		}
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Error(err)
	}
	wg.Wait()
	return errs
}

// tally counts the nil errors and those that match is.
func tally(t *testing.T, errs []error, is func(error) bool) (ok, refused int) {
	t.Helper()
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case is(err):
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	return ok, refused
}

// Certificates issued at once never take a volunteer past
// MaxCertificates: from three short of it, three are issued.
func TestCertificatesAtOnceKeepTheLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, ada, _, _ := limitsFixture(t)
	today := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	if _, err := pool.Exec(ctx, `
		INSERT INTO certificates (user_id, code, name, from_day, to_day, confirmed_micro, estimated_micro, projects, language)
		SELECT $1, lpad(translate(i::text, '0123456789', 'abcdefghij'), 26, 'z'), 'Ada', $2, $2, 0, 0, '{}', '' FROM generate_series(1, $3::int) i`,
		ada.ID, today, accounting.MaxCertificates-3); err != nil {
		t.Fatal(err)
	}
	// The rollups' settled days reach today: a certificate covers only
	// those (issue 45, item 5).
	if _, err := pool.Exec(ctx, `INSERT INTO system_counts (name, value) VALUES ('rollup_day', $1)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, today.Unix()/86400+3); err != nil {
		t.Fatal(err)
	}
	errs := atOnce(t, pool, "certificates", func(int) error {
		_, err := s.Public.IssueCertificate(ctx, ada.ID, accounting.CertificateRequest{Name: "Ada", From: today, To: today}, today)
		return err
	})
	issued, limited := tally(t, errs, func(err error) bool { return errors.Is(err, accounting.ErrLimited) })
	var kept int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM certificates WHERE user_id = $1`, ada.ID).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if issued != 3 || limited != racers-3 || kept != accounting.MaxCertificates {
		t.Errorf("%d issued at once from %d: %d issued, %d limited, %d kept; want 3, %d, %d",
			racers, accounting.MaxCertificates-3, issued, limited, kept, racers-3, accounting.MaxCertificates)
	}
}

// Reports sent at once about different computers keep the volunteer's
// limits: a few a minute, and MaxOpenReports open.
func TestReportsAtOnceKeepTheLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	today := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	now := today.Add(12 * time.Hour)
	report := func(s *accounting.Store, ada accounting.User, host, project int64) error {
		_, err := s.Reports.SendReport(ctx, ada.ID, host, accounting.NewDayReport{Day: "2026-05-01", ProjectID: project,
			Text: "The credit of this day looks too low."}, today, now)
		return err
	}
	count := func(pool *pgxpool.Pool, ada accounting.User) (open int) {
		err := pool.QueryRow(ctx, `SELECT count(*) FROM day_reports WHERE user_id = $1 AND closed_at IS NULL`, ada.ID).Scan(&open)
		if err != nil {
			t.Fatal(err)
		}
		return open
	}
	t.Run("per minute", func(t *testing.T) {
		t.Parallel()
		s, pool, ada, hosts, project := limitsFixture(t)
		errs := atOnce(t, pool, "day_reports", func(i int) error { return report(s, ada, hosts[i], project) })
		stored, limited := tally(t, errs, func(err error) bool { return errors.Is(err, accounting.ErrLimited) })
		if stored != 3 || limited != racers-3 || count(pool, ada) != 3 {
			t.Errorf("%d reports at once: %d stored, %d limited, %d in the table; want 3 stored in a minute",
				racers, stored, limited, count(pool, ada))
		}
	})
	t.Run("open", func(t *testing.T) {
		t.Parallel()
		s, pool, ada, hosts, project := limitsFixture(t)
		// One short of the open limit, sent long enough ago.
		if _, err := pool.Exec(ctx, `
			INSERT INTO day_reports (user_id, host_id, project_id, day, text, created_at)
			SELECT $1, $2, $3, '2026-05-01', 'Earlier.', $4 FROM generate_series(1, $5::int)`,
			ada.ID, hosts[0], project, now.Add(-time.Hour), accounting.MaxOpenReports-1); err != nil {
			t.Fatal(err)
		}
		errs := atOnce(t, pool, "day_reports", func(i int) error { return report(s, ada, hosts[i], project) })
		var invalid *accounting.ValidationError
		stored, refused := tally(t, errs, func(err error) bool {
			return errors.Is(err, accounting.ErrLimited) || errors.As(err, &invalid)
		})
		if stored != 1 || refused != racers-1 || count(pool, ada) != accounting.MaxOpenReports {
			t.Errorf("%d reports at once with %d open: %d stored, %d refused, %d open; want %d open",
				racers, accounting.MaxOpenReports-1, stored, refused, count(pool, ada), accounting.MaxOpenReports)
		}
	})
}

package accounting_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// The ledger's writer adds amounts to a row of the same host, project, day
// and volunteer, and marks days for the rollups: every day a bulk writer
// wrote, and only the days before yesterday of one host's rows.
func TestLedgerWriterAddsAndMarks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	s := accounting.NewStore(pool, testOptions)
	if _, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "long-enough", "cpid-1"))
	if err != nil {
		t.Fatal(err)
	}
	mustExec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec(`DELETE FROM ledger`)
	mustExec(`DELETE FROM ledger_dirty_days`)
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	// A bulk writer's rows, twice: the amounts add up, and both days are marked.
	bulk := accounting.LedgerFrom(`SELECT $1::bigint, $2::bigint, $3::bigint, d::date, 5, 7, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0
		FROM unnest(ARRAY['2026-06-01', '2026-06-10']::date[]) AS d`)
	for range 2 {
		mustExec(bulk, res.HostID, res.User.ID, p.ID)
	}
	// One host's rows: yesterday's and today's are not marked, older ones are.
	rows := accounting.NewLedgerRows(res.HostID, res.User.ID)
	for _, day := range []time.Time{now.AddDate(0, 0, -3), now.AddDate(0, 0, -1), now} {
		rows.Add(p.ID, accounting.CivilDay(day), accounting.Usage{CPUEC: 1}, accounting.Usage{CPUEC: 2})
	}
	events := accounting.NewHostEvents(res.User.ID, res.HostID)
	if err := events.Add(&p.ID, now, accounting.EventClamp, accounting.EventDetail{
		Requested: &accounting.Counters{CPUEC: 3}, Clamped: &accounting.Counters{CPUEC: 2}}); err != nil {
		t.Fatal(err)
	}
	if err := events.Add(nil, now, accounting.EventClamp, accounting.EventDetail{
		Requested: &accounting.Counters{CPUEC: math.NaN()}}); err == nil {
		t.Error("an event whose detail has no JSON was added")
	}
	mustExec(`DELETE FROM accounting_events`)
	b := &pgx.Batch{}
	rows.Queue(b, now)
	events.Queue(b)
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM accounting_events
		WHERE host_id = $1 AND project_id = $2 AND kind = 'clamp' AND (detail -> 'clamped' ->> 'cpu_ec')::float8 = 2`,
		res.HostID, p.ID).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d events recorded (%v), want the one added", n, err)
	}
	var sums []int64
	var marked []string
	if err := pool.QueryRow(ctx, `
		SELECT array_agg(cpu_ec_micro * 1000 + clamped_cpu_ec_micro ORDER BY day),
		       (SELECT array_agg(day::text ORDER BY day) FROM ledger_dirty_days)
		FROM ledger`).Scan(&sums, &marked); err != nil {
		t.Fatal(err)
	}
	wantSums := []int64{10000, 1002, 1002, 11002} // 06-01, 06-07, 06-09, 06-10
	wantMarked := []string{"2026-06-01", "2026-06-07", "2026-06-10"}
	if len(sums) != len(wantSums) || len(marked) != len(wantMarked) {
		t.Fatalf("ledger %v, marked %v; want %v and %v", sums, marked, wantSums, wantMarked)
	}
	for i := range sums {
		if sums[i] != wantSums[i] {
			t.Errorf("ledger %v, want %v", sums, wantSums)
			break
		}
	}
	for i := range marked {
		if marked[i] != wantMarked[i] {
			t.Errorf("marked %v, want %v", marked, wantMarked)
			break
		}
	}
}

package accounting_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
)

// volunteerView is what a volunteer's pages and download show.
type volunteerView struct {
	History  []accounting.HistoryDay
	Summary  accounting.Summary
	Days     []accounting.DayCredit
	Export   map[string][2]accounting.Micro // day → estimated, confirmed
	Rollups  map[string][3]int64
	Computer int // days of one computer's history
}

func (h *host) view(userID, hostID int64) volunteerView {
	h.t.Helper()
	ctx := context.Background()
	from, to := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	var v volunteerView
	var err error
	if v.History, err = h.s.Ledger.History(ctx, userID, 0, from, to); err != nil {
		h.t.Fatal(err)
	}
	if v.Summary, err = h.s.Ledger.Summary(ctx, userID, time.Date(2026, 5, 15, 0, 0, 0, 0, time.UTC)); err != nil {
		h.t.Fatal(err)
	}
	if v.Days, err = h.s.Ledger.UserDays(ctx, userID, from, to); err != nil {
		h.t.Fatal(err)
	}
	v.Export = map[string][2]accounting.Micro{}
	if err := h.s.Ledger.ExportHistory(ctx, userID, func(r accounting.ExportRow) error {
		d := v.Export[r.Day.Format(time.DateOnly)]
		v.Export[r.Day.Format(time.DateOnly)] = [2]accounting.Micro{d[0] + r.Estimated, d[1] + r.Confirmed}
		return nil
	}); err != nil {
		h.t.Fatal(err)
	}
	v.Rollups, _ = h.rollupVsLedger()
	days, err := h.s.Ledger.History(ctx, userID, hostID, from, to)
	if err != nil {
		h.t.Fatal(err)
	}
	v.Computer = len(days)
	return v
}

// --ledger-detail-months: older months' partitions are dropped, and the
// volunteer's pages, download, totals and the rollups stay the same.
func TestRetireLedgerKeepsVolunteerHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)
	var userID, hostID int64
	if err := h.pool.QueryRow(ctx, `SELECT user_id, id FROM hosts`).Scan(&userID, &hostID); err != nil {
		t.Fatal(err)
	}
	// January to May 2026, a row a day; confirmed credit every other day.
	if _, err := h.pool.Exec(ctx, `
		INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro, cpu_time_micro, njobs_success, clamped_cpu_ec_micro)
		SELECT host_id, project_id, d::date, user_id, 1000000 + extract(doy FROM d)::int, 3600000000, 2, 7
		FROM host_projects, generate_series('2026-01-01'::date, '2026-05-10', '1 day') AS d;
		INSERT INTO confirmed_ledger (host_id, project_id, day, user_id, granted_micro)
		SELECT host_id, project_id, day, user_id, cpu_ec_micro / 2 FROM ledger WHERE extract(doy FROM day)::int % 2 = 0;
		SELECT ledger_partitions_ensure('2026-05-01', 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.Ledger.RebuildTotals(ctx, false); err != nil { // lifetime totals from the rows above
		t.Fatal(err)
	}
	if err := h.s.Ledger.RebuildRollups(ctx, time.Date(2026, 5, 15, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	before := h.view(userID, hostID)

	now := time.Date(2026, 5, 15, 12, 0, 0, 0, time.UTC)
	n, err := h.s.Ledger.RetireLedger(ctx, now, 2) // keeps May and the two months before
	if err != nil || n != 2 {
		t.Fatalf("RetireLedger folded %d months (%v), want 2 (January and February)", n, err)
	}
	var gone, kept bool
	if err := h.pool.QueryRow(ctx, `
		SELECT to_regclass('ledger_p2026_02') IS NULL AND to_regclass('confirmed_ledger_p2026_01') IS NULL,
			to_regclass('ledger_p2026_03') IS NOT NULL`).Scan(&gone, &kept); err != nil || !gone || !kept {
		t.Errorf("partitions: January and February dropped %v, March kept %v (%v)", gone, kept, err)
	}
	var stale int
	if err := h.pool.QueryRow(ctx, `SELECT count(*) FROM rollup_volunteer_days WHERE day < '2026-03-01'`).Scan(&stale); err != nil || stale != 0 {
		t.Errorf("%d per-volunteer rollup rows of retired days remain (%v)", stale, err)
	}
	after := h.view(userID, hostID)
	if diff := cmp.Diff(before, after, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Computer"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("the volunteer's history changed (-before +after):\n%s", diff)
	}
	// 59 days of January and February: no longer per computer.
	if before.Computer-after.Computer != 59 {
		t.Errorf("one computer's history: %d days before, %d after", before.Computer, after.Computer)
	}
	if from, err := h.s.Ledger.DetailFrom(ctx); err != nil || !from.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("DetailFrom %v (%v)", from, err)
	}
	rep, err := h.s.Ledger.RebuildTotals(ctx, true)
	if err != nil || len(rep.Differences) != 0 || len(rep.Rollups) != 0 {
		t.Errorf("check after retiring: %v %+v %+v", err, rep.Differences, rep.Rollups)
	}
	// A refold of every day leaves the retired days' rollups alone.
	if err := h.s.Ledger.RebuildRollups(ctx, now); err != nil {
		t.Fatal(err)
	}
	if rollups, _ := h.rollupVsLedger(); !cmp.Equal(rollups, before.Rollups) {
		t.Errorf("rebuilding the rollups after retiring changed them")
	}

	// A late row of January goes to DEFAULT and is folded by the next round.
	if _, err := h.pool.Exec(ctx, `
		INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro)
		SELECT host_id, project_id, '2026-01-20', user_id, 5000000 FROM host_projects;
		UPDATE host_projects SET total_cpu_ec_micro = total_cpu_ec_micro + 5000000`); err != nil {
		t.Fatal(err)
	}
	if n, err := h.s.Ledger.RetireLedger(ctx, now, 2); err != nil || n != 1 {
		t.Errorf("second round folded %d months (%v), want 1", n, err)
	}
	late := h.view(userID, hostID)
	if got, want := late.Export["2026-01-20"][0], before.Export["2026-01-20"][0]+5_000_000; got != want {
		t.Errorf("2026-01-20 after a late row: %v, want %v", got, want)
	}
	rep, err = h.s.Ledger.RebuildTotals(ctx, true)
	if err != nil || len(rep.Differences) != 0 || rep.DefaultLedger != 0 {
		t.Errorf("check after the late row: %v %+v, %d in DEFAULT", err, rep.Differences, rep.DefaultLedger)
	}
	if _, err := h.s.Ledger.RetireLedger(ctx, now, 0); err == nil {
		t.Error("RetireLedger kept no month of detail")
	}
}

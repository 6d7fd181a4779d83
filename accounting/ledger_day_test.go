package accounting_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// A day with two crediting RPCs, a clamp and an export shows all of them,
// and its numbers are the ledger's: the reports counted beside the ledger
// row, the clamp event, and the export's grant with its run.
func TestDayEvidenceAddsUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)                                                                   // joined 2026-05-01 10:00 UTC
	h.sync(time.Hour, &accounting.Counters{})                                         // 11:00, the baseline: credits nothing
	h.sync(time.Hour, &accounting.Counters{CPUEC: 10, CPUTime: 3600, JobsSuccess: 2}) // 12:00
	first := h.now
	h.sync(time.Hour, &accounting.Counters{CPUEC: 2000, CPUTime: 7200, JobsSuccess: 3}) // 13:00, clamped
	last := h.now
	var userID, hostID, projectID int64
	if err := h.pool.QueryRow(ctx, `SELECT user_id, host_id, project_id FROM host_projects`).Scan(&userID, &hostID, &projectID); err != nil {
		t.Fatal(err)
	}
	// An export run, as the reconciler records one: the host's total in the
	// export before the day, in the day's, and the grant confirmed.
	var runID int64
	exportAt := time.Date(2026, 5, 1, 18, 0, 0, 0, time.UTC)
	if err := h.pool.QueryRow(ctx, `INSERT INTO reconcile_runs (project_id, started_at, status, source, export_time)
		VALUES ($1, $2, 'ok', 'test', $2) RETURNING id`, projectID, exportAt).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.pool.Exec(ctx, `INSERT INTO export_credit (host_id, project_id, user_id, export_time, run_id,
			project_hostid, total_credit, expavg_credit, expavg_time)
		VALUES ($1, $2, $3, $4, $5, 77, 100, 1, 0), ($1, $2, $3, $6, $5, 77, 140, 1, 0)`,
		hostID, projectID, userID, exportAt.AddDate(0, 0, -1), runID, exportAt); err != nil {
		t.Fatal(err)
	}
	if _, err := h.pool.Exec(ctx, `INSERT INTO confirmed_ledger (host_id, project_id, user_id, day, granted_micro)
		VALUES ($1, $2, $3, '2026-05-01', 40000000)`, hostID, projectID, userID); err != nil {
		t.Fatal(err)
	}

	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	ev, err := h.s.Ledger.DayEvidence(ctx, userID, hostID, day, "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Projects) != 1 {
		t.Fatalf("projects: %+v", ev.Projects)
	}
	p := ev.Projects[0]
	ec, clamped, secs, jobs, _ := h.ledger()
	if p.Credited.CPUEC != ec || p.Clamped.CPUEC != clamped || p.Credited.CPUTime != secs || p.Credited.JobsSuccess != jobs {
		t.Errorf("the day shows %+v credited, %+v clamped; the ledger has %v, %v clamped, %v s, %d jobs",
			p.Credited, p.Clamped, ec, clamped, secs, jobs)
	}
	if p.Reports != 2 || p.FirstReport == nil || !p.FirstReport.Equal(first) || p.LastReport == nil || !p.LastReport.Equal(last) {
		t.Errorf("reports %d, first %v, last %v; want 2 from %v to %v", p.Reports, p.FirstReport, p.LastReport, first, last)
	}
	if len(p.Events) != 1 || p.Events[0].Kind != accounting.EventClamp {
		t.Errorf("events: %+v, want the clamp", p.Events)
	}
	if p.Granted != 40 || len(p.Exports) != 1 || p.Exports[0].RunID != runID || p.Exports[0].Granted == nil ||
		*p.Exports[0].Granted != 40 || !p.Exports[0].ExportTime.Equal(exportAt) {
		t.Errorf("granted %v, exports %+v; want 40 from run %d at %v", p.Granted, p.Exports, runID, exportAt)
	}
	// The grant is spread evenly over the 24 hours since the export before
	// it, 18 of which fall on the day: the day's share is 30 (issue 45,
	// item 10).
	if x := p.Exports[0]; x.Since == nil || !x.Since.Equal(exportAt.AddDate(0, 0, -1)) || x.Hours != 24 ||
		x.DayHours != 18 || x.Share != 30 {
		t.Errorf("export %+v: want since %v, 18 of 24 hours on the day, a share of 30", x, exportAt.AddDate(0, 0, -1))
	}

	// Another day of the computer has nothing; another volunteer's
	// computer is not found.
	if ev, err := h.s.Ledger.DayEvidence(ctx, userID, hostID, day.AddDate(0, 0, -3), "UTC"); err != nil || len(ev.Projects) != 0 {
		t.Errorf("an empty day: %+v, %v", ev, err)
	}
	if _, err := h.s.Ledger.DayEvidence(ctx, userID+1, hostID, day, "UTC"); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("another volunteer's computer: %v, want ErrNotFound", err)
	}
}

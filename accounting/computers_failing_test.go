package accounting_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// openFailures returns the host's open episodes by kind.
func openFailures(t *testing.T, h *host, userID int64) map[accounting.FailureKind]accounting.Failure {
	t.Helper()
	fs, err := h.s.Computers.Failures(context.Background(), userID, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[accounting.FailureKind]accounting.Failure{}
	for _, f := range fs {
		out[f.Kind] = f
	}
	return out
}

// Each failure begins an episode, with an event and a warning that says
// what to do, when its condition holds, and ends, with an event, when it
// clears: failed jobs from the RPCs' counters, exports that grant nothing
// while Cobble credits work, and an export whose rpc_time is stale while
// the computer syncs.
func TestCheckFailingEpisodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t) // 2026-05-01 10:00 UTC
	h.sync(time.Hour, &accounting.Counters{})
	h.sync(time.Hour, &accounting.Counters{CPUEC: 10, CPUTime: 3600, JobsSuccess: 1, JobsError: 6})
	var userID, hostID, projectID int64
	if err := h.pool.QueryRow(ctx, `SELECT user_id, host_id, project_id FROM host_projects`).Scan(&userID, &hostID, &projectID); err != nil {
		t.Fatal(err)
	}
	events := func(kind string) int { return h.events(kind) }

	if err := h.s.Computers.CheckFailing(ctx, h.now); err != nil {
		t.Fatal(err)
	}
	open := openFailures(t, h, userID)
	f, ok := open[accounting.FailureJobs]
	if !ok || len(open) != 1 || f.Detail.Failed != 6 || f.Detail.Jobs != 7 || f.HostID != hostID || f.ProjectName != "P" {
		t.Fatalf("after 6 of 7 jobs failed: %+v", open)
	}
	if w := f.Warning().Msg.String(); !containsAll(w, "6 of its last 7", "BOINC Manager") {
		t.Errorf("the warning says %q", w)
	}
	// Checking again changes nothing: one episode, one event.
	if err := h.s.Computers.CheckFailing(ctx, h.now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if events("failing") != 1 || len(openFailures(t, h, userID)) != 1 {
		t.Errorf("a second check: %d failing events, %d episodes", events("failing"), len(openFailures(t, h, userID)))
	}

	// Successes bring the share under the threshold: the episode ends.
	h.sync(time.Hour, &accounting.Counters{CPUEC: 20, CPUTime: 7200, JobsSuccess: 30, JobsError: 6})
	if err := h.s.Computers.CheckFailing(ctx, h.now); err != nil {
		t.Fatal(err)
	}
	if open := openFailures(t, h, userID); len(open) != 0 || events("failing_cleared") != 1 {
		t.Errorf("after the successes: open %+v, %d cleared events", open, events("failing_cleared"))
	}

	// Three daily exports with the same total while Cobble credited work,
	// saying the project last heard from the host 9 days ago; the host
	// syncs after them.
	var runID int64
	if err := h.pool.QueryRow(ctx, `INSERT INTO reconcile_runs (project_id, started_at, status, source)
		VALUES ($1, $2, 'ok', 'test') RETURNING id`, projectID, h.now).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	for i, at := range []time.Time{h.now.Add(time.Hour), h.now.Add(25 * time.Hour), h.now.Add(49 * time.Hour)} {
		if _, err := h.pool.Exec(ctx, `INSERT INTO export_credit (host_id, project_id, user_id, export_time, run_id,
				project_hostid, total_credit, expavg_credit, expavg_time, rpc_time)
			VALUES ($1, $2, $3, $4, $5, 77, 500, 0, 0, $6)`,
			hostID, projectID, userID, at, runID, h.now.AddDate(0, 0, -9)); err != nil {
			t.Fatalf("export %d: %v", i, err)
		}
	}
	h.sync(50*time.Hour, &accounting.Counters{CPUEC: 20, CPUTime: 7200, JobsSuccess: 30, JobsError: 6})
	if err := h.s.Computers.CheckFailing(ctx, h.now); err != nil {
		t.Fatal(err)
	}
	open = openFailures(t, h, userID)
	ng, silent := open[accounting.FailureNothingGranted], open[accounting.FailureProjectSilent]
	if len(open) != 2 || ng.Detail.Exports != 3 || ng.Detail.Estimated <= 0 || silent.Detail.LastRPC == nil {
		t.Fatalf("flat and stale exports: %+v", open)
	}
	// The computer falls silent for Cobble too: "project silent" clears.
	if err := h.s.Computers.CheckFailing(ctx, h.now.Add(3*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, still := openFailures(t, h, userID)[accounting.FailureProjectSilent]; still {
		t.Error("project_silent holds for a computer Cobble has not heard from for days")
	}
	// The volunteer did not turn the alert on: no mail was queued.
	var mails int
	if err := h.pool.QueryRow(ctx, `SELECT count(*) FROM mail_outbox WHERE kind = 'failing_alert'`).Scan(&mails); err != nil || mails != 0 {
		t.Errorf("%d failing alerts queued (err %v) without the alert on", mails, err)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/testdb"
)

// releaseData returns the URL of a fresh database that holds the data of
// testdata/release-008.sql, migrated to this release's schema.
func releaseData(t *testing.T) string {
	t.Helper()
	dbURL := previousReleaseData(t)
	if _, stderr, err := runCobble(t.Context(), map[string]string{"DATABASE_URL": dbURL}, "migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, stderr)
	}
	return dbURL
}

// cobble ledger check prints each total that differs from the ledger, and
// fails when one does; it changes nothing.
func TestLedgerCheck(t *testing.T) {
	t.Parallel()
	empty := map[string]string{"DATABASE_URL": testdb.NewURL(t)}
	if status, stdout, _ := runProcess(t, empty, "ledger", "check"); status != 0 ||
		stdout != "checked 0 host-project totals; 0 differences\nchecked the rollups; 0 differences\n" {
		t.Errorf("empty database: exit %d\n%s", status, stdout)
	}

	env := map[string]string{"DATABASE_URL": releaseData(t)}
	// The fixture's days are in months without partitions: into them.
	execSQL(t, env["DATABASE_URL"], `SELECT ledger_partitions_ensure(current_date, 0)`)
	if status, stdout, _ := runProcess(t, env, "ledger", "check"); status != 0 ||
		stdout != "checked 4 host-project totals; 0 differences\nchecked the rollups; 0 differences\n" {
		t.Errorf("consistent totals: exit %d\n%s", status, stdout)
	}

	execSQL(t, env["DATABASE_URL"], `UPDATE host_projects SET total_njobs_success = 23 WHERE host_id = 1 AND project_id = 1`)
	status, stdout, stderr := runProcess(t, env, "ledger", "check")
	want := "host 1 project 1 njobs_success: stored 23.000000, ledger 22.000000\nchecked 4 host-project totals; 1 difference\n" +
		"checked the rollups; 0 differences\n"
	if status != 1 || stdout != want ||
		lastLine(stderr) != "cobble: 1 total differs from the ledger; 'cobble ledger rebuild' sets them to the ledger's sums" {
		t.Errorf("one total off: exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", status, stdout, want, stderr)
	}

	execSQL(t, env["DATABASE_URL"], `UPDATE host_projects SET total_cpu_ec_micro = 1 WHERE host_id = 3`)
	status, stdout, _ = runProcess(t, env, "ledger", "check")
	want = "host 3 project 1 cpu_ec: stored 0.000001, ledger 1000.000000\n" + // by field, then host and project
		"host 1 project 1 njobs_success: stored 23.000000, ledger 22.000000\n" +
		"checked 4 host-project totals; 2 differences\nchecked the rollups; 0 differences\n"
	if status != 1 || stdout != want {
		t.Errorf("two totals off: exit %d\n%s", status, stdout)
	}
	var jobs int64
	query(t, env["DATABASE_URL"], []any{&jobs}, `SELECT total_njobs_success FROM host_projects WHERE host_id = 1 AND project_id = 1`)
	if jobs != 23 {
		t.Errorf("ledger check changed a total to %d", jobs)
	}

	// A ledger row of a month without a partition is reported, not counted
	// as a difference.
	execSQL(t, env["DATABASE_URL"], `
		UPDATE host_projects SET total_njobs_success = 22 WHERE host_id = 1 AND project_id = 1;
		UPDATE host_projects SET total_cpu_ec_micro = total_cpu_ec_micro + 7 WHERE host_id = 1 AND project_id = 1;
		INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro)
		SELECT host_id, project_id, '2001-01-01', user_id, 7 FROM host_projects WHERE host_id = 1 AND project_id = 1`)
	status, stdout, _ = runProcess(t, env, "ledger", "check")
	want = "host 3 project 1 cpu_ec: stored 0.000001, ledger 1000.000000\n" +
		"1 ledger and 0 confirmed rows are in DEFAULT partitions " +
		"(months without a partition; cobble serve moves them into new ones at start-up and every minute)\n" +
		"checked 4 host-project totals; 1 difference\nchecked the rollups; 0 differences\n"
	if status != 1 || stdout != want {
		t.Errorf("a row in DEFAULT: exit %d\n%s", status, stdout)
	}
}

// cobble ledger check compares the rollups with the ledger on the days the
// next round does not fold again; cobble ledger rebuild rebuilds them.
func TestLedgerCheckRollups(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": releaseData(t)}
	if status, stdout, stderr := runProcess(t, env, "ledger", "rebuild"); status != 0 ||
		!strings.Contains(stdout, "rebuilt the rollups from the ledger\n") {
		t.Fatalf("rebuild: exit %d\n%s%s", status, stdout, stderr)
	}
	var ec, granted, hosts int64
	query(t, env["DATABASE_URL"], []any{&ec, &granted, &hosts},
		`SELECT ec_micro, granted_micro, hosts FROM rollup_days WHERE day = '2025-06-08'`)
	var wantEC, wantGranted int64
	query(t, env["DATABASE_URL"], []any{&wantEC, &wantGranted}, `
		SELECT (SELECT sum(cpu_ec_micro + gpu_ec_micro) FROM ledger WHERE day = '2025-06-08'),
			(SELECT sum(granted_micro) FROM confirmed_ledger WHERE day = '2025-06-08')`)
	if ec != wantEC || granted != wantGranted || hosts == 0 {
		t.Errorf("rollup of 2025-06-08: ec %d granted %d hosts %d, want ec %d granted %d", ec, granted, hosts, wantEC, wantGranted)
	}

	execSQL(t, env["DATABASE_URL"], `
		UPDATE rollup_project_days SET granted_micro = granted_micro + 5 WHERE project_id = 1 AND day = '2025-06-08'`)
	status, stdout, stderr := runProcess(t, env, "ledger", "check")
	want := fmt.Sprintf("rollup project 1 2025-06-08 granted_micro: rollup %d, ledger %d\n", wantGranted+5, wantGranted)
	if status != 1 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "checked the rollups; 1 difference\n") ||
		lastLine(stderr) != "cobble: 1 rollup value differs from the ledger; 'cobble ledger rebuild' rebuilds them" {
		t.Errorf("a rollup off: exit %d\nstdout:\n%s\nwant in it:\n%s\nstderr:\n%s", status, stdout, want, stderr)
	}
	// A ledger row changed behind the rollup's back on an old day.
	execSQL(t, env["DATABASE_URL"], `
		UPDATE ledger SET njobs_error = njobs_error + 1 WHERE host_id = 1 AND project_id = 1 AND day = '2025-06-09'`)
	status, stdout, _ = runProcess(t, env, "ledger", "check")
	if status != 1 || !strings.Contains(stdout, "rollup all projects 2025-06-09 njobs_error:") ||
		!strings.Contains(stdout, "rollup project 1 2025-06-09 njobs_error:") ||
		!regexp.MustCompile(`rollup volunteer \d+ project 1 2025-06-09 njobs_error:`).MatchString(stdout) {
		t.Errorf("a ledger row changed: exit %d\n%s", status, stdout)
	}
	runProcess(t, env, "ledger", "rebuild")
	if status, stdout, _ := runProcess(t, env, "ledger", "check"); !strings.Contains(stdout, "checked the rollups; 0 differences\n") {
		t.Errorf("after rebuild: exit %d\n%s", status, stdout)
	}
}

// cobble ledger check covers the teams' rollup: a team's day or total
// that differs from its members' ledger is printed, and rebuild mends it.
func TestLedgerCheckTeamRollups(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": releaseData(t)}
	var team, user int64
	query(t, env["DATABASE_URL"], []any{&team, &user}, `
		WITH t AS (INSERT INTO teams (name, name_key, type, created_by, invite_code)
			SELECT 'Crunchers', 'crunchers', 1, user_id, 'abcdefghijklmnopqrstuvwxyz' FROM ledger
			WHERE day = '2025-06-08' LIMIT 1 RETURNING id, created_by)
		INSERT INTO team_members (user_id, team_id, first_day) SELECT created_by, id, '2000-01-01' FROM t
		RETURNING team_id, user_id`)
	if status, stdout, stderr := runProcess(t, env, "ledger", "rebuild"); status != 0 {
		t.Fatalf("rebuild: exit %d\n%s%s", status, stdout, stderr)
	}
	var granted, wantGranted, total int64
	query(t, env["DATABASE_URL"], []any{&granted, &total, &wantGranted}, `
		SELECT (SELECT granted_micro FROM rollup_team_days WHERE team_id = $1 AND day = '2025-06-08'),
			(SELECT granted_micro FROM teams WHERE id = $1),
			(SELECT sum(granted_micro) FROM confirmed_ledger WHERE user_id = $2 AND day = '2025-06-08')`, team, user)
	if granted != wantGranted || granted == 0 {
		t.Fatalf("the team's 2025-06-08: granted %d, its member's %d", granted, wantGranted)
	}
	if status, stdout, _ := runProcess(t, env, "ledger", "check"); status != 0 ||
		!strings.Contains(stdout, "checked the rollups; 0 differences\n") {
		t.Errorf("after rebuild: exit %d\n%s", status, stdout)
	}
	execSQL(t, env["DATABASE_URL"], `UPDATE rollup_team_days SET granted_micro = granted_micro + 5 WHERE day = '2025-06-08'`)
	status, stdout, _ := runProcess(t, env, "ledger", "check")
	for _, want := range []string{
		fmt.Sprintf("rollup team %d 2025-06-08 granted_micro: rollup %d, ledger %d\n", team, granted+5, granted),
		fmt.Sprintf("rollup team %d all days total_granted_micro: rollup %d, ledger %d\n", team, total, total+5),
	} {
		if status != 1 || !strings.Contains(stdout, want) {
			t.Errorf("a team's day off: exit %d\nstdout:\n%s\nwant in it:\n%s", status, stdout, want)
		}
	}
	runProcess(t, env, "ledger", "rebuild")
	if status, stdout, _ := runProcess(t, env, "ledger", "check"); status != 0 {
		t.Errorf("after the second rebuild: exit %d\n%s", status, stdout)
	}
}

// cobble ledger check shows the job queue's stuck jobs, each past its
// kind's timeout (not a reconciliation round within its own), and the
// jobs that failed lately; they do not fail the check.
func TestLedgerCheckShowsJobs(t *testing.T) {
	t.Parallel()
	empty := map[string]string{"DATABASE_URL": testdb.NewURL(t)}
	execSQL(t, empty["DATABASE_URL"], `INSERT INTO river_job (id, args, kind, state, attempt, attempted_at, scheduled_at, finalized_at, errors)
		VALUES (7, '{}', 'rollup_round', 'running', 1, '2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z', NULL, NULL),
		(8, '{}', 'alerts_round', 'discarded', 1, now(), now(), now() - interval '1 hour',
			ARRAY['{"attempt": 1, "error": "the database went away"}'::jsonb]),
		(9, '{"id": 1}', 'mail', 'running', 1, '2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z', NULL, NULL),
		(10, '{}', 'reconcile_round', 'running', 1, now() - interval '90 minutes', now(), NULL, NULL)`)
	status, stdout, _ := runProcess(t, empty, "ledger", "check")
	var failedAt time.Time
	query(t, empty["DATABASE_URL"], []any{&failedAt}, `SELECT finalized_at FROM river_job WHERE id = 8`)
	want := "checked 0 host-project totals; 0 differences\nchecked the rollups; 0 differences\n" +
		"stuck job 7 rollup_round (queue default, running, attempt 1): running since 2026-01-01T10:00:00Z, " +
		"past its timeout of 1h0m0s\n" +
		"stuck job 9 mail (queue default, running, attempt 1): running since 2026-01-01T10:00:00Z, " +
		"past its timeout of 1m0s\n" +
		"failed job 8 alerts_round (queue default, discarded after 1 attempt) at " +
		failedAt.UTC().Format(time.RFC3339) + ": the database went away\n" +
		"checked the job queue; 2 stuck jobs, 1 failed in the last 24h0m0s\n"
	if status != 0 || stdout != want {
		t.Errorf("a stuck and a failed job: exit %d\n%s\nwant:\n%s", status, stdout, want)
	}
}

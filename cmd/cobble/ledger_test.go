package main

import (
	"os"
	"testing"

	"github.com/cobble-am/cobble/internal/testdb"
)

// cobble ledger check prints each total that differs from the ledger, and
// fails when one does; it changes nothing.
func TestLedgerCheck(t *testing.T) {
	t.Parallel()
	empty := map[string]string{"DATABASE_URL": testdb.NewURL(t)}
	if status, stdout, _ := runProcess(t, empty, "ledger", "check"); status != 0 ||
		stdout != "checked 0 host-project totals; 0 differences\n" {
		t.Errorf("empty database: exit %d\n%s", status, stdout)
	}

	env := map[string]string{"DATABASE_URL": testdb.NewURL(t)}
	fixture, err := os.ReadFile("testdata/release-008.sql") // the newer columns take their defaults
	if err != nil {
		t.Fatal(err)
	}
	execSQL(t, env["DATABASE_URL"], string(fixture))
	// The fixture's days are in months without partitions: into them.
	execSQL(t, env["DATABASE_URL"], `SELECT ledger_partitions_ensure(current_date, 0)`)
	if status, stdout, _ := runProcess(t, env, "ledger", "check"); status != 0 ||
		stdout != "checked 4 host-project totals; 0 differences\n" {
		t.Errorf("consistent totals: exit %d\n%s", status, stdout)
	}

	execSQL(t, env["DATABASE_URL"], `UPDATE host_projects SET total_njobs_success = 23 WHERE host_id = 1 AND project_id = 1`)
	status, stdout, stderr := runProcess(t, env, "ledger", "check")
	want := "host 1 project 1 njobs_success: stored 23.000000, ledger 22.000000\nchecked 4 host-project totals; 1 difference\n"
	if status != 1 || stdout != want ||
		lastLine(stderr) != "cobble: 1 total differs from the ledger; 'cobble ledger rebuild' sets them to the ledger's sums" {
		t.Errorf("one total off: exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", status, stdout, want, stderr)
	}

	execSQL(t, env["DATABASE_URL"], `UPDATE host_projects SET total_cpu_ec_micro = 1 WHERE host_id = 3`)
	status, stdout, _ = runProcess(t, env, "ledger", "check")
	want = "host 3 project 1 cpu_ec: stored 0.000001, ledger 1000.000000\n" + // by field, then host and project
		"host 1 project 1 njobs_success: stored 23.000000, ledger 22.000000\n" +
		"checked 4 host-project totals; 2 differences\n"
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
		"checked 4 host-project totals; 1 difference\n"
	if status != 1 || stdout != want {
		t.Errorf("a row in DEFAULT: exit %d\n%s", status, stdout)
	}
}

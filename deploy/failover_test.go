//go:build linux

package deploy

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The pg_auto_failover keeper's unit passes `systemd-analyze verify`, which
// wants ExecStart's program, pg_autoctl, to exist and User= to be known.
func TestPgAutoctlUnitVerifies(t *testing.T) {
	t.Parallel()
	analyze := requireTool(t, "systemd-analyze", "systemd", "/usr/bin")
	requireTool(t, "pg_autoctl", "postgresql-15-auto-failover", "/usr/bin")
	path := filepath.Join(t.TempDir(), "pg_autoctl.service")
	writeFile(t, path, readFile(t, "pg_auto_failover/pg_autoctl.service"))
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// formation.sh parses, and without arguments says how to use it with exit
// status 2, creating nothing.
func TestFormationScriptUsage(t *testing.T) {
	t.Parallel()
	if out, err := exec.Command("bash", "-n", "pg_auto_failover/formation.sh").CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	cmd := exec.Command("bash", "pg_auto_failover/formation.sh")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "usage:") {
		t.Errorf("formation.sh without arguments: exit %d (%v), want 2 and a usage line:\n%s", code, err, out)
	}
}

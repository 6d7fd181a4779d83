//go:build linux

package boinctest

import (
	"syscall"
	"testing"
	"time"
)

// TestCleanupKillsHungClient checks that the cleanup registered by Start
// leaves no process behind, even when the client does not answer --quit.
func TestCleanupKillsHungClient(t *testing.T) {
	var pid int
	t.Run("client", func(t *testing.T) {
		old := StopTimeout
		StopTimeout = time.Second
		t.Cleanup(func() { StopTimeout = old })
		c := Start(t)
		pid = c.PID()
		// A stopped process cannot answer --quit.
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	})
	if pid == 0 {
		return // skipped
	}
	if processExists(pid) {
		t.Errorf("client pid %d still exists after the test's cleanup", pid)
	}
}

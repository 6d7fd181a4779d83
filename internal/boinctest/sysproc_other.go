//go:build !linux

package boinctest

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcAttr does nothing outside Linux; the harness is meant for the
// Debian boinc-client package.
func setProcAttr(*exec.Cmd) {}

// killProc kills the client process.
func killProc(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// processExists reports whether a process with this pid can be found.
func processExists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

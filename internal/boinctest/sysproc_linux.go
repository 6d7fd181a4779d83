//go:build linux

package boinctest

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the client in its own process group, so that it and
// anything it starts can be killed together, and asks the kernel to kill it
// if the test binary dies without running its cleanups (for example when
// `go test -timeout` fires).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,
		Pdeathsig: syscall.SIGKILL,
	}
}

// killProc kills the client's whole process group.
func killProc(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}

// processExists reports whether a process with this pid exists (zombies
// included).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

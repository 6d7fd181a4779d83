//go:build linux

package browsertest

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// setProcAttr puts Chromium in its own process group, so that it and its
// helpers can be killed together, and asks the kernel to kill it if the
// test binary dies without running its cleanups (for example when
// `go test -timeout` fires).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the process group of a browser that is still running.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// using returns the live processes whose command line mentions dir: every
// Chromium process started with --user-data-dir=dir, and its crash handler,
// which runs in a session of its own with its database in dir.
func using(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil || dir == "" {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && mentions(cmdline, dir) && !zombie(e.Name()) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// mentions reports whether a NUL-separated command line has the argument
// --user-data-dir=dir or an argument naming a path inside dir.
func mentions(cmdline []byte, dir string) bool {
	for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
		if string(arg) == "--user-data-dir="+dir || bytes.Contains(arg, []byte(dir+"/")) {
			return true
		}
	}
	return false
}

// zombie reports whether a process has exited and only waits to be reaped.
func zombie(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true // gone
	}
	// The state follows the command name, which is in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
}

// killUsing kills the processes that use dir.
func killUsing(dir string) {
	for _, pid := range using(dir) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitGone kills the processes that use dir until none is left, and
// returns those still there after d.
func waitGone(dir string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := using(dir)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

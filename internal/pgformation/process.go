package pgformation

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// process is a pg_autoctl run in a process group of its own, which holds
// its PostgreSQL too.
type process struct {
	cmd    *exec.Cmd
	log    *os.File
	exited chan struct{}
}

// startProcess starts cmd with its output in logFile.
func startProcess(cmd *exec.Cmd, logFile string) (*process, error) {
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	p := &process{cmd: cmd, log: log, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop asks pg_autoctl to stop (it stops its PostgreSQL), after 10 s
// kills its whole process group, and gives up waiting 5 s later: a
// cleanup never holds the test binary up to its alarm, which would hide
// the test's own report. It says whether the process ended.
func (p *process) stop() bool {
	pgid := p.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
	}
	// Whatever is left of the group (a postmaster pg_autoctl lost).
	syscall.Kill(-pgid, syscall.SIGKILL)
	defer p.log.Close()
	select {
	case <-p.exited:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

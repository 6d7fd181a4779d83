package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// The CPU time of a measured phase, split between the throwaway cluster's
// PostgreSQL processes and this process (Cobble's server, the load
// generator or the replay, and the Go runtime), from Linux's /proc and
// getrusage: what each side spent per RPC or per replayed transaction,
// whatever share of a busy machine the phase got.

// clockTicks is Linux's USER_HZ, the unit of /proc's CPU times.
const clockTicks = 100

// cpuTimes is the CPU time used so far by PostgreSQL and by this process.
type cpuTimes struct {
	pg, self time.Duration
}

func (a cpuTimes) sub(b cpuTimes) cpuTimes { return cpuTimes{pg: a.pg - b.pg, self: a.self - b.self} }

// readCPUTimes reads the CPU time of the cluster whose postmaster is pid
// (its own, that of its children that ended, and that of those running)
// and of this process.
func readCPUTimes(pid int) (cpuTimes, error) {
	var t cpuTimes
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return t, err
	}
	t.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	_, ticks, err := procStat(pid, true)
	if err != nil {
		return t, err
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		child, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || child == pid {
			continue
		}
		if ppid, n, err := procStat(child, false); err == nil && ppid == pid {
			ticks += n // a process that ended since the listing is left out
		}
	}
	t.pg = time.Duration(ticks) * time.Second / clockTicks
	return t, nil
}

// procStat returns a process's parent and its CPU time in clock ticks,
// with that of its ended children when children is set.
func procStat(pid int, children bool) (ppid int, ticks int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name, in parentheses, may hold spaces: fields follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3, the state
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	ppid, err = strconv.Atoi(string(f[1]))
	last := 12 // utime and stime are fields 14 and 15 (f[11], f[12]); cutime and cstime 16 and 17
	if children {
		last = 14
	}
	for _, s := range f[11 : last+1] {
		n, perr := strconv.ParseInt(string(s), 10, 64)
		if perr != nil {
			return 0, 0, fmt.Errorf("/proc/%d/stat: %w", pid, perr)
		}
		ticks += n
	}
	return ppid, ticks, err
}

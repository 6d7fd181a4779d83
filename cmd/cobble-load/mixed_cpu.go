package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// machineCPU is what the machine's CPUs did over a phase of the mixed
// load, and whose work it was: on a machine shared with other work, the
// share that was not the run's says how much of the machine the run got.
type machineCPU struct {
	wall       time.Duration // the phase's length
	cpus       int
	busy       time.Duration // all CPUs' time not idle (/proc/stat)
	run        cpuTimes      // PostgreSQL's and this process's
	reconciled time.Duration // the reconciliation's process
	measured   bool          // false when /proc could not be read
}

// cpuMark is a reading at the start of a phase.
type cpuMark struct {
	at   time.Time
	busy time.Duration
	cpus int
	run  cpuTimes
	ok   bool
}

// markCPU reads the machine's and the run's CPU time so far; pgPID is the
// throwaway cluster's postmaster (0 for none: PostgreSQL's time unknown).
func markCPU(pgPID int) cpuMark {
	m := cpuMark{at: time.Now()}
	var err error
	if m.busy, m.cpus, err = machineBusy(); err != nil || pgPID == 0 {
		return m
	}
	m.run, err = readCPUTimes(pgPID)
	m.ok = err == nil
	return m
}

// since returns what the CPUs did since m.
func (m cpuMark) since(pgPID int, reconciled time.Duration) machineCPU {
	now := markCPU(pgPID)
	if !m.ok || !now.ok {
		return machineCPU{}
	}
	return machineCPU{wall: now.at.Sub(m.at), cpus: now.cpus, busy: now.busy - m.busy,
		run: now.run.sub(m.run), reconciled: reconciled, measured: true}
}

// machineBusy returns the time all CPUs spent not idle since boot, and
// their number, from /proc/stat.
func machineBusy() (time.Duration, int, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	var busy int64
	cpus := 0
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		switch {
		case len(f) > 8 && string(f[0]) == "cpu":
			// user nice system idle iowait irq softirq steal: all but idle and iowait.
			for i, s := range f[1:9] {
				n, err := strconv.ParseInt(string(s), 10, 64)
				if err != nil {
					return 0, 0, fmt.Errorf("/proc/stat: %w", err)
				}
				if i != 3 && i != 4 {
					busy += n
				}
			}
		case len(f) > 0 && bytes.HasPrefix(f[0], []byte("cpu")):
			cpus++
		}
	}
	return time.Duration(busy) * time.Second / clockTicks, cpus, nil
}

// cpuLine records a phase's CPU use.
func (r *report) cpuLine(phase string, c machineCPU) {
	if !c.measured || c.wall <= 0 {
		return
	}
	s := func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
	others := max(c.busy-c.run.pg-c.run.self-c.reconciled, 0)
	r.printf("CPU over %s (%s on %d CPUs): busy %s (%.0f %%): PostgreSQL %s, this process (Cobble and the load) %s, "+
		"the reconciliation %s, other work on the machine %s\n", phase, s(c.wall), c.cpus, s(c.busy),
		100*c.busy.Seconds()/(c.wall.Seconds()*float64(c.cpus)), s(c.run.pg), s(c.run.self), s(c.reconciled), s(others))
}

// cores is the run's own CPU time over the phase (PostgreSQL's and this
// process's, not other work on the machine) in CPUs kept busy.
func (c machineCPU) cores() float64 {
	return (c.run.pg + c.run.self + c.reconciled).Seconds() / c.wall.Seconds()
}

// demandLine says how many CPUs the RPCs and the visitors took alone, and
// whether the two together fit the machine: when they do not, everything
// at once queues for the CPUs whatever the code's latency.
func (r *report) demandLine(rpcs, pages machineCPU) {
	if !rpcs.measured || !pages.measured || rpcs.wall <= 0 || pages.wall <= 0 {
		return
	}
	sum := rpcs.cores() + pages.cores()
	verdict := "fit"
	if sum > float64(rpcs.cpus) {
		verdict = "do NOT fit: at once, requests queue for the CPUs"
	}
	r.printf("CPU asked for: the RPCs alone %.2f CPUs, the visitors alone %.2f, together %.2f of the machine's %d "+
		"(before the reconciliation and the rounds): they %s\n", rpcs.cores(), pages.cores(), sum, rpcs.cpus, verdict)
}

package main

import (
	"strings"
	"testing"
	"time"
)

// The demand line adds what the RPCs and the visitors took alone, in
// CPUs, and says whether the two fit the machine.
func TestDemandLine(t *testing.T) {
	phase := func(pg, self time.Duration) machineCPU {
		return machineCPU{wall: 10 * time.Second, cpus: 2, run: cpuTimes{pg: pg, self: self}, measured: true}
	}
	for _, c := range []struct {
		rpcs, pages machineCPU
		want        string
	}{
		{phase(7*time.Second, 6*time.Second), phase(15*time.Second, 2*time.Second),
			"the RPCs alone 1.30 CPUs, the visitors alone 1.70, together 3.00 of the machine's 2 " +
				"(before the reconciliation and the rounds): they do NOT fit"},
		{phase(3*time.Second, 2*time.Second), phase(4*time.Second, 1*time.Second),
			"together 1.00 of the machine's 2 (before the reconciliation and the rounds): they fit"},
		{machineCPU{}, phase(time.Second, 0), ""},
	} {
		var b strings.Builder
		(&report{w: &b}).demandLine(c.rpcs, c.pages)
		if c.want == "" && b.Len() > 0 || !strings.Contains(b.String(), c.want) {
			t.Errorf("got %q, want it to hold %q", b.String(), c.want)
		}
	}
}

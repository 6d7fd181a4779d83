package main

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// A child's peak RSS is its own: the kernel reports this process's
// resident set as the maximum of a child started from it, which
// watchPeakRSS does not.
func TestWatchPeakRSSIsTheChilds(t *testing.T) {
	big := make([]byte, 100<<20)
	for i := range big {
		big[i] = 1
	}
	cmd := exec.Command("sleep", "0.3")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	stop := make(chan struct{})
	peak := make(chan int64)
	go func() { peak <- watchPeakRSS(cmd.Process.Pid, stop) }()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	got := <-peak
	runtime.KeepAlive(big)
	if got <= 0 || got > 20<<20 {
		t.Errorf("sleep's peak RSS: %d bytes, want above 0 and below 20 MiB", got)
	}
	if ru := cmd.ProcessState.SysUsage().(*syscall.Rusage); ru.Maxrss<<10 < 90<<20 {
		t.Logf("getrusage gave sleep %d KiB: the kernel no longer counts the parent's memory", ru.Maxrss)
	}
}

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// The budgets of a reconciliation of a 1,000,000-host export.
const (
	exportTimeBudget = 2 * time.Minute
	exportRSSBudget  = 64_000_000 // 64 MB of 10⁶ bytes: 61.0 MiB
)

// cobbleBinary returns --cobble, or builds cobble from this tree into dir.
func cobbleBinary(ctx context.Context, cfg config, dir string, logw io.Writer) (string, error) {
	if cfg.history.cobbleBin != "" {
		return cfg.history.cobbleBin, nil
	}
	bin := filepath.Join(dir, "cobble")
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/cobble")
	build.Stdout, build.Stderr = logw, logw
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("export: building cobble (run from the module's root, or give --cobble): %w", err)
	}
	return bin, nil
}

// exportResult is what one reconciliation of an export cost.
type exportResult struct {
	took time.Duration
	rss  int64         // peak, in bytes
	cpu  time.Duration // the process's CPU time
}

// reconcileExport writes, in dir, a credit export of
// cfg.history.exportHosts hosts for the first history project (writeExportFile)
// and reconciles it with bin (runReconcile).
func reconcileExport(ctx context.Context, cfg config, bin, dir, dbURL string, hs *history, out *report,
	logw io.Writer) (exportResult, error) {
	file, err := writeExportFile(cfg, dir, hs, out)
	if err != nil {
		return exportResult{}, err
	}
	return runReconcile(ctx, bin, file, dbURL, hs, out, logw)
}

// writeExportFile writes, in dir, a credit export of
// cfg.history.exportHosts hosts for the first history project, with every
// history host in it under Cobble's account and more credit than in any
// earlier export, and returns its file.
func writeExportFile(cfg config, dir string, hs *history, out *report) (string, error) {
	file := filepath.Join(dir, "host.gz")
	began := time.Now()
	if err := writeExport(file, exportRecords(cfg.history.exportHosts, hs.hosts, time.Now())); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	st, err := os.Stat(file)
	if err != nil {
		return "", err
	}
	out.printf("export: %d hosts (%d of them Cobble's) written to host.gz, %.1f MB, in %v\n",
		cfg.history.exportHosts, min(hs.hosts, cfg.history.exportHosts/20), float64(st.Size())/1e6, since(began))
	return file, nil
}

// runReconcile reconciles the export file with bin (`cobble reconcile
// --file`) in a process of its own, whose time and peak RSS it reports.
func runReconcile(ctx context.Context, bin, file, dbURL string, hs *history, out *report,
	logw io.Writer) (exportResult, error) {
	cmd := exec.CommandContext(ctx, bin, "reconcile", "--project", hs.projects[0].URL, "--file", file)
	res, said, runErr := runMeasured(cmd, dbURL, logw)
	verdict := "within"
	if res.took >= exportTimeBudget || res.rss >= exportRSSBudget {
		verdict = "OVER"
	}
	out.printf("export reconciliation (cobble reconcile --file, its own process): %v, peak RSS (VmHWM) %.1f MiB "+
		"(budget < %v, < 64 MB = 61.0 MiB) %s\n", round(res.took), float64(res.rss)/(1<<20), exportTimeBudget, verdict)
	out.printf("  cobble said: %s\n", said)
	if runErr != nil {
		return res, fmt.Errorf("export reconciliation: %w", runErr)
	}
	return res, nil
}

// runMeasured runs cmd, a cobble command on the database at dbURL, as a
// process of its own (standard error to logw), and returns its wall time,
// peak RSS (watchPeakRSS) and CPU time, and what it printed.
func runMeasured(cmd *exec.Cmd, dbURL string, logw io.Writer) (exportResult, string, error) {
	var stdout bytes.Buffer
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
	cmd.Stdout, cmd.Stderr = &stdout, logw
	began := time.Now()
	var res exportResult
	err := cmd.Start()
	if err == nil {
		stop := make(chan struct{})
		peak := make(chan int64)
		go func() { peak <- watchPeakRSS(cmd.Process.Pid, stop) }()
		err = cmd.Wait()
		close(stop)
		res.rss = <-peak
		if st := cmd.ProcessState; st != nil {
			res.cpu = st.UserTime() + st.SystemTime()
		}
	}
	res.took = time.Since(began)
	return res, strings.TrimSpace(stdout.String()), err
}

// watchPeakRSS samples the high-water mark of pid's resident set (VmHWM)
// every 20 ms until stop is closed, and returns the last value read. The
// child's getrusage maximum would not do: a child that Go starts shares
// this process's memory until it executes its program, and the kernel
// counts this process's resident set as the child's maximum.
func watchPeakRSS(pid int, stop <-chan struct{}) int64 {
	var peak int64
	file := fmt.Sprintf("/proc/%d/status", pid)
	pause := time.NewTimer(rssSampleEvery)
	defer pause.Stop()
	for {
		if b, err := os.ReadFile(file); err == nil {
			for line := range strings.Lines(string(b)) {
				if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					var n int64
					if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), &n); err == nil {
						peak = max(peak, n<<10)
					}
				}
			}
		}
		select {
		case <-stop:
			return peak
		case <-pause.C:
			pause.Reset(rssSampleEvery)
		}
	}
}

// rssSampleEvery is how often watchPeakRSS reads the high-water mark.
const rssSampleEvery = 20 * time.Millisecond

// exportEpoch is when the history hosts' export credit starts to grow.
var exportEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// exportRecords yields n export records with ids from 1: the id 20·i+7
// is the i-th history host (of hosts) under Cobble's account, with a
// credit that grows by one every ten seconds after exportEpoch, so that
// each export of a later moment grants some; one other record in 5,000 is
// also under Cobble's account (an orphan); the others belong to other
// users.
func exportRecords(n, hosts int, at time.Time) iter.Seq[exporttest.Host] {
	grown := math.Floor(at.Sub(exportEpoch).Seconds() / 10)
	return func(yield func(exporttest.Host) bool) {
		for id := int64(1); id <= int64(n); id++ {
			h := exporttest.Host{ID: id, UserID: 1 + id%250_000, TotalCredit: float64(id%100_000) + 0.5,
				ExpavgCredit: 12.25, ExpavgTime: 1.7e9, HostCPID: fmt.Sprintf("%032x", id), PModel: "CPU",
				OSName: "Linux", NCPUs: 8, PFPOps: 4e9, CreateTime: 1_600_000_000, RPCTime: 1_700_000_000}
			switch {
			case id%20 == 7 && (id-7)/20 < int64(hosts):
				h.UserID, h.TotalCredit = historyAccount, 500_000+float64(id%1000)+grown
			case id%5000 == 1:
				h.UserID = historyAccount
			}
			if !yield(h) {
				return
			}
		}
	}
}

// writeExport writes the records gzipped to file.
func writeExport(file string, hosts iter.Seq[exporttest.Host]) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	zw, _ := gzip.NewWriterLevel(bw, gzip.BestSpeed)
	err = exporttest.WriteHostExport(zw, hosts, exporttest.Options{})
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

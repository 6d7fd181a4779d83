package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc"
)

// reconcile runs reconciliation now: of one project, or of every project
// with a stats URL; with --file, from a local host export.
func (env environment) reconcile(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("reconcile", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	projectURL := fs.String("project", "", "the master `URL` of the project to reconcile (default: every project)")
	file := fs.String("file", "", "a local host export (`host.gz`) to read instead of downloading; needs --project")
	var ef exportFlags
	if err := ef.register(fs, env); err != nil {
		return err
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var opts reconcile.Options
	if err := ef.apply(&opts); err != nil {
		return err
	}
	if *file != "" && *projectURL == "" {
		return fmt.Errorf("%w: --file needs --project", errUsage)
	}
	tuneBatchGC()
	pool, err := env.openPool(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := accounting.NewStore(pool, accounting.Options{})
	rec := reconcile.New(store, pool, opts)
	projects, err := store.Catalog.Projects(ctx)
	if *projectURL != "" {
		var p accounting.Project
		p, err = store.Catalog.ProjectByURL(ctx, *projectURL)
		projects = []accounting.Project{p}
		if errors.Is(err, accounting.ErrNotFound) {
			return fmt.Errorf("no project with the URL %s in the catalog", *projectURL)
		}
	}
	if err != nil {
		return err
	}
	failed := 0
	for _, p := range projects {
		if !p.ReconciledFrom(*file) {
			continue
		}
		var src boinc.ExportSource
		if *file != "" {
			src = boinc.FileSource{HostFile: *file}
		}
		run, err := rec.RunProject(ctx, p, src, *file)
		env.printRun(p, run, err)
		if err != nil {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d reconciliation runs failed", failed)
	}
	// The credit fairness measure follows the runs (docs/CREDIT.md).
	began := time.Now()
	if err := rec.Fairness.Measure(ctx); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "credit fairness measured in %v\n", time.Since(began).Round(time.Millisecond))
	return nil
}

// tuneBatchGC undoes, for a command that runs alone, the heap growth
// tuneGC allows a server: a reconciliation's live heap grows with the
// hosts it matches, and five times it would pass 64 MB on a large export.
// The soft limit then holds the heap below the twice-live-size GOGC
// allows: with 50,000 matched hosts of a 1,000,000-host export, about
// 20 MiB live at the end of the scan, the peak RSS was 61 MiB at a limit
// of 48 MiB and 47–50 MiB at 28–36 MiB, for the same time. GOGC and
// GOMEMLIMIT, when set, decide instead.
func tuneBatchGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(32 << 20)
	}
}

func (env environment) printRun(p accounting.Project, run reconcile.Run, err error) {
	if err != nil && run.ID == 0 {
		fmt.Fprintf(env.stdout, "%s: %v\n", p.Name, err)
		return
	}
	fmt.Fprintf(env.stdout, "%s: %s in %v; %d hosts scanned, %d matched, %d orphans, %d missing",
		p.Name, run.Status, run.Duration(time.Now()).Round(time.Millisecond), run.HostsScanned, run.HostsMatched, run.Orphans, run.Missing)
	if run.Error != "" {
		fmt.Fprintf(env.stdout, "; error: %s", oneLine(run.Error))
	}
	fmt.Fprintln(env.stdout)
}

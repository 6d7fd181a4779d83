package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/web"
)

// ledgerRebuild recomputes the totals derived from the ledger and prints
// every difference it found (and, without --dry-run, corrected).
func (env environment) ledgerRebuild(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ledger rebuild", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	dryRun := fs.Bool("dry-run", false, "report differences without correcting them")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	store, done, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	rep, err := store.Ledger.RebuildTotals(ctx, *dryRun)
	if err != nil {
		return err
	}
	env.printDifferences(rep)
	if !*dryRun {
		if err := store.Ledger.RebuildRollups(ctx, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "rebuilt the rollups from the ledger\n")
	}
	verb := "corrected"
	if *dryRun {
		verb = "found"
	}
	fmt.Fprintf(env.stdout, "checked %d host-project totals; %s %d differences\n", rep.Pairs, verb, len(rep.Differences))
	return nil
}

// ledgerCheck compares every total derived from the ledger with the ledger
// and changes nothing, not even the schema: a database that is not at this
// binary's schema is refused. Differences are printed and fail the command.
func (env environment) ledgerCheck(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ledger check", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dbURL, err := env.databaseURL()
	if err != nil {
		return err
	}
	pool, err := openToServe(ctx, dbURL, false, 0)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := accounting.NewStore(pool, accounting.Options{})
	rep, err := store.Ledger.RebuildTotals(ctx, true)
	if err != nil {
		return err
	}
	env.printDifferences(rep)
	n, r := len(rep.Differences), len(rep.Rollups)
	fmt.Fprintf(env.stdout, "checked %d host-project totals; %d %s\n", rep.Pairs, n, plural(n, "difference", "differences"))
	fmt.Fprintf(env.stdout, "checked the rollups; %d %s\n", r, plural(r, "difference", "differences"))
	if err := env.printJobHealth(ctx, store); err != nil {
		return err
	}
	switch {
	case n > 0:
		return fmt.Errorf("%d %s from the ledger; 'cobble ledger rebuild' sets them to the ledger's sums",
			n, plural(n, "total differs", "totals differ"))
	case r > 0:
		return fmt.Errorf("%d rollup %s from the ledger; 'cobble ledger rebuild' rebuilds them",
			r, plural(r, "value differs", "values differ"))
	}
	return nil
}

// printJobHealth prints the job queue's stuck jobs (running past their
// kind's timeout, or waiting too long) and the jobs that failed lately, if
// there are any: a failed rollup round may explain a
// rollup behind the ledger. They do not fail the check, which is about the
// ledger.
func (env environment) printJobHealth(ctx context.Context, store *accounting.Store) error {
	// None of the timeouts depends on an option of cobble serve.
	timeouts := web.JobTimeouts(web.Config{})
	h, err := store.Jobs.JobHealth(ctx, time.Now(), timeouts)
	if err != nil || h.OK() {
		return err
	}
	for _, j := range h.Stuck {
		since := "waiting since " + j.At.UTC().Format(time.RFC3339)
		if j.State == "running" {
			timeout, ok := timeouts[j.Kind]
			if !ok {
				timeout = accounting.JobStuckAfter
			}
			since = fmt.Sprintf("running since %s, past its timeout of %v", j.At.UTC().Format(time.RFC3339), timeout)
		}
		fmt.Fprintf(env.stdout, "stuck job %d %s (queue %s, %s, attempt %d): %s\n",
			j.ID, j.Kind, j.Queue, j.State, j.Attempt, since)
	}
	for _, j := range h.Failed {
		fmt.Fprintf(env.stdout, "failed job %d %s (queue %s, %s after %d %s) at %s: %s\n",
			j.ID, j.Kind, j.Queue, j.State, j.Attempt, plural(j.Attempt, "attempt", "attempts"),
			j.At.UTC().Format(time.RFC3339), j.Error)
	}
	s, f := len(h.Stuck), len(h.Failed)
	fmt.Fprintf(env.stdout, "checked the job queue; %d stuck %s, %d failed in the last %v\n",
		s, plural(s, "job", "jobs"), f, accounting.JobFailedWithin)
	return nil
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// printDifferences prints one line per total that differs from the ledger.
func (env environment) printDifferences(rep accounting.RebuildReport) {
	for _, d := range rep.Differences {
		fmt.Fprintf(env.stdout, "host %d project %d %s: stored %.6f, ledger %.6f\n",
			d.HostID, d.ProjectID, d.Field, d.Stored, d.Ledger)
	}
	for _, d := range rep.Rollups {
		where := fmt.Sprintf("project %d", d.ProjectID)
		switch {
		case d.TeamID != 0:
			where = fmt.Sprintf("team %d", d.TeamID)
		case d.UserID != 0:
			where = fmt.Sprintf("volunteer %d project %d", d.UserID, d.ProjectID)
		case d.ProjectID == 0:
			where = "all projects"
		}
		day := d.Day.Format(time.DateOnly)
		if d.Day.IsZero() {
			day = "all days"
		}
		fmt.Fprintf(env.stdout, "rollup %s %s %s: rollup %d, ledger %d\n", where, day, d.Column, d.Rollup, d.Ledger)
	}
	if rep.DefaultLedger+rep.DefaultConfirmed > 0 {
		fmt.Fprintf(env.stdout, "%d ledger and %d confirmed rows are in DEFAULT partitions "+
			"(months without a partition; cobble serve moves them into new ones at start-up and every minute)\n",
			rep.DefaultLedger, rep.DefaultConfirmed)
	}
}

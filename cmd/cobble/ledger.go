package main

import (
	"context"
	"flag"
	"fmt"
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
	rep, err := store.RebuildTotals(ctx, *dryRun)
	if err != nil {
		return err
	}
	for _, d := range rep.Differences {
		fmt.Fprintf(env.stdout, "host %d project %d %s: stored %.6f, ledger %.6f\n",
			d.HostID, d.ProjectID, d.Field, d.Stored, d.Ledger)
	}
	verb := "corrected"
	if *dryRun {
		verb = "found"
	}
	fmt.Fprintf(env.stdout, "checked %d host-project totals; %s %d differences\n", rep.Pairs, verb, len(rep.Differences))
	return nil
}

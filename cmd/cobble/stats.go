package main

import (
	"context"
	"flag"
	"fmt"
	"time"
)

// statsExport builds the statistics export now and makes it the one
// every instance serves under /stats/ (docs/STATISTICS.md), as the daily
// round does.
func (env environment) statsExport(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("stats export", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	store, done, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer done()
	start := time.Now()
	ex, err := store.Stats.Export(ctx, start)
	if err != nil {
		return err
	}
	through := "no settled day yet"
	if !ex.Through.IsZero() {
		through = "credit through " + ex.Through.Format(time.DateOnly)
	}
	fmt.Fprintf(env.stdout, "built the statistics export: %d %s, %d %s, %d %s, %d bytes (%s) in %s\n",
		ex.Users, plural(int(ex.Users), "volunteer", "volunteers"), ex.Teams, plural(int(ex.Teams), "team", "teams"),
		ex.Hosts, plural(int(ex.Hosts), "computer", "computers"), ex.Bytes, through, time.Since(start).Round(time.Millisecond))
	return nil
}

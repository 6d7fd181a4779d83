// Command cobble-load measures Cobble's account-manager RPC under load and
// checks that the credit ledger holds exactly what the load sent.
//
//	go run ./cmd/cobble-load [flags]
//
// It prepares a database (--db, else DATABASE_URL, else a throwaway private
// PostgreSQL cluster made from the machine's server binaries), starts Cobble
// in this process (or targets a running Cobble with --url), and creates a
// population of volunteers and hosts directly in SQL. Each host gets one
// baseline RPC; then --concurrency workers send RPCs shaped like the real
// BOINC client's for --duration, each host's counters growing a little with
// every RPC. The tool reports throughput and latency, checks that the ledger
// credited exactly the counters' growth, and finally measures the PostgreSQL
// ceiling: the statements of real steady-state RPCs, recorded as Cobble sent
// them, replayed directly with pgx, without HTTP or Cobble.
//
// With --history it builds a year of ledger first and measures the pages
// and an export's reconciliation on it; with --mixed too, it measures the
// RPCs and page visitors alone and then everything at once, with the
// reconciliation, the rollup and credit measure, and password resets whose
// mail goes to an SMTP server on loopback (mixed*.go).
//
// It talks to loopback addresses only, every phase is bounded in time, and
// it stops by itself. The exit status is 0 when the ledger check passes, 1
// when anything fails, and 2 for a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

func main() {
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "cobble-load:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "cobble-load:", err)
		os.Exit(1)
	}
}

// run is the whole tool: it parses args, runs every phase, and prints the
// record of the run on stdout (progress and server logs go to stderr).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, stderr, os.Getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.deadline())
	defer cancel()
	out := &report{w: stdout}
	out.header(cfg, args)

	db, err := openDatabase(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer db.close(stderr)
	if err := out.database(ctx, db); err != nil {
		return err
	}
	tgt, err := startTarget(ctx, cfg, db, stderr)
	if err != nil {
		return err
	}
	defer tgt.close(stderr)
	out.printf("server: %s\n", tgt.what)
	return measure(ctx, cfg, db, tgt, out, stderr)
}

// measure creates the population, runs the load, checks the ledger and
// measures the PostgreSQL ceiling.
func measure(ctx context.Context, cfg config, db *database, tgt *target, out *report, stderr io.Writer) error {
	began := time.Now()
	pop, err := createPopulation(ctx, db.pool, tgt.store, cfg)
	if err != nil {
		return err
	}
	out.population(cfg, pop, time.Since(began))
	if pop.addedProjects && !tgt.inProcess {
		// A running Cobble reads its catalog at most catalogWait ago.
		fmt.Fprintf(stderr, "cobble-load: waiting %v for the server to see the new projects\n", catalogWait)
		if err := sleep(ctx, catalogWait); err != nil {
			return err
		}
	}
	client := newRPCClient(tgt.urls, cfg.concurrency, cfg.timeout)
	defer client.close()
	if err := baseline(ctx, cfg, client, db, pop, out); err != nil {
		return err
	}
	if cfg.history.rows > 0 {
		return measureHistory(ctx, cfg, db, tgt, client, pop, out, stderr)
	}
	cost, err := newCosts(ctx, cfg, db)
	if err != nil {
		return err
	}
	load, err := runLoad(ctx, cfg, client, pop, cost)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stopped before the end of the load: %w", err)
	}
	out.load(cfg, load)
	if err := out.costs(ctx, cost, load.ok); err != nil {
		return err
	}
	checkErr := settleAndCheck(ctx, cfg, client, db, pop, out)
	if cfg.ceiling && ctx.Err() == nil {
		if err := ceiling(ctx, cfg, db, tgt, client, pop, load, out); err != nil {
			return errors.Join(checkErr, err)
		}
	}
	return checkErr
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// tuneGC sets the garbage collector as cobble does (see tuneGC there), so
// that the in-process server runs as 'cobble serve' would.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

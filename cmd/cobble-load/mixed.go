package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting/reconcile"
)

// mixedConfig is what --mixed and the flags beside it ask for: on the
// history, the RPC load, the page visitors, an export's reconciliation,
// the rollup and the credit measure, and password resets, all at once,
// against the RPCs and the pages alone in the same run.
type mixedConfig struct {
	on       bool
	visitors int
	think    time.Duration
}

// mixedRate is --rate's default with --mixed: about 20 times all of
// BOINC's account-manager RPCs today.
const mixedRate = 500

// register adds the mixed load's flags to fs.
func (m *mixedConfig) register(fs *flag.FlagSet) {
	fs.BoolVar(&m.on, "mixed", false, "with --history: measure the RPCs (at --rate, default 500 a second) and "+
		"the page visitors alone, then at once with the export's reconciliation, the rollup and the credit "+
		"measure, and a password reset every second delivered to an SMTP server on loopback")
	fs.IntVar(&m.visitors, "visitors", 50, "with --mixed: page visitors, each requesting the history's pages in turn")
	fs.DurationVar(&m.think, "think", time.Second, "with --mixed: each visitor's pause between two pages")
}

// validate adds the mixed load's problems to check.
func (m *mixedConfig) validate(h *historyConfig, check func(bool, string)) {
	check(!m.on || h.rows > 0, "--mixed needs --history")
	check(!m.on || h.rounds == 1, "--mixed measures once: no --rounds")
	check(m.visitors >= 1 && m.visitors <= 1000, "--visitors must be between 1 and 1000")
	check(m.think >= 0 && m.think <= time.Minute, "--think must be between 0 and 1m")
}

// mixedResult is what the phase with everything at once measured.
type mixedResult struct {
	rpc      stats
	pages    *visitors
	resets   []time.Duration // each reset's time from the request to its message at the SMTP server
	missing  int             // accepted resets whose message did not arrive
	refused  map[string]int  // resets not accepted, by status or error
	export   exportResult
	exportAt [2]time.Duration // when the reconciliation began and ended, after the phase began
	measure  time.Duration    // the credit measure's, at the start
	win      window
	began    time.Time
}

// measureMixed measures the RPCs and the page visitors alone, then
// everything at once, and checks the ledger.
func measureMixed(ctx context.Context, cfg config, db *database, tgt *target, client *rpcClient, pop *population,
	hs *history, rl *relay, out *report, logw io.Writer) error {
	dir, err := os.MkdirTemp("", "cobble-load-export-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var bin, file string
	if cfg.history.exportHosts > 0 {
		if bin, err = cobbleBinary(ctx, cfg, dir, logw); err != nil {
			return err
		}
		if file, err = writeExportFile(cfg, dir, hs, out); err != nil {
			return err
		}
	}
	v, err := openVisit(ctx, db.pool, tgt.store, tgt.urls[0], hs, pop.run, out)
	if err != nil {
		return err
	}
	defer v.close()

	pgPID := 0
	if db.cluster != nil {
		pgPID, _ = db.cluster.PID()
	}
	rpcAlone, pagesAlone, err := measureAlone(ctx, cfg, db, tgt.pool, client, pop, v, pgPID, out)
	if err != nil {
		return err
	}

	out.printf("\nat once: the RPCs, the page visitors, the export's reconciliation, the rollup and the credit "+
		"measure, a password reset every %v\n", resetEvery)
	mark, pm := markCPU(pgPID), markPool(tgt.pool)
	m, err := runMixed(ctx, cfg, db, tgt, client, pop, hs, v, rl, bin, file, out, logw)
	if err != nil {
		return err
	}
	cpu := mark.since(pgPID, m.export.cpu)
	out.load(cfg, m.rpc)
	const atOnce = "everything at once (until the reconciliation and the resets' mail ended)"
	out.cpuLine(atOnce, cpu)
	out.jobsLine(ctx, db.pool, atOnce, mark.at, time.Now())
	out.poolLine(atOnce, pm)
	out.mixed(cfg, historyPages(hs), rpcAlone, pagesAlone, m)
	return settleAndCheck(ctx, cfg, client, db, pop, out)
}

// measureAlone measures the RPCs alone, then the page visitors alone,
// and what the machine's CPUs did meanwhile.
func measureAlone(ctx context.Context, cfg config, db *database, server *pgxpool.Pool, client *rpcClient,
	pop *population, v *visit, pgPID int, out *report) (stats, *visitors, error) {
	out.printf("\nalone: the RPCs at %g a second\n", cfg.rate)
	mark, pm := markCPU(pgPID), markPool(server)
	rpcs, err := runLoadPlain(ctx, cfg, db, client, pop)
	if err != nil {
		return rpcs, nil, err
	}
	out.load(cfg, rpcs)
	rpcCPU := mark.since(pgPID, 0)
	out.cpuLine("the RPCs alone", rpcCPU)
	out.jobsLine(ctx, db.pool, "the RPCs alone", mark.at, time.Now())
	out.poolLine("the RPCs alone", pm)
	out.printf("alone: %d page visitors, %v between two pages\n", cfg.history.mixed.visitors, cfg.history.mixed.think)
	pages := newVisitors(cfg.history.mixed.visitors, cfg.history.mixed.think, v, historyPages(v.hs))
	mark, pm = markCPU(pgPID), markPool(server)
	pages.run(ctx, newWindow(cfg.warmup, cfg.duration))
	pagesCPU := mark.since(pgPID, 0)
	out.cpuLine("the visitors alone", pagesCPU)
	out.jobsLine(ctx, db.pool, "the visitors alone", mark.at, time.Now())
	out.poolLine("the visitors alone", pm)
	out.demandLine(rpcCPU, pagesCPU)
	return rpcs, pages, ctx.Err()
}

// runMixed runs everything at once: the RPC load and the visitors for the
// warm-up and the measured duration, password resets and the rollup and
// measure rounds as long, and the export's reconciliation from the start
// of the measured part to its end, however long that takes.
func runMixed(ctx context.Context, cfg config, db *database, tgt *target, client *rpcClient, pop *population,
	hs *history, v *visit, rl *relay, bin, file string, out *report, logw io.Writer) (mixedResult, error) {
	m := mixedResult{pages: newVisitors(cfg.history.mixed.visitors, cfg.history.mixed.think, v, historyPages(hs)),
		began: time.Now()}
	m.win = newWindow(cfg.warmup, cfg.duration)
	resets := newResetter(tgt.urls[0], hs)
	var wg sync.WaitGroup
	var rpcErr, exportErr, measureErr error
	wg.Go(func() { m.rpc, rpcErr = runLoadPlain(ctx, cfg, db, client, pop) })
	wg.Go(func() { m.pages.run(ctx, m.win) })
	wg.Go(func() { resets.run(ctx, m.win.stop) })
	wg.Go(func() { m.measure, measureErr = measureCredit(ctx, tgt) })
	if file != "" {
		wg.Go(func() {
			if exportErr = sleep(ctx, time.Until(m.win.measureFrom)); exportErr != nil {
				return
			}
			m.exportAt[0] = time.Since(m.began)
			m.export, exportErr = runReconcile(ctx, bin, file, db.url, hs, out, logw)
			m.exportAt[1] = time.Since(m.began)
		})
	}
	wg.Wait()
	m.resets, m.missing = resets.latencies(ctx, rl)
	resets.mu.Lock()
	m.refused = maps.Clone(resets.refused)
	resets.mu.Unlock()
	return m, errors.Join(rpcErr, exportErr, measureErr)
}

// measureCredit computes the credit measure at the start of the phase, as a
// server does when it starts, and returns its time. The measure after the
// reconciliation is the reconciliation's own (cobble reconcile measures
// after its runs, in its process); the server's own rounds, the rollup
// every minute among them, run in every phase and show in the phase's
// jobs line.
func measureCredit(ctx context.Context, tgt *target) (time.Duration, error) {
	rec := reconcile.New(tgt.store, tgt.pool, reconcile.Options{})
	defer rec.Close()
	began := time.Now()
	if err := rec.Fairness.Measure(ctx); err != nil {
		return 0, fmt.Errorf("credit measure: %w", err)
	}
	return time.Since(began), nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// measureHistory runs the load on the database as it is, builds the
// history, runs the same load again, checks the ledger, then measures the
// pages and reconciles an export on the history.
func measureHistory(ctx context.Context, cfg config, db *database, tgt *target, client *rpcClient,
	pop *population, out *report, logw io.Writer) error {
	out.printf("RPC load before the history:\n")
	before, err := runLoad(ctx, cfg, client, pop)
	if err != nil {
		return err
	}
	out.load(cfg, before)
	progress := func(format string, args ...any) { fmt.Fprintf(logw, "cobble-load: "+format+"\n", args...) }
	began := time.Now()
	hs, err := buildHistory(ctx, db.pool, tgt.store, cfg, pop.run, progress)
	if err != nil {
		return err
	}
	built := time.Since(began)
	began = time.Now()
	if _, err := db.pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		return fmt.Errorf("history: vacuum: %w", err)
	}
	out.printf("history: %d volunteers, %d hosts × %d projects × %d days: %d ledger rows, %d confirmed rows "+
		"(built in %v, VACUUM ANALYZE %v)\n", hs.volunteers, hs.hosts, historyProjects, historyDays,
		hs.ledgerRows, hs.confirmedRows, round(built), since(began))
	if err := out.sizes(ctx, db); err != nil {
		return err
	}
	out.printf("RPC load with the history:\n")
	after, err := runLoad(ctx, cfg, client, pop)
	if err != nil {
		return err
	}
	out.load(cfg, after)
	if b := before.perSecond(); b > 0 {
		verdict := "within"
		if after.perSecond() < 0.9*b {
			verdict = "BELOW"
		}
		out.printf("RPC throughput with the history ÷ before it: %.2f (target ≥ 0.9) %s\n", after.perSecond()/b, verdict)
	}
	if err := settleAndCheck(ctx, cfg, client, db, pop, out); err != nil {
		return err
	}
	if cfg.history.pages {
		if err := measurePages(ctx, db.pool, tgt.urls[0], hs, pop.run, cfg.history.pageRequests, out); err != nil {
			return err
		}
	}
	if cfg.history.exportHosts > 0 {
		return reconcileExport(ctx, cfg, db.url, hs, out, logw)
	}
	return nil
}

// sizes records the database's size and its largest tables'.
func (r *report) sizes(ctx context.Context, db *database) error {
	var total, ledger, confirmed string
	// A partitioned table's size is its partitions'.
	err := db.pool.QueryRow(ctx, `SELECT pg_size_pretty(pg_database_size(current_database())),
		pg_size_pretty((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('ledger'))),
		pg_size_pretty((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('confirmed_ledger')))`).
		Scan(&total, &ledger, &confirmed)
	if err != nil {
		return fmt.Errorf("sizes: %w", err)
	}
	r.printf("database size: %s (ledger with its indexes %s, confirmed ledger %s)\n", total, ledger, confirmed)
	return nil
}

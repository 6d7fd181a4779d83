package main

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ceiling measures what PostgreSQL alone does with the database work of the
// same RPCs, at the same concurrency for the same time: per RPC one
// transaction that checks the AM token, locks the host, reads what an RPC
// reads, updates the host and upserts five host_projects and five ledger
// rows, in the two round trips of a steady-state RPC (accountTx), without
// HTTP, XML or Cobble's decisions. The counters keep growing as in the
// load, so the ledger check must pass afterwards too.
func ceiling(ctx context.Context, cfg config, db *database, pop *population, cobble stats, out *report) error {
	var projectIDs [projectsPerHost]int64
	for i, p := range pop.projects {
		projectIDs[i] = p.ID
	}
	ws := newWorkers(pop.hosts, cfg.concurrency, cfg.seed+1, expectedRPCs(cfg))
	win := newWindow(cfg.warmup, cfg.duration)
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.transactions(ctx, db.pool, projectIDs, win) })
	}
	wg.Wait()
	s := mergeStats(ws, time.Since(win.measureFrom))
	out.ceiling(len(ws), cobble, s)
	return checkLedger(ctx, db.pool, pop, out.w, "ledger check after the PostgreSQL run")
}

// transactions is one worker's part of the ceiling run.
func (w *worker) transactions(ctx context.Context, pool *pgxpool.Pool, projectIDs [projectsPerHost]int64, win window) {
	for range maxRPCsPerWorker {
		began := time.Now()
		if !began.Before(win.stop) || ctx.Err() != nil {
			return
		}
		h := w.hosts[w.next]
		w.next = (w.next + 1) % len(w.hosts)
		h.grow(w.rng, began)
		kind := ""
		if err := accountTx(ctx, pool, h, projectIDs, began); err != nil {
			kind = "transaction: " + err.Error()
			h.sent = h.acked // rolled back
		} else {
			h.ack()
		}
		if !began.Before(win.measureFrom) {
			w.stats.record(kind, time.Since(began))
		}
	}
}

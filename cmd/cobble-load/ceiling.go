package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
)

// maxRecorded bounds the hosts whose RPC the ceiling records and replays.
const maxRecorded = 5000

// ceiling measures what PostgreSQL alone does with the database work of
// Cobble's steady-state RPCs, at the same concurrency for the same time. It
// records one real RPC of each host (recordRPCs), then replays the
// recorded transactions exactly, statements, arguments, batches and
// COMMIT, each host's by one worker as in the load, on the server's own
// pool: the same connections, so the same prepared statements and the
// same generic plans as the RPCs had. No HTTP, XML or Cobble's decisions.
// Every replay that commits adds the recorded RPC's credit to the ledger
// once more, so the ledger check after it expects the load's growth plus,
// per host, its replays times its recorded growth. Cobble ÷ ceiling is
// therefore at most about 1, and the gap is Cobble's own cost.
func ceiling(ctx context.Context, cfg config, db *database, tgt *target, c *rpcClient, pop *population,
	cobble stats, out *report) error {
	if tgt.recorder == nil {
		out.printf("PostgreSQL ceiling: not measured: it replays what Cobble sends, so it needs Cobble " +
			"in this process (no --url)\n")
		return nil
	}
	hosts, rec, err := recordRPCs(ctx, cfg, c, tgt.recorder, pop)
	if err != nil {
		return err
	}
	if len(hosts) == 0 {
		return fmt.Errorf("PostgreSQL ceiling: no steady-state RPC was recorded (%s)", rec)
	}
	cost := statementCosts(ctx, cfg, db)
	ws := newWorkers(hosts, cfg.concurrency, cfg.seed+1, expectedRPCs(cfg))
	win := newWindow(cfg.warmup, cfg.duration)
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.replays(ctx, tgt.pool, win) })
	}
	err = cost.startAt(ctx, win.measureFrom)
	wg.Wait()
	s := mergeStats(ws, time.Since(win.measureFrom))
	if err = errors.Join(err, cost.stop()); err != nil {
		return err
	}
	out.ceiling(len(ws), int(tgt.pool.Config().MaxConns), rec, cobble, s)
	if err := out.statements(ctx, cost, s.ok, "transaction", "replay"); err != nil {
		return err
	}
	out.cpuTimes(cost, s.ok, "transaction", "replay", "the replay, Cobble's idle server and the Go runtime")
	return checkLedger(ctx, db.pool, pop, replayedGrowth, out.w, "ledger check after the PostgreSQL run")
}

// replayedGrowth is what the ledger holds for one of h's projects after
// the ceiling: the growth that the load and the recording sent, and the
// recorded RPC's growth once more for each replay that committed.
func replayedGrowth(h *host, i int) accounting.Usage {
	u := h.acked[i].Sub(h.baseline[i])
	for range h.replays {
		u = u.Add(h.recordedGrowth[i])
	}
	return u
}

// recording describes what recordRPCs recorded, for the report.
type recording struct {
	hosts, skipped    int
	roundTrips, stmts int // of one recorded RPC (the first)
}

func (r recording) String() string {
	return fmt.Sprintf("%d hosts' RPCs recorded, the first %d statements in %d round trips; %d not recorded",
		r.hosts, r.stmts, r.roundTrips, r.skipped)
}

// recordRPCs sends one RPC of each host (of the first maxRecorded), one
// at a time, with the recorder armed, and keeps each host's transaction
// in it, and what it added to the ledger. A host whose RPC failed or did
// not run as one steady-state transaction is left out and counted.
func recordRPCs(ctx context.Context, cfg config, c *rpcClient, rec *recorder, pop *population) ([]*host, recording, error) {
	b, err := newRequestBuilder(projectURLs(pop))
	if err != nil {
		return nil, recording{}, err
	}
	all := pop.hosts[:min(len(pop.hosts), maxRecorded)]
	w := newWorkers(all, 1, cfg.seed+2, 1)[0]
	var hosts []*host
	var r recording
	for _, h := range all {
		if ctx.Err() != nil {
			return nil, r, ctx.Err()
		}
		before := h.acked
		h.grow(w.rng, time.Now())
		w.body = b.build(w.body[:0], h)
		rec.arm()
		kind := c.send(ctx, w.body, &w.reply)
		txs := rec.disarm()
		if kind == "" {
			h.ack()
		}
		if kind != "" || len(txs) != 1 {
			r.skipped++
			continue
		}
		h.recorded = txs[0]
		for i := range h.recordedGrowth {
			h.recordedGrowth[i] = h.acked[i].Sub(before[i])
		}
		if r.hosts == 0 {
			r.roundTrips, r.stmts = len(h.recorded), h.recorded.statements()
		}
		r.hosts++
		hosts = append(hosts, h)
	}
	return hosts, r, nil
}

// replays is one worker's part of the ceiling run.
func (w *worker) replays(ctx context.Context, pool *pgxpool.Pool, win window) {
	for range maxRPCsPerWorker {
		began := time.Now()
		if !began.Before(win.stop) || ctx.Err() != nil {
			return
		}
		h := w.hosts[w.next]
		w.next = (w.next + 1) % len(w.hosts)
		kind := ""
		if err := replay(ctx, pool, h.recorded); err != nil {
			kind = "transaction: " + err.Error()
		} else {
			h.replays++
		}
		if !began.Before(win.measureFrom) {
			w.stats.record(kind, time.Since(began))
		}
	}
}

// replay sends tx's round trips on one connection, as Cobble sent them:
// each round trip one batch, the last one ending in COMMIT. After an
// error it rolls back, as Cobble does.
func replay(ctx context.Context, pool *pgxpool.Pool, tx transaction) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	for _, rt := range tx {
		b := &pgx.Batch{}
		for _, st := range rt {
			b.Queue(st.sql, st.args...)
		}
		if err = conn.SendBatch(ctx, b).Close(); err != nil {
			conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
			return err
		}
	}
	return nil
}

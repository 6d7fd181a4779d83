package main

import (
	"context"
	"sync"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// ceiling measures what PostgreSQL alone does with the database work of the
// same RPCs, at the same concurrency for the same time: per RPC one
// transaction that checks the AM token, locks the host, reads what an RPC
// reads, updates the host and upserts five host_projects and five ledger
// rows, with the queries, batch builders and two round trips of a
// steady-state RPC (accounting.Store.CeilingSync), without HTTP, XML or
// Cobble's decisions. The counters keep growing as in the load, so the
// ledger check must pass afterwards too.
func ceiling(ctx context.Context, cfg config, db *database, pop *population, cobble stats, out *report) error {
	var projectIDs [projectsPerHost]int64
	for i, p := range pop.projects {
		projectIDs[i] = p.ID
	}
	store := accounting.NewStore(db.pool, accounting.Options{})
	ws := newWorkers(pop.hosts, cfg.concurrency, cfg.seed+1, expectedRPCs(cfg))
	win := newWindow(cfg.warmup, cfg.duration)
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.transactions(ctx, store, projectIDs, win) })
	}
	wg.Wait()
	s := mergeStats(ws, time.Since(win.measureFrom))
	out.ceiling(len(ws), cobble, s)
	return checkLedger(ctx, db.pool, pop, out.w, "ledger check after the PostgreSQL run")
}

// transactions is one worker's part of the ceiling run.
func (w *worker) transactions(ctx context.Context, store *accounting.Store, projectIDs [projectsPerHost]int64, win window) {
	for range maxRPCsPerWorker {
		began := time.Now()
		if !began.Before(win.stop) || ctx.Err() != nil {
			return
		}
		h := w.hosts[w.next]
		w.next = (w.next + 1) % len(w.hosts)
		h.grow(w.rng, began)
		kind := ""
		if err := accountTx(ctx, store, h, projectIDs, began); err != nil {
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

// ceilingHost is the host description the ceiling's updates write: the
// fixture's.
var ceilingHost = accounting.HostReport{DomainName: "vm", ClientVersion: "7.20.5",
	Platforms: []string{"x86_64-pc-linux-gnu"}, OSName: "Linux Debian",
	OSVersion: "Debian GNU/Linux 12 (bookworm) [6.18.44-fc-v657|libc 2.36]", PVendor: "AuthenticAMD",
	PModel: "AMD EPYC [Family 25 Model 17 Stepping 1]", NCPUs: 2, PFPOps: 1e9, MNBytes: 25276510208}

// accountTx does one RPC's database work with Cobble's own SQL
// (accounting.Store.CeilingSync), crediting the growth of h.sent over the
// stored counters.
func accountTx(ctx context.Context, store *accounting.Store, h *host, projectIDs [projectsPerHost]int64, now time.Time) error {
	reports := make([]accounting.CeilingReport, len(projectIDs))
	for i, pid := range projectIDs {
		reports[i] = accounting.CeilingReport{ProjectID: pid, ProjectHostID: h.projectHostIDs[i], Counters: h.sent[i]}
	}
	report := ceilingHost
	report.CPID = h.cpid
	return store.CeilingSync(ctx, h.auth, h.token, report, reports, now)
}

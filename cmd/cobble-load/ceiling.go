package main

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ceiling measures what PostgreSQL alone does with the writes of the same
// RPCs, at the same concurrency for the same time: per RPC one transaction
// that locks the host, reads its projects' rows, updates the host and
// upserts five host_projects and five ledger rows, as Cobble's accounting
// does, without HTTP, XML, authentication or Cobble's decisions. The counters
// keep growing as in the load, so the ledger check must pass afterwards too.
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
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			return accountTx(ctx, tx, h, projectIDs, began)
		}); err != nil {
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

// storedPair is a host_projects row as the ceiling reads it.
type storedPair struct {
	assigned, attached bool
	projectHostID      int64
	last, total        counters
	avg                float64
}

// accountTx does one RPC's reads and writes in tx, crediting the growth of
// h.sent over the stored counters.
func accountTx(ctx context.Context, tx pgx.Tx, h *host, projectIDs [projectsPerHost]int64, now time.Time) error {
	var id, userID int64
	var token string
	var created time.Time
	var lastRPC *time.Time
	err := tx.QueryRow(ctx, `
		SELECT id, user_id, opaque_token, created_at, last_rpc_at
		FROM hosts
		WHERE user_id = $1 AND (opaque_token = $2 OR host_cpid = $3 OR host_cpid = $4)
		ORDER BY opaque_token = $2 DESC NULLS LAST, host_cpid = $3 DESC NULLS LAST,
			last_rpc_at DESC NULLS LAST
		LIMIT 1
		FOR UPDATE`, h.userID, h.token, h.cpid, h.cpid).Scan(&id, &userID, &token, &created, &lastRPC)
	if err != nil {
		return err
	}
	stored, err := readPairs(ctx, tx, id)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	queueHost(b, h, now)
	var w pairWrites
	for i, pid := range projectIDs {
		st := stored[pid]
		delta := h.sent[i].sub(st.last)
		w.add(pid, h.projectHostIDs[i], st, h.sent[i], st.total.add(delta), delta)
	}
	w.queue(b, h, now)
	return tx.SendBatch(ctx, b).Close()
}

// readPairs reads a host's host_projects rows, the same columns Cobble reads.
func readPairs(ctx context.Context, tx pgx.Tx, hostID int64) (map[int64]storedPair, error) {
	rows, _ := tx.Query(ctx, `
		SELECT project_id, assigned, attached, project_hostid,
			last_cpu_ec_micro, last_cpu_time_micro, last_gpu_ec_micro, last_gpu_time_micro,
			last_njobs_success, last_njobs_error, reported_at,
			total_cpu_ec_micro, total_cpu_time_micro, total_gpu_ec_micro, total_gpu_time_micro,
			total_njobs_success, total_njobs_error, avg_ec, avg_time
		FROM host_projects WHERE host_id = $1`, hostID)
	out := map[int64]storedPair{}
	var id int64
	var p storedPair
	var reported, avgTime *time.Time
	l, t := &p.last, &p.total
	_, err := pgx.ForEachRow(rows, []any{&id, &p.assigned, &p.attached, &p.projectHostID,
		&l.cpuEC, &l.cpuTime, &l.gpuEC, &l.gpuTime, &l.jobsOK, &l.jobsErr, &reported,
		&t.cpuEC, &t.cpuTime, &t.gpuEC, &t.gpuTime, &t.jobsOK, &t.jobsErr, &p.avg, &avgTime}, func() error {
		out[id] = p
		return nil
	})
	return out, err
}

// queueHost queues Cobble's update of the host row, with the fixture's
// host description.
func queueHost(b *pgx.Batch, h *host, now time.Time) {
	b.Queue(`
		UPDATE hosts SET host_cpid = $2, domain_name = $3, client_version = $4, platforms = $5,
			os_name = $6, os_version = $7, p_vendor = $8, p_model = $9, ncpus = $10,
			p_fpops = $11, m_nbytes = $12, timezone_offset = $13, coprocs = $14,
			last_rpc_at = $15, rpc_count = rpc_count + 1, implausible = $16
		WHERE id = $1`,
		h.id, h.cpid, "vm", "7.20.5", []string{"x86_64-pc-linux-gnu"}, "Linux Debian",
		"Debian GNU/Linux 12 (bookworm) [6.18.44-fc-v657|libc 2.36]", "AuthenticAMD",
		"AMD EPYC [Family 25 Model 17 Stepping 1]", 2, 1e9, 25276510208.0, 0, []byte("[]"), now, "")
}

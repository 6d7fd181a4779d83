package main

import (
	"time"

	"github.com/jackc/pgx/v5"
)

// pairWrites are the new host_projects rows and ledger amounts of one RPC in
// the ceiling run, as columns for the same unnest upserts Cobble sends.
type pairWrites struct {
	projects, hostIDs  []int64
	assigned, attached []bool
	last, total, delta [6][]int64
	avg                []float64
}

// add appends one (host, project): its new last counters and lifetime
// totals, and the delta that goes to today's ledger row.
func (w *pairWrites) add(projectID, projectHostID int64, st storedPair, last, total, delta counters) {
	w.projects = append(w.projects, projectID)
	w.hostIDs = append(w.hostIDs, projectHostID)
	w.assigned = append(w.assigned, true)
	w.attached = append(w.attached, true)
	for f, v := range last.values() {
		w.last[f] = append(w.last[f], v)
	}
	for f, v := range total.values() {
		w.total[f] = append(w.total[f], v)
	}
	for f, v := range delta.values() {
		w.delta[f] = append(w.delta[f], v)
	}
	w.avg = append(w.avg, st.avg)
}

// queue queues the host_projects and ledger upserts.
func (w *pairWrites) queue(b *pgx.Batch, h *host, now time.Time) {
	n := len(w.projects)
	times := make([]time.Time, n)
	days := make([]time.Time, n)
	y, m, d := now.UTC().Date()
	for i := range times {
		times[i], days[i] = now, time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	args := []any{h.id, h.userID, w.projects, w.assigned, w.attached, w.hostIDs}
	for _, c := range w.last {
		args = append(args, c)
	}
	args = append(args, times)
	for _, c := range w.total {
		args = append(args, c)
	}
	b.Queue(pairUpsert, append(args, w.avg, times)...)

	zeros := make([]int64, n)
	args = []any{h.id, h.userID, w.projects, days}
	for _, c := range w.delta {
		args = append(args, c)
	}
	b.Queue(ledgerUpsert, append(args, zeros, zeros, zeros, zeros, zeros, zeros)...)
}

// pairUpsert writes host_projects rows as Cobble's accounting does.
const pairUpsert = `
	INSERT INTO host_projects AS hp (host_id, user_id, project_id, assigned, attached, project_hostid,
		last_cpu_ec_micro, last_cpu_time_micro, last_gpu_ec_micro, last_gpu_time_micro,
		last_njobs_success, last_njobs_error, reported_at,
		total_cpu_ec_micro, total_cpu_time_micro, total_gpu_ec_micro, total_gpu_time_micro,
		total_njobs_success, total_njobs_error, avg_ec, avg_time)
	SELECT $1, $2, u.* FROM unnest($3::bigint[], $4::bool[], $5::bool[], $6::bigint[],
		$7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[],
		$13::timestamptz[], $14::bigint[], $15::bigint[], $16::bigint[], $17::bigint[],
		$18::bigint[], $19::bigint[], $20::float8[], $21::timestamptz[]) AS u
	ON CONFLICT (host_id, project_id) DO UPDATE SET
		assigned = EXCLUDED.assigned, attached = EXCLUDED.attached,
		project_hostid = EXCLUDED.project_hostid,
		last_cpu_ec_micro = EXCLUDED.last_cpu_ec_micro, last_cpu_time_micro = EXCLUDED.last_cpu_time_micro,
		last_gpu_ec_micro = EXCLUDED.last_gpu_ec_micro, last_gpu_time_micro = EXCLUDED.last_gpu_time_micro,
		last_njobs_success = EXCLUDED.last_njobs_success, last_njobs_error = EXCLUDED.last_njobs_error,
		reported_at = EXCLUDED.reported_at,
		total_cpu_ec_micro = EXCLUDED.total_cpu_ec_micro, total_cpu_time_micro = EXCLUDED.total_cpu_time_micro,
		total_gpu_ec_micro = EXCLUDED.total_gpu_ec_micro, total_gpu_time_micro = EXCLUDED.total_gpu_time_micro,
		total_njobs_success = EXCLUDED.total_njobs_success, total_njobs_error = EXCLUDED.total_njobs_error,
		avg_ec = EXCLUDED.avg_ec, avg_time = EXCLUDED.avg_time`

// ledgerUpsert adds to today's ledger rows as Cobble's accounting does.
const ledgerUpsert = `
	INSERT INTO ledger AS l (host_id, user_id, project_id, day,
		cpu_ec_micro, cpu_time_micro, gpu_ec_micro, gpu_time_micro, njobs_success, njobs_error,
		clamped_cpu_ec_micro, clamped_cpu_time_micro, clamped_gpu_ec_micro, clamped_gpu_time_micro,
		clamped_njobs_success, clamped_njobs_error)
	SELECT $1, $2, u.* FROM unnest($3::bigint[], $4::date[], $5::bigint[], $6::bigint[], $7::bigint[],
		$8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[],
		$14::bigint[], $15::bigint[], $16::bigint[]) AS u
	ON CONFLICT (host_id, project_id, day) DO UPDATE SET
		cpu_ec_micro = l.cpu_ec_micro + EXCLUDED.cpu_ec_micro,
		cpu_time_micro = l.cpu_time_micro + EXCLUDED.cpu_time_micro,
		gpu_ec_micro = l.gpu_ec_micro + EXCLUDED.gpu_ec_micro,
		gpu_time_micro = l.gpu_time_micro + EXCLUDED.gpu_time_micro,
		njobs_success = l.njobs_success + EXCLUDED.njobs_success,
		njobs_error = l.njobs_error + EXCLUDED.njobs_error,
		clamped_cpu_ec_micro = l.clamped_cpu_ec_micro + EXCLUDED.clamped_cpu_ec_micro,
		clamped_cpu_time_micro = l.clamped_cpu_time_micro + EXCLUDED.clamped_cpu_time_micro,
		clamped_gpu_ec_micro = l.clamped_gpu_ec_micro + EXCLUDED.clamped_gpu_ec_micro,
		clamped_gpu_time_micro = l.clamped_gpu_time_micro + EXCLUDED.clamped_gpu_time_micro,
		clamped_njobs_success = l.clamped_njobs_success + EXCLUDED.clamped_njobs_success,
		clamped_njobs_error = l.clamped_njobs_error + EXCLUDED.clamped_njobs_error`

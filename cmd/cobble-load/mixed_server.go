package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// phaseJob is what the server's background jobs of one kind did during a
// phase of the mixed load: how many ran in it, the longest of them, and
// their time within the phase.
type phaseJob struct {
	Kind      string
	Jobs      int
	Longest   float64 // seconds
	WithinSec float64
}

// phaseJobs reads from River's table the server's background jobs that
// ran during from–to, by kind: the rounds (rollup, statistics export,
// alerts, cleanup) and the mail, which take the CPUs from the RPCs and
// the pages.
func phaseJobs(ctx context.Context, pool *pgxpool.Pool, from, to time.Time) ([]phaseJob, error) {
	rows, _ := pool.Query(ctx, `
		SELECT kind, count(*)::int AS jobs,
			max(extract(epoch FROM coalesce(finalized_at, now()) - attempted_at))::float8 AS longest,
			sum(extract(epoch FROM least(coalesce(finalized_at, now()), $2) - greatest(attempted_at, $1)))::float8
				AS within_sec
		FROM river_job
		WHERE attempted_at < $2 AND coalesce(finalized_at, now()) > $1
		GROUP BY kind ORDER BY kind`, from, to)
	return pgx.CollectRows(rows, pgx.RowToStructByName[phaseJob])
}

// jobsLine records the server's background jobs of a phase, or why they
// could not be read.
func (r *report) jobsLine(ctx context.Context, pool *pgxpool.Pool, phase string, from, to time.Time) {
	jobs, err := phaseJobs(ctx, pool, from, to)
	if err != nil {
		r.printf("the server's background jobs over %s: unknown (%v)\n", phase, err)
		return
	}
	r.printf("the server's background jobs over %s: %s\n", phase, describeJobs(jobs))
}

// describeJobs says what the jobs of a phase did, a kind at a time.
func describeJobs(jobs []phaseJob) string {
	if len(jobs) == 0 {
		return "none"
	}
	var parts []string
	for _, j := range jobs {
		parts = append(parts, fmt.Sprintf("%s ×%d (longest %.1f s, %.1f s within the phase)",
			j.Kind, j.Jobs, j.Longest, j.WithinSec))
	}
	return strings.Join(parts, ", ")
}

// poolMark is a reading of the in-process server's connection pool at the
// start of a phase: a request that finds every connection taken waits
// for one, whatever the CPUs are doing.
type poolMark struct {
	pool     *pgxpool.Pool // nil: a running Cobble, whose pool the tool cannot see
	acquires int64
	waited   int64
	wait     time.Duration
}

// markPool reads the server's pool (nil for none).
func markPool(pool *pgxpool.Pool) poolMark {
	if pool == nil {
		return poolMark{}
	}
	s := pool.Stat()
	return poolMark{pool: pool, acquires: s.AcquireCount(), waited: s.EmptyAcquireCount(), wait: s.EmptyAcquireWaitTime()}
}

// poolLine records how the server's requests and jobs waited for its
// pool's connections since m.
func (r *report) poolLine(phase string, m poolMark) {
	if m.pool == nil {
		return
	}
	now := markPool(m.pool)
	waited, wait := now.waited-m.waited, now.wait-m.wait
	mean := time.Duration(0)
	if waited > 0 {
		mean = wait / time.Duration(waited)
	}
	r.printf("the server's pool over %s (%d connections): %d acquisitions, %d of them waited for a free "+
		"connection, %.1f s of waiting in all (%s a wait)\n", phase, m.pool.Stat().MaxConns(), now.acquires-m.acquires,
		waited, wait.Seconds(), ms(mean))
}

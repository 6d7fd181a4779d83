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

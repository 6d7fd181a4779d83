package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// jobColumns returns the river_job columns that fill a JobProblem, in
// scanJob's order, with at as its time.
func jobColumns(at string) string {
	return `id, j.kind, queue, state::text, attempt, ` + at + `,
		coalesce(errors[array_length(errors, 1)]->>'error', '')`
}

func scanJob(row pgx.CollectableRow) (JobProblem, error) {
	var j JobProblem
	err := row.Scan(&j.ID, &j.Kind, &j.Queue, &j.State, &j.Attempt, &j.At, &j.Error)
	return j, err
}

// JobHealth lists the job queue's stuck jobs and the jobs that failed
// lately, as of now (JobHealth's bounds), oldest first. A job is stuck
// when it has been running for longer than its kind's timeout in
// timeouts (JobStuckAfter for a kind it does not name), or due for longer
// than JobLateAfter.
func (s *JobsStore) JobHealth(ctx context.Context, now time.Time, timeouts JobTimeouts) (JobHealth, error) {
	var h JobHealth
	kinds, seconds := make([]string, 0, len(timeouts)), make([]float64, 0, len(timeouts))
	for k, d := range timeouts {
		kinds, seconds = append(kinds, k), append(seconds, d.Seconds())
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+jobColumns(`coalesce(attempted_at, scheduled_at)`)+`
		FROM river_job j
		LEFT JOIN unnest($4::text[], $5::float8[]) AS t(kind, seconds) ON t.kind = j.kind
		WHERE (j.state = 'running' AND j.attempted_at <
		       $1::timestamptz - coalesce(t.seconds * interval '1 second', $6::interval))
		   OR (j.state IN ('available', 'retryable') AND j.scheduled_at < $2)
		ORDER BY coalesce(j.attempted_at, j.scheduled_at), j.id LIMIT $3`,
		now, now.Add(-JobLateAfter), jobsListed, kinds, seconds, JobStuckAfter)
	stuck, err := pgx.CollectRows(rows, scanJob)
	if err != nil {
		return h, op("job health", err)
	}
	rows, _ = s.pool.Query(ctx, `SELECT `+jobColumns(`finalized_at`)+`
		FROM river_job j
		WHERE state IN ('discarded', 'cancelled') AND finalized_at > $1
		ORDER BY finalized_at, id LIMIT $2`, now.Add(-JobFailedWithin), jobsListed)
	failed, err := pgx.CollectRows(rows, scanJob)
	h.Stuck, h.Failed = stuck, failed
	return h, op("job health", err)
}

package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// jobColumns returns the river_job columns that fill a JobProblem, in
// scanJob's order, with at as its time.
func jobColumns(at string) string {
	return `id, kind, queue, state::text, attempt, ` + at + `,
		coalesce(errors[array_length(errors, 1)]->>'error', '')`
}

func scanJob(row pgx.CollectableRow) (JobProblem, error) {
	var j JobProblem
	err := row.Scan(&j.ID, &j.Kind, &j.Queue, &j.State, &j.Attempt, &j.At, &j.Error)
	return j, err
}

// JobHealth lists the job queue's stuck jobs and the jobs that failed
// lately, as of now (JobHealth's bounds), oldest first.
func (s *JobsStore) JobHealth(ctx context.Context, now time.Time) (JobHealth, error) {
	var h JobHealth
	rows, _ := s.pool.Query(ctx, `SELECT `+jobColumns(`coalesce(attempted_at, scheduled_at)`)+`
		FROM river_job
		WHERE (state = 'running' AND attempted_at < $1)
		   OR (state IN ('available', 'retryable') AND scheduled_at < $2)
		ORDER BY coalesce(attempted_at, scheduled_at), id LIMIT $3`,
		now.Add(-JobStuckAfter), now.Add(-JobLateAfter), jobsListed)
	stuck, err := pgx.CollectRows(rows, scanJob)
	if err != nil {
		return h, op("job health", err)
	}
	rows, _ = s.pool.Query(ctx, `SELECT `+jobColumns(`finalized_at`)+`
		FROM river_job
		WHERE state IN ('discarded', 'cancelled') AND finalized_at > $1
		ORDER BY finalized_at, id LIMIT $2`, now.Add(-JobFailedWithin), jobsListed)
	failed, err := pgx.CollectRows(rows, scanJob)
	h.Stuck, h.Failed = stuck, failed
	return h, op("job health", err)
}

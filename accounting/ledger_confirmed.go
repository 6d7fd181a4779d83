package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// ExportDays returns, for each project whose export a reconciliation run
// has read, the ledger day of its latest export in the named time zone (UTC
// when the name is unknown): that project's confirmed credit is known up to
// and including that day, and not yet for the days after it. Projects never
// reconciled are absent.
func (s *LedgerStore) ExportDays(ctx context.Context, timeZone string) (map[int64]time.Time, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT project_id, max(export_time) AS at FROM reconcile_runs
		WHERE status IN ('ok', 'unchanged') AND export_time IS NOT NULL
		GROUP BY project_id`)
	latest, err := pgx.CollectRows(rows, pgx.RowToStructByName[struct {
		Project int64     `db:"project_id"`
		At      time.Time `db:"at"`
	}])
	if err != nil {
		return nil, op("export days", err)
	}
	loc := s.location(timeZone)
	out := make(map[int64]time.Time, len(latest))
	for _, l := range latest {
		y, m, d := l.At.In(loc).Date()
		out[l.Project] = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	return out, nil
}

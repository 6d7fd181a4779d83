package accounting

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ExportHistory calls fn with each row of a volunteer's whole history
// (months whose per-host detail was dropped come as computer 0, unnamed),
// oldest day first, as PostgreSQL streams them: memory stays flat however
// long the history. An error from fn stops the export and is returned.
func (s *LedgerStore) ExportHistory(ctx context.Context, userID int64, fn func(ExportRow) error) error {
	rows, err := s.readPool(ctx).Query(ctx, `
		WITH e AS (
			SELECT host_id, project_id, day, `+CreditSQL("")+` AS ec, cpu_time_micro, gpu_time_micro,
				njobs_success, njobs_error, `+CreditSQL("clamped_")+` AS clamped
			FROM ledger_by_volunteer WHERE user_id = $1),
		c AS (SELECT host_id, project_id, day, granted_micro FROM confirmed_by_volunteer WHERE user_id = $1)
		SELECT day::timestamp AT TIME ZONE 'UTC', host_id, coalesce(nullif(h.nickname, ''), h.domain_name, ''), p.url, p.name,
			coalesce(e.ec, 0), coalesce(e.cpu_time_micro, 0), coalesce(e.gpu_time_micro, 0),
			coalesce(e.njobs_success, 0), coalesce(e.njobs_error, 0), coalesce(e.clamped, 0),
			coalesce(c.granted_micro, 0)
		FROM e FULL JOIN c USING (host_id, project_id, day)
		LEFT JOIN hosts h ON h.id = host_id JOIN projects p ON p.id = project_id
		ORDER BY day, host_id, p.name`, userID)
	if err != nil {
		return op("export history", err)
	}
	defer rows.Close()
	var r ExportRow
	_, err = pgx.ForEachRow(rows, []any{&r.Day, &r.ComputerID, &r.ComputerName, &r.ProjectURL, &r.ProjectName,
		&r.Estimated, &r.CPUTime, &r.GPUTime, &r.JobsOK, &r.JobsError, &r.Clamped, &r.Confirmed},
		func() error { return fn(r) })
	return op("export history", err)
}

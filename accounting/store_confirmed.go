package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// ConfirmedDay is credit a project granted one of a volunteer's hosts on one day.
type ConfirmedDay struct {
	Day       time.Time
	HostID    int64
	ProjectID int64
	Granted   float64 // Cobblestones
}

// UserConfirmed returns a volunteer's confirmed credit per day, host and
// project for the days from–to, oldest first (host 0: a month whose
// per-host detail was dropped). Sum it by day, host or
// project as a page needs.
func (s *Store) UserConfirmed(ctx context.Context, userID int64, from, to time.Time) ([]ConfirmedDay, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT day::timestamp AT TIME ZONE 'UTC' AS day, host_id, project_id, granted_micro / 1e6 AS granted
		FROM confirmed_by_volunteer WHERE user_id = $1 AND day BETWEEN $2::date AND $3::date
		ORDER BY day, host_id, project_id`, userID, from, to)
	days, err := pgx.CollectRows(rows, pgx.RowToStructByName[ConfirmedDay])
	return days, op("confirmed credit", err)
}

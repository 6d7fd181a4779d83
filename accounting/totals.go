package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// DayCredit is estimated credit and work summed over one calendar day.
type DayCredit struct {
	Day         time.Time // midnight UTC of the day
	CPUEC       float64   // Cobblestones
	CPUTime     float64   // seconds
	GPUEC       float64   // Cobblestones
	GPUTime     float64   // seconds
	JobsSuccess int64
	JobsError   int64
	ClampedEC   float64 // claimed beyond the limits, not credited
}

// Credit is the day's credited estimate, CPU plus GPU.
func (d DayCredit) Credit() float64 { return d.CPUEC + d.GPUEC }

// dayColumns sums ledger rows into DayCredit's fields.
const dayColumns = `day::timestamp AT TIME ZONE 'UTC' AS day,
	sum(cpu_ec_micro) / 1e6 AS cpu_ec, sum(gpu_ec_micro) / 1e6 AS gpu_ec,
	sum(cpu_time_micro) / 1e6 AS cpu_time, sum(gpu_time_micro) / 1e6 AS gpu_time,
	sum(njobs_success)::bigint AS jobs_success, sum(njobs_error)::bigint AS jobs_error,
	sum(clamped_cpu_ec_micro + clamped_gpu_ec_micro) / 1e6 AS clamped_ec`

// UserDays returns a volunteer's daily totals for the days from–to
// (inclusive), oldest first; days without credit are left out.
func (s *Store) UserDays(ctx context.Context, userID int64, from, to time.Time) ([]DayCredit, error) {
	return s.days(ctx, "user days", `user_id = $3`, from, to, userID)
}

// SystemDays returns Cobble's daily totals over all hosts and projects.
func (s *Store) SystemDays(ctx context.Context, from, to time.Time) ([]DayCredit, error) {
	return s.days(ctx, "system days", `true`, from, to)
}

func (s *Store) days(ctx context.Context, name, where string, from, to time.Time, args ...any) ([]DayCredit, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+dayColumns+` FROM ledger
		WHERE day BETWEEN $1::date AND $2::date AND `+where+`
		GROUP BY day ORDER BY day`, append([]any{from, to}, args...)...)
	days, err := pgx.CollectRows(rows, pgx.RowToStructByName[DayCredit])
	return days, op(name, err)
}

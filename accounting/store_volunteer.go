package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Totals sums a volunteer's ledger over some days.
type Totals struct {
	Estimated float64 `db:"estimated"` // credited estimate, CPU plus GPU, Cobblestones
	Confirmed float64 `db:"confirmed"` // credit the projects granted (lags by days)
	CPUHours  float64 `db:"cpu_hours"`
	GPUHours  float64 `db:"gpu_hours"`
	JobsOK    int64   `db:"jobs_ok"`
	JobsError int64   `db:"jobs_error"`
	Clamped   float64 `db:"clamped"` // claimed beyond the limits, not credited
}

// Summary is a volunteer's totals over the periods the dashboard shows.
// Days are the ledger's days in the volunteer's time zone.
type Summary struct {
	Today, Yesterday, Last7, Last30, AllTime Totals
}

// Today returns the calendar day of now in the named time zone (UTC when
// the name is unknown), as midnight UTC: the ledger's day key.
func (s *Store) Today(now time.Time, timeZone string) time.Time {
	y, m, d := now.In(s.location(timeZone)).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Summary returns a volunteer's totals for today, yesterday, the last 7 and
// 30 days (today included) and all time. today is a day from Today.
// All-time estimates come from each (computer, project)'s lifetime totals,
// which equal the sums of their ledger rows (cobble ledger rebuild keeps
// them so), so that years of history cost no more than a month;
// AllTime.Clamped is not computed (0).
func (s *Store) Summary(ctx context.Context, userID int64, today time.Time) (Summary, error) {
	rows, _ := s.pool.Query(ctx, `
		WITH periods (i, d0, d1) AS (VALUES
			(0, @today::date, @today::date), (1, @today::date - 1, @today::date - 1),
			(2, @today::date - 6, @today::date), (3, @today::date - 29, @today::date),
			(4, '-infinity'::date, 'infinity'::date)),
		est AS (
			SELECT p.i, sum(l.cpu_ec_micro + l.gpu_ec_micro) AS ec, sum(l.cpu_time_micro) AS cpu,
				sum(l.gpu_time_micro) AS gpu, sum(l.njobs_success) AS ok, sum(l.njobs_error) AS err,
				sum(l.clamped_cpu_ec_micro + l.clamped_gpu_ec_micro) AS clamped
			FROM periods p JOIN ledger_by_volunteer l ON l.user_id = @user AND l.day BETWEEN p.d0 AND p.d1
			-- The bound lets PostgreSQL read only the last 30 days' partitions.
			WHERE p.i < 4 AND l.day BETWEEN @today::date - 29 AND @today::date GROUP BY p.i
			UNION ALL
			SELECT 4, sum(total_cpu_ec_micro + total_gpu_ec_micro), sum(total_cpu_time_micro),
				sum(total_gpu_time_micro), sum(total_njobs_success), sum(total_njobs_error), 0
			FROM host_projects WHERE user_id = @user),
		conf AS (
			SELECT p.i, sum(c.granted_micro) AS granted
			FROM periods p JOIN confirmed_by_volunteer c ON c.user_id = @user AND c.day BETWEEN p.d0 AND p.d1
			GROUP BY p.i)
		SELECT coalesce(est.ec, 0) / 1e6 AS estimated, coalesce(conf.granted, 0) / 1e6 AS confirmed,
			coalesce(est.cpu, 0) / 3.6e9 AS cpu_hours, coalesce(est.gpu, 0) / 3.6e9 AS gpu_hours,
			coalesce(est.ok, 0)::bigint AS jobs_ok, coalesce(est.err, 0)::bigint AS jobs_error,
			coalesce(est.clamped, 0) / 1e6 AS clamped
		FROM periods p LEFT JOIN est USING (i) LEFT JOIN conf USING (i) ORDER BY p.i`,
		pgx.NamedArgs{"user": userID, "today": today})
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[Totals])
	if err != nil {
		return Summary{}, op("summary", err)
	}
	return Summary{Today: ts[0], Yesterday: ts[1], Last7: ts[2], Last30: ts[3], AllTime: ts[4]}, nil
}

// HistoryDay is one project's share of one day of a volunteer's (or one of
// their computers') history.
type HistoryDay struct {
	Day         time.Time `db:"day"` // midnight UTC of the ledger's day
	ProjectID   int64     `db:"project_id"`
	ProjectName string    `db:"project_name"`
	CPUEC       float64   `db:"cpu_ec"` // Cobblestones
	GPUEC       float64   `db:"gpu_ec"`
	CPUHours    float64   `db:"cpu_hours"`
	GPUHours    float64   `db:"gpu_hours"`
	JobsOK      int64     `db:"jobs_ok"`
	JobsError   int64     `db:"jobs_error"`
	Clamped     float64   `db:"clamped"`
	Confirmed   float64   `db:"confirmed"`
}

// Estimated is the day's credited estimate, CPU plus GPU.
func (d HistoryDay) Estimated() float64 { return d.CPUEC + d.GPUEC }

// Add returns d with e's amounts added to its own; d's day and project stay.
func (d HistoryDay) Add(e HistoryDay) HistoryDay {
	d.CPUEC, d.GPUEC, d.Confirmed = d.CPUEC+e.CPUEC, d.GPUEC+e.GPUEC, d.Confirmed+e.Confirmed
	d.CPUHours, d.GPUHours = d.CPUHours+e.CPUHours, d.GPUHours+e.GPUHours
	d.JobsOK, d.JobsError, d.Clamped = d.JobsOK+e.JobsOK, d.JobsError+e.JobsError, d.Clamped+e.Clamped
	return d
}

// History returns a volunteer's ledger from–to (inclusive) by day and
// project, oldest day first, projects by name; days without estimated or
// confirmed credit are left out. hostID 0 means all the volunteer's
// computers, over the whole history; one computer's history covers the
// months whose per-host detail is kept (--ledger-detail-months). Another
// volunteer's host yields nothing.
func (s *Store) History(ctx context.Context, userID, hostID int64, from, to time.Time) ([]HistoryDay, error) {
	rows, _ := s.pool.Query(ctx, `
		WITH e AS (
			SELECT day, project_id, sum(cpu_ec_micro) AS cpu_ec, sum(gpu_ec_micro) AS gpu_ec,
				sum(cpu_time_micro) AS cpu_time, sum(gpu_time_micro) AS gpu_time,
				sum(njobs_success) AS ok, sum(njobs_error) AS err,
				sum(clamped_cpu_ec_micro + clamped_gpu_ec_micro) AS clamped
			FROM ledger_by_volunteer
			WHERE user_id = @user AND day BETWEEN @from::date AND @to::date AND (@host = 0 OR host_id = @host)
			GROUP BY day, project_id),
		c AS (
			SELECT day, project_id, sum(granted_micro) AS granted
			FROM confirmed_by_volunteer
			WHERE user_id = @user AND day BETWEEN @from::date AND @to::date AND (@host = 0 OR host_id = @host)
			GROUP BY day, project_id)
		SELECT day::timestamp AT TIME ZONE 'UTC' AS day, project_id, p.name AS project_name,
			coalesce(e.cpu_ec, 0)::float8 / 1e6 AS cpu_ec, coalesce(e.gpu_ec, 0)::float8 / 1e6 AS gpu_ec,
			coalesce(e.cpu_time, 0)::float8 / 3.6e9 AS cpu_hours, coalesce(e.gpu_time, 0)::float8 / 3.6e9 AS gpu_hours,
			coalesce(e.ok, 0)::bigint AS jobs_ok, coalesce(e.err, 0)::bigint AS jobs_error,
			coalesce(e.clamped, 0)::float8 / 1e6 AS clamped, coalesce(c.granted, 0)::float8 / 1e6 AS confirmed
		FROM e FULL JOIN c USING (day, project_id) JOIN projects p ON p.id = project_id
		ORDER BY day, p.name, project_id`, // float8: a numeric reads through math/big
		pgx.NamedArgs{"user": userID, "host": hostID, "from": from, "to": to})
	days, err := pgx.CollectRows(rows, pgx.RowToStructByName[HistoryDay])
	return days, op("history", err)
}

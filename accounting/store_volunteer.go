package accounting

import (
	"context"
	"strings"
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
		days AS (`+volunteerDays+`),
		est AS (
			SELECT p.i, sum(l.cpu_ec_micro + l.gpu_ec_micro) AS ec, sum(l.cpu_time_micro) AS cpu,
				sum(l.gpu_time_micro) AS gpu, sum(l.njobs_success) AS ok, sum(l.njobs_error) AS err,
				sum(l.clamped_cpu_ec_micro + l.clamped_gpu_ec_micro) AS clamped
			FROM periods p JOIN days l ON l.day BETWEEN p.d0 AND p.d1
			WHERE p.i < 4 GROUP BY p.i
			UNION ALL
			SELECT 4, sum(total_cpu_ec_micro + total_gpu_ec_micro), sum(total_cpu_time_micro),
				sum(total_gpu_time_micro), sum(total_njobs_success), sum(total_njobs_error), 0
			FROM host_projects WHERE user_id = @user),
		conf AS (
			SELECT p.i, sum(c.granted_micro) AS granted
			FROM periods p JOIN days c ON c.day BETWEEN p.d0 AND p.d1
			GROUP BY p.i)
		SELECT coalesce(est.ec, 0) / 1e6 AS estimated, coalesce(conf.granted, 0) / 1e6 AS confirmed,
			coalesce(est.cpu, 0) / 3.6e9 AS cpu_hours, coalesce(est.gpu, 0) / 3.6e9 AS gpu_hours,
			coalesce(est.ok, 0)::bigint AS jobs_ok, coalesce(est.err, 0)::bigint AS jobs_error,
			coalesce(est.clamped, 0) / 1e6 AS clamped
		FROM periods p LEFT JOIN est USING (i) LEFT JOIN conf USING (i) ORDER BY p.i`,
		pgx.NamedArgs{"user": userID, "today": today, "from": time.Time{}, "to": today.AddDate(0, 0, 1)})
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
	sums := `sum(cpu_ec_micro)::float8 / 1e6 AS cpu_ec, sum(gpu_ec_micro)::float8 / 1e6 AS gpu_ec,
		sum(cpu_time_micro)::float8 / 3.6e9 AS cpu_hours, sum(gpu_time_micro)::float8 / 3.6e9 AS gpu_hours,
		sum(njobs_success)::bigint AS jobs_ok, sum(njobs_error)::bigint AS jobs_error,
		sum(clamped_cpu_ec_micro + clamped_gpu_ec_micro)::float8 / 1e6 AS clamped,
		sum(granted_micro)::float8 / 1e6 AS confirmed` // float8: a numeric reads through math/big
	days := volunteerDays
	if hostID != 0 {
		// One computer's rows (the retired months' totals are host 0's).
		days = `SELECT project_id, day, ` + strings.Join(volunteerColumns, ", ") + `, 0 AS granted_micro, 1 AS hosts
			FROM ledger WHERE user_id = @user AND host_id = @host AND day BETWEEN @from::date AND @to::date
			UNION ALL
			SELECT project_id, day, ` + zeroVolunteerColumns() + `, granted_micro, 0 AS hosts
			FROM confirmed_ledger WHERE user_id = @user AND host_id = @host AND day BETWEEN @from::date AND @to::date`
	}
	rows, _ := s.pool.Query(ctx, `
		SELECT l.day::timestamp AT TIME ZONE 'UTC' AS day, l.project_id, p.name AS project_name, `+sums+`
		FROM (`+days+`) l JOIN projects p ON p.id = l.project_id
		GROUP BY l.day, l.project_id, p.name
		ORDER BY l.day, p.name, l.project_id`,
		pgx.NamedArgs{"user": userID, "host": hostID, "from": from, "to": to})
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[HistoryDay])
	return out, op("history", err)
}

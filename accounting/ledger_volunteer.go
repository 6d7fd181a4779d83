package accounting

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// volunteerDays is a query of @user's ledger and confirmed ledger on the
// days @from–@to (inclusive): rows of project_id, day, volunteerColumns,
// granted_micro and hosts (computers with a ledger row), several to a
// (project, day), to be summed. Each day comes from where it is exact:
//   - a settled day (before @settled, from @kept on, and not in @dirty)
//     from rollup_volunteer_days, a row per project;
//   - a retired day (before @kept) from ledger_volunteer_days, and from
//     the ledger for the rows that arrived after its month was retired;
//   - any other day (recent, or marked) from the ledger's rows, one per
//     computer and project.
//
// So a year of a volunteer with ten computers reads about a thousand rows
// rather than ten thousand. retired, rolled and marked say whether there
// are retired months, whether a rollup round has run, and whether days
// are marked; the bounds are parameters, known when PostgreSQL plans the
// statement, so that it reads only the month partitions each part needs.
// Each part is a range of (user_id, day), which the indexes serve; an OR
// of them would not be.
func volunteerDays(retired, rolled, marked bool) string {
	cols := strings.Join(volunteerColumns, ", ")
	within := `user_id = @user AND day BETWEEN @from::date AND @to::date`
	kept := ""
	if retired {
		kept = ` AND day >= @kept::date`
	}
	var parts, live []string
	if retired {
		parts = append(parts, `SELECT project_id, day, `+cols+`, granted_micro, hosts FROM ledger_volunteer_days WHERE `+within)
	}
	switch {
	case rolled:
		settled := `SELECT project_id, day, ` + cols + `, granted_micro, hosts FROM rollup_volunteer_days
			WHERE ` + within + kept + ` AND day < @settled::date`
		if marked {
			settled += ` AND day <> ALL (@dirty::date[])`
			live = append(live, `day = ANY (@dirty::date[]) AND day < @settled::date`+kept)
		}
		parts = append(parts, settled)
		live = append(live, `day >= @settled::date`)
		if retired {
			live = append(live, `day < least(@kept::date, @settled::date)`)
		}
	default:
		live = append(live, `true`)
	}
	for _, days := range live {
		parts = append(parts,
			`SELECT project_id, day, `+cols+`, 0 AS granted_micro, 1 AS hosts FROM ledger WHERE `+within+` AND `+days,
			`SELECT project_id, day, `+zeroVolunteerColumns()+`, granted_micro, 0 AS hosts FROM confirmed_ledger
			WHERE `+within+` AND `+days)
	}
	return strings.Join(parts, "\n\t\tUNION ALL\n\t\t")
}

// readVolunteerDays calls read with a volunteerDays query for @user's days
// @from–@to, in one read-only snapshot in which the bounds of the
// settled days were read, and args completed with those bounds. Run its
// statements with pgx.QueryExecModeExec, planned for the bounds each time.
func (s *LedgerStore) readVolunteerDays(ctx context.Context, args pgx.NamedArgs, read func(tx pgx.Tx, days string) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			var kept, settled *time.Time
			var dirty []time.Time
			if err := tx.QueryRow(ctx, `
				SELECT nullif(ledger_detail_from(), '-infinity'), nullif(rollup_settled_before(), '-infinity'),
					array(SELECT day FROM ledger_dirty_days)`).Scan(&kept, &settled, &dirty); err != nil {
				return err
			}
			args["kept"], args["settled"], args["dirty"] = kept, settled, dirty
			return read(tx, volunteerDays(kept != nil, settled != nil, len(dirty) > 0))
		})
}

// Today returns the calendar day of now in the named time zone (UTC when
// the name is unknown), as midnight UTC: the ledger's day key.
func (s *LedgerStore) Today(now time.Time, timeZone string) time.Time {
	y, m, d := now.In(s.location(timeZone)).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Summary returns a volunteer's totals for today, yesterday, the last 7 and
// 30 days (today included) and all time. today is a day from Today.
// All-time estimates come from each (computer, project)'s lifetime totals,
// which equal the sums of their ledger rows (cobble ledger rebuild keeps
// them so), so that years of history cost no more than a month;
// AllTime.Clamped is not computed (0).
func (s *LedgerStore) Summary(ctx context.Context, userID int64, today time.Time) (Summary, error) {
	// All time: the confirmed credit of every day, whatever its date.
	args := pgx.NamedArgs{"user": userID, "today": today, "from": time.Time{}, "to": time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)}
	var ts []Totals
	err := s.readVolunteerDays(ctx, args, func(tx pgx.Tx, days string) error {
		rows, _ := tx.Query(ctx, `
		WITH periods (i, d0, d1) AS (VALUES
			(0, @today::date, @today::date), (1, @today::date - 1, @today::date - 1),
			(2, @today::date - 6, @today::date), (3, @today::date - 29, @today::date),
			(4, '-infinity'::date, 'infinity'::date)),
		days AS (`+days+`),
		est AS (
			SELECT p.i, sum(`+CreditSQL("l.")+`) AS ec, sum(l.cpu_time_micro) AS cpu,
				sum(l.gpu_time_micro) AS gpu, sum(l.njobs_success) AS ok, sum(l.njobs_error) AS err,
				sum(`+CreditSQL("l.clamped_")+`) AS clamped
			FROM periods p JOIN days l ON l.day BETWEEN p.d0 AND p.d1
			WHERE p.i < 4 GROUP BY p.i
			UNION ALL
			SELECT 4, sum(`+CreditSQL("total_")+`), sum(total_cpu_time_micro),
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
		FROM periods p LEFT JOIN est USING (i) LEFT JOIN conf USING (i) ORDER BY p.i`, pgx.QueryExecModeExec, args)
		var err error
		ts, err = pgx.CollectRows(rows, pgx.RowToStructByName[Totals])
		return err
	})
	if err != nil {
		return Summary{}, op("summary", err)
	}
	return Summary{Today: ts[0], Yesterday: ts[1], Last7: ts[2], Last30: ts[3], AllTime: ts[4]}, nil
}

// History returns a volunteer's ledger from–to (inclusive) by day and
// project, oldest day first, projects by name; days without estimated or
// confirmed credit are left out. hostID 0 means all the volunteer's
// computers, over the whole history; one computer's history covers the
// months whose per-host detail is kept (--ledger-detail-months). Another
// volunteer's host yields nothing.
func (s *LedgerStore) History(ctx context.Context, userID, hostID int64, from, to time.Time) ([]HistoryDay, error) {
	sums := `sum(cpu_ec_micro)::float8 / 1e6 AS cpu_ec, sum(gpu_ec_micro)::float8 / 1e6 AS gpu_ec,
		sum(cpu_time_micro)::float8 / 3.6e9 AS cpu_hours, sum(gpu_time_micro)::float8 / 3.6e9 AS gpu_hours,
		sum(njobs_success)::bigint AS jobs_ok, sum(njobs_error)::bigint AS jobs_error,
		sum(` + CreditSQL("clamped_") + `)::float8 / 1e6 AS clamped,
		sum(granted_micro)::float8 / 1e6 AS confirmed` // float8: a numeric reads through math/big
	query := func(days string) string {
		return `SELECT l.day::timestamp AT TIME ZONE 'UTC' AS day, l.project_id, p.name AS project_name, ` + sums + `
			FROM (` + days + `) l JOIN projects p ON p.id = l.project_id
			GROUP BY l.day, l.project_id, p.name
			ORDER BY l.day, p.name, l.project_id`
	}
	args := pgx.NamedArgs{"user": userID, "host": hostID, "from": from, "to": to}
	if hostID == 0 {
		var out []HistoryDay
		err := s.readVolunteerDays(ctx, args, func(tx pgx.Tx, days string) error {
			rows, _ := tx.Query(ctx, query(days), pgx.QueryExecModeExec, args)
			var err error
			out, err = pgx.CollectRows(rows, pgx.RowToStructByName[HistoryDay])
			return err
		})
		return out, op("history", err)
	}
	// One computer's rows (the retired months' totals are host 0's).
	rows, _ := s.pool.Query(ctx, query(`
		SELECT project_id, day, `+strings.Join(volunteerColumns, ", ")+`, 0 AS granted_micro, 1 AS hosts
		FROM ledger WHERE user_id = @user AND host_id = @host AND day BETWEEN @from::date AND @to::date
		UNION ALL
		SELECT project_id, day, `+zeroVolunteerColumns()+`, granted_micro, 0 AS hosts
		FROM confirmed_ledger WHERE user_id = @user AND host_id = @host AND day BETWEEN @from::date AND @to::date`), args)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[HistoryDay])
	return out, op("history", err)
}

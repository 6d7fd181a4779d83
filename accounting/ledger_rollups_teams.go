package accounting

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The teams' rollup: rollup_team_days holds, per team and settled day,
// the sum of rollup_volunteer_days over the volunteers who were members
// that day (first_day <= day < until_day, in the volunteer's days as the
// ledger), and each team's row in teams its totals and recent average.
// The rollup round folds the teams' days with the volunteers' settled
// days (foldRecent), RebuildRollups folds them all, and rollupDifferences
// compares them with the ledger and the memberships.
//
// A membership changes only on the volunteer's today: joining makes
// (today, NULL), leaving sets until_day = today or deletes a row that
// began today (teams_members.go). The volunteer's today is at least the
// day before today in UTC (the time zones go to UTC−12), and a round
// settles only the days from two days before its own UTC day
// (settledBefore), so no change of a membership touches a day already
// folded: a settled team day never moves when someone joins or leaves.
// The one change that does reach settled days is an account's deletion,
// which removes its ledger rows and its memberships together; the
// ledger's delete trigger marks the rows' days (ledger_dirty_days), and
// the round folds them again, the teams' rows with them. A deleted team
// takes its rows with it (ON DELETE CASCADE).

// teamWant is a query of what rollup_team_days should hold from the
// per-volunteer rows "r" of the query volunteers (columns user_id, day,
// ec_micro and granted_micro): one row per team and day with the columns
// team_id, day, ec_micro, granted_micro.
func teamWant(volunteers string) string {
	return `SELECT m.team_id, r.day, sum(r.ec_micro)::bigint AS ec_micro,
			sum(r.granted_micro)::bigint AS granted_micro
		FROM (` + volunteers + `) r JOIN team_members m ON m.user_id = r.user_id
			AND r.day >= m.first_day AND (m.until_day IS NULL OR r.day < m.until_day)
		GROUP BY m.team_id, r.day`
}

// rolledVolunteers is a query of rollup_volunteer_days' rows on the days
// the predicate days selects, with the columns teamWant reads.
func rolledVolunteers(days string) string {
	return `SELECT user_id, day, ` + CreditSQL("") + ` AS ec_micro, granted_micro FROM rollup_volunteer_days WHERE ` + days
}

// foldTeams makes rollup_team_days hold the sums of rollup_volunteer_days
// for days (settled days, which the per-volunteer rollup has just
// folded), writing only the rows that changed; it moves the changed
// teams' totals by the difference, in the same statement, and refreshes
// the recent average and 30 days of the teams whose confirmed credit
// changed. When the round settles a new day (newDay), the 30 days of
// every team move on.
func foldTeams(ctx context.Context, tx pgx.Tx, days []time.Time, now time.Time, newDay bool) error {
	var teams []int64
	if len(days) > 0 {
		const where = `day = ANY(@days::date[]) AND day >= ledger_detail_from()`
		rows, _ := tx.Query(ctx, `
			WITH want AS MATERIALIZED (`+teamWant(rolledVolunteers(where))+`),
			old AS MATERIALIZED (SELECT team_id, day, ec_micro, granted_micro FROM rollup_team_days WHERE `+where+`),
			delta AS MATERIALIZED (
				SELECT team_id, sum(coalesce(w.ec_micro, 0) - coalesce(o.ec_micro, 0))::bigint AS ec_micro,
					sum(coalesce(w.granted_micro, 0) - coalesce(o.granted_micro, 0))::bigint AS granted_micro,
					bool_or(coalesce(w.granted_micro, 0) <> coalesce(o.granted_micro, 0)) AS confirmed
				FROM want w FULL JOIN old o USING (team_id, day)
				GROUP BY team_id),
			changed AS (
				INSERT INTO rollup_team_days AS t (team_id, day, ec_micro, granted_micro)
				SELECT team_id, day, ec_micro, granted_micro FROM want
				ON CONFLICT (team_id, day) DO UPDATE SET ec_micro = EXCLUDED.ec_micro, granted_micro = EXCLUDED.granted_micro
				WHERE (t.ec_micro, t.granted_micro) IS DISTINCT FROM (EXCLUDED.ec_micro, EXCLUDED.granted_micro)),
			gone AS (
				DELETE FROM rollup_team_days t WHERE t.`+where+`
					AND NOT EXISTS (SELECT 1 FROM want w WHERE w.team_id = t.team_id AND w.day = t.day)),
			totals AS (
				UPDATE teams t SET ec_micro = t.ec_micro + d.ec_micro, granted_micro = t.granted_micro + d.granted_micro
				FROM delta d WHERE t.id = d.team_id AND (d.ec_micro <> 0 OR d.granted_micro <> 0))
			SELECT team_id FROM delta WHERE confirmed`,
			pgx.QueryExecModeExec, pgx.NamedArgs{"days": days})
		var err error
		if teams, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
			return err
		}
	}
	if len(teams) > 0 {
		if err := refreshAverages(ctx, tx, teams, now); err != nil {
			return err
		}
	}
	switch {
	case newDay:
		return refreshLast30(ctx, tx, nil, now)
	case len(teams) > 0:
		return refreshLast30(ctx, tx, teams, now)
	}
	return nil
}

// refreshTotals sets every team's totals from its rollup_team_days rows.
func refreshTotals(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `
		UPDATE teams t SET ec_micro = coalesce(s.ec, 0), granted_micro = coalesce(s.granted, 0)
		FROM teams x LEFT JOIN (
			SELECT team_id, sum(ec_micro)::bigint AS ec, sum(granted_micro)::bigint AS granted
			FROM rollup_team_days GROUP BY team_id) s ON s.team_id = x.id
		WHERE t.id = x.id AND (t.ec_micro, t.granted_micro) IS DISTINCT FROM (coalesce(s.ec, 0), coalesce(s.granted, 0))`)
	return err
}

// averageSQL is, per team of the rows of rollup_team_days that the
// predicate @which selects, RecentAverage of its confirmed credit as of
// @now (epoch seconds): BOINC's recursion over the days with credit, each
// granted at its day's end, unrolled into a sum, each day's part decayed
// from its end to now. The first day's part is its credit (the rate over
// its day); a later one's is (1 − w)·c/Δ, Δ the days since the day with
// credit before and w = exp(−λΔ). exp is bounded below, where
// PostgreSQL's would underflow; such a part is nothing anyway. Days that
// have not ended by now (from @today on) are left out.
const averageSQL = `
	SELECT team_id, sum(CASE WHEN gap IS NULL THEN c ELSE (1 - exp(-@lambda::float8 * 86400 * gap)) * c / gap END
		* exp(greatest(-@lambda::float8 * (@now::float8 - (day - DATE '1970-01-01' + 1)::float8 * 86400), -700))) AS avg
	FROM (SELECT team_id, day, granted_micro::float8 / 1e6 AS c,
			day - lag(day) OVER (PARTITION BY team_id ORDER BY day) AS gap
		FROM rollup_team_days WHERE @which AND granted_micro <> 0 AND day < @today::date) d
	GROUP BY team_id`

// refreshAverages sets the recent average of the teams (every team when
// teams is nil) as of now.
func refreshAverages(ctx context.Context, tx pgx.Tx, teams []int64, now time.Time) error {
	const which = `(@all OR team_id = ANY(@teams::bigint[]))`
	_, err := tx.Exec(ctx, `
		UPDATE teams t SET expavg = coalesce(a.avg, 0), expavg_time = CASE WHEN a.avg IS NOT NULL THEN @at::timestamptz END
		FROM teams x LEFT JOIN (`+strings.Replace(averageSQL, "@which", which, 1)+`) a ON a.team_id = x.id
		WHERE t.id = x.id AND (@all OR x.id = ANY(@teams::bigint[]))`,
		pgx.NamedArgs{"all": teams == nil, "teams": teams, "at": now, "now": float64(now.UnixNano()) / 1e9,
			"today": CivilDay(now.UTC()), "lambda": math.Ln2 / avgHalfLife.Seconds()})
	return err
}

// refreshLast30 sets the confirmed credit of the 30 days up to the last
// settled one, once now's round is recorded, of the teams (every team
// when teams is nil), for the boards.
func refreshLast30(ctx context.Context, tx pgx.Tx, teams []int64, now time.Time) error {
	_, err := tx.Exec(ctx, `
		UPDATE teams t SET granted_30d_micro = coalesce(s.granted, 0)
		FROM teams x LEFT JOIN (
			SELECT team_id, sum(granted_micro)::bigint AS granted FROM rollup_team_days
			WHERE day >= @settled::date - 30 AND day < @settled::date AND (@all OR team_id = ANY(@teams::bigint[]))
			GROUP BY team_id) s ON s.team_id = x.id
		WHERE t.id = x.id AND (@all OR x.id = ANY(@teams::bigint[]))
			AND t.granted_30d_micro <> coalesce(s.granted, 0)`,
		pgx.NamedArgs{"all": teams == nil, "teams": teams, "settled": settledBefore(now)})
	return err
}

// rebuildTeams folds every detailed settled day of the teams again (a
// retired day's rows stay as they were, as the other rollups' do), from
// rollup_volunteer_days as RebuildRollups just made it, and refreshes
// every team.
func rebuildTeams(ctx context.Context, tx pgx.Tx, now time.Time) error {
	args := pgx.NamedArgs{"settled": settledBefore(now)}
	if _, err := tx.Exec(ctx, `DELETE FROM rollup_team_days WHERE day >= ledger_detail_from()`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO rollup_team_days (team_id, day, ec_micro, granted_micro) `+
		teamWant(rolledVolunteers(`day >= ledger_detail_from() AND day < @settled`)), args); err != nil {
		return err
	}
	if err := refreshTotals(ctx, tx); err != nil {
		return err
	}
	if err := refreshAverages(ctx, tx, nil, now); err != nil {
		return err
	}
	return refreshLast30(ctx, tx, nil, now)
}

// teamDifferences compares rollup_team_days with the ledger summed over
// the memberships, for every day that is not pending the next round
// (rollupPending), and each team's totals with its rows; it returns each
// differing column (at most limit), with TeamID set.
func teamDifferences(ctx context.Context, tx pgx.Tx, limit int) ([]RollupDifference, error) {
	rows, _ := tx.Query(ctx, fmt.Sprintf(`
		SELECT coalesce(r.team_id, l.team_id), coalesce(r.day, l.day)::timestamp AT TIME ZONE 'UTC',
			v.name, coalesce(v.r, -1), coalesce(v.l, -1)
		FROM rollup_team_days r FULL JOIN (%s) l ON l.team_id = r.team_id AND l.day = r.day,
			LATERAL (VALUES ('ec_micro', r.ec_micro, l.ec_micro), ('granted_micro', r.granted_micro, l.granted_micro))
				AS v (name, r, l)
		WHERE v.r IS DISTINCT FROM v.l AND NOT %s
		UNION ALL
		SELECT t.id, NULL, v.name, v.r, v.l
		FROM teams t LEFT JOIN (SELECT team_id, sum(ec_micro)::bigint AS ec, sum(granted_micro)::bigint AS granted
			FROM rollup_team_days GROUP BY team_id) s ON s.team_id = t.id,
			LATERAL (VALUES ('total_ec_micro', t.ec_micro, coalesce(s.ec, 0)),
				('total_granted_micro', t.granted_micro, coalesce(s.granted, 0)),
				('30d_granted_micro', t.granted_30d_micro, (SELECT coalesce(sum(r.granted_micro), 0)::bigint
					FROM rollup_team_days r WHERE r.team_id = t.id
					AND r.day >= rollup_settled_before() - 30 AND r.day < rollup_settled_before()))) AS v (name, r, l)
		WHERE v.r <> v.l
		ORDER BY 2 NULLS LAST, 1, 3 LIMIT %d`,
		teamWant(`SELECT v.user_id, v.day, `+CreditSQL("v.")+` AS ec_micro, v.granted_micro FROM (`+
			volunteerFromLedger("true")+`) v`), fmt.Sprintf(rollupPending, "coalesce(r.day, l.day)"), limit))
	var d RollupDifference
	var day *time.Time
	var out []RollupDifference
	_, err := pgx.ForEachRow(rows, []any{&d.TeamID, &day, &d.Column, &d.Rollup, &d.Ledger}, func() error {
		d.Day = time.Time{}
		if day != nil {
			d.Day = day.UTC()
		}
		out = append(out, d)
		return nil
	})
	return out, err
}

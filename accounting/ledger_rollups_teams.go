package accounting

import (
	"context"
	"fmt"
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
// folded), writing only the rows that changed, and refreshes the totals
// and recent average of the teams whose rows changed. When the round
// settles a new day (newDay), the 30 days of every team move on.
func foldTeams(ctx context.Context, tx pgx.Tx, days []time.Time, now time.Time, newDay bool) error {
	var teams []int64
	if len(days) > 0 {
		rows, _ := tx.Query(ctx, `
			WITH want AS MATERIALIZED (`+teamWant(rolledVolunteers(`day = ANY(@days::date[]) AND day >= ledger_detail_from()`))+`),
			changed AS (
				INSERT INTO rollup_team_days AS t (team_id, day, ec_micro, granted_micro)
				SELECT team_id, day, ec_micro, granted_micro FROM want
				ON CONFLICT (team_id, day) DO UPDATE SET ec_micro = EXCLUDED.ec_micro, granted_micro = EXCLUDED.granted_micro
				WHERE (t.ec_micro, t.granted_micro) IS DISTINCT FROM (EXCLUDED.ec_micro, EXCLUDED.granted_micro)
				RETURNING t.team_id),
			gone AS (
				DELETE FROM rollup_team_days t WHERE t.day = ANY(@days::date[]) AND t.day >= ledger_detail_from()
					AND NOT EXISTS (SELECT 1 FROM want w WHERE w.team_id = t.team_id AND w.day = t.day)
				RETURNING t.team_id)
			SELECT team_id FROM changed UNION SELECT team_id FROM gone`,
			pgx.QueryExecModeExec, pgx.NamedArgs{"days": days})
		var err error
		if teams, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
			return err
		}
	}
	if len(teams) > 0 {
		if err := refreshTeams(ctx, tx, teams, now); err != nil {
			return err
		}
	}
	if newDay {
		teams = nil // every team's 30 days
	}
	if len(teams) == 0 && !newDay {
		return nil
	}
	return refreshLast30(ctx, tx, teams, now)
}

// refreshTeams sets the totals of the teams (of every team when teams is
// nil) from their rollup_team_days rows, and their recent average as of
// now (RecentAverage of the confirmed credit).
func refreshTeams(ctx context.Context, tx pgx.Tx, teams []int64, now time.Time) error {
	const which = `(@all OR team_id = ANY(@teams::bigint[]))`
	args := pgx.NamedArgs{"all": teams == nil, "teams": teams}
	if _, err := tx.Exec(ctx, `
		UPDATE teams t SET ec_micro = coalesce(s.ec, 0), granted_micro = coalesce(s.granted, 0)
		FROM teams x LEFT JOIN (
			SELECT team_id, sum(ec_micro)::bigint AS ec, sum(granted_micro)::bigint AS granted
			FROM rollup_team_days WHERE `+which+` GROUP BY team_id) s ON s.team_id = x.id
		WHERE t.id = x.id AND (@all OR x.id = ANY(@teams::bigint[]))`, args); err != nil {
		return err
	}
	rows, _ := tx.Query(ctx, `
		SELECT team_id, day::timestamp AT TIME ZONE 'UTC', granted_micro / 1e6 FROM rollup_team_days
		WHERE `+which+` AND granted_micro <> 0 ORDER BY team_id, day`, args)
	histories := map[int64][]TeamDay{}
	var id int64
	var d TeamDay
	if _, err := pgx.ForEachRow(rows, []any{&id, &d.Day, &d.Confirmed}, func() error {
		histories[id] = append(histories[id], d)
		return nil
	}); err != nil {
		return err
	}
	var ids []int64
	var avgs []float64
	var ats []*time.Time
	for id, days := range histories {
		avg, at := RecentAverage(days, now)
		ids, avgs = append(ids, id), append(avgs, avg)
		if at.IsZero() {
			ats = append(ats, nil)
		} else {
			ats = append(ats, &at)
		}
	}
	_, err := tx.Exec(ctx, `
		UPDATE teams t SET expavg = coalesce(a.avg, 0), expavg_time = a.at
		FROM teams x LEFT JOIN unnest(@ids::bigint[], @avgs::float8[], @ats::timestamptz[]) AS a (id, avg, at)
			ON a.id = x.id
		WHERE t.id = x.id AND (@all OR x.id = ANY(@teams::bigint[]))`,
		pgx.NamedArgs{"all": teams == nil, "teams": teams, "ids": ids, "avgs": avgs, "ats": ats})
	return err
}

// last30SQL is the confirmed credit of the team "x" on the 30 days
// before the day @settled, the first unsettled day.
const last30SQL = `(SELECT coalesce(sum(r.granted_micro), 0)::bigint FROM rollup_team_days r
	WHERE r.team_id = x.id AND r.day >= @settled::date - 30 AND r.day < @settled::date)`

// refreshLast30 sets the confirmed credit of the 30 days up to the last
// settled one, once now's round is recorded, of the teams (every team
// when teams is nil), for the boards.
func refreshLast30(ctx context.Context, tx pgx.Tx, teams []int64, now time.Time) error {
	_, err := tx.Exec(ctx, `
		UPDATE teams t SET granted_30d_micro = `+last30SQL+` FROM teams x
		WHERE t.id = x.id AND (@all OR x.id = ANY(@teams::bigint[])) AND t.granted_30d_micro <> `+last30SQL,
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
	if err := refreshTeams(ctx, tx, nil, now); err != nil {
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

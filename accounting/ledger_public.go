package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Reads of the rollups alone, for what a volunteer makes public (the
// profile, the badge, the leaderboards and the certificates): the settled
// days, from rollup_volunteer_days where the per-host detail is kept and
// from ledger_volunteer_days for the retired months. They never read the
// ledger, so their cost does not grow with its rows; the days since the
// last rollup round are left out (RolledThrough).

// rolledDays selects user_id, project_id, day, estimated and confirmed
// credit (in millionths) of the volunteers @users on the days @from–@to.
var rolledDays = `
	SELECT user_id, project_id, day, ` + CreditSQL("") + ` AS ec_micro, granted_micro
	FROM rollup_volunteer_days
	WHERE user_id = ANY (@users::bigint[]) AND day BETWEEN @from::date AND @to::date
		AND day >= (SELECT ledger_detail_from())
	UNION ALL
	SELECT user_id, project_id, day, ` + CreditSQL("") + `, granted_micro
	FROM ledger_volunteer_days
	WHERE user_id = ANY (@users::bigint[]) AND day BETWEEN @from::date AND @to::date
		AND day < (SELECT ledger_detail_from())`

// rolledArgs are the arguments of rolledDays.
func rolledArgs(users []int64, from, to time.Time) pgx.NamedArgs {
	return pgx.NamedArgs{"users": users, "from": from, "to": to}
}

// RolledThrough returns the last day the rollups hold for volunteers (the
// day before the first unsettled one), or the zero time before the first
// rollup round.
func (s *LedgerStore) RolledThrough(ctx context.Context) (time.Time, error) {
	var settled *time.Time
	err := s.pool.QueryRow(ctx, `SELECT nullif(rollup_settled_before(), '-infinity')::timestamp AT TIME ZONE 'UTC'`).
		Scan(&settled)
	if err != nil || settled == nil {
		return time.Time{}, op("rolled through", err)
	}
	return settled.UTC().AddDate(0, 0, -1), nil
}

// RolledProjects returns a volunteer's credit per project on the days
// from–to (inclusive), largest confirmed first, from the rollups.
func (s *LedgerStore) RolledProjects(ctx context.Context, userID int64, from, to time.Time) ([]RolledProject, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT r.project_id, p.name, p.keywords, sum(r.ec_micro)::float8 / 1e6 AS estimated,
			sum(r.granted_micro)::float8 / 1e6 AS confirmed
		FROM (`+rolledDays+`) r JOIN projects p ON p.id = r.project_id
		GROUP BY r.project_id, p.name, p.keywords
		HAVING sum(r.ec_micro) > 0 OR sum(r.granted_micro) > 0
		ORDER BY confirmed DESC, estimated DESC, p.name`, rolledArgs([]int64{userID}, from, to))
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[RolledProject])
	return ps, op("rolled projects", err)
}

// RolledDays returns a volunteer's credit per day from–to (inclusive),
// oldest first, days without credit left out, from the rollups.
func (s *LedgerStore) RolledDays(ctx context.Context, userID int64, from, to time.Time) ([]RolledDay, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT day::timestamp AT TIME ZONE 'UTC' AS day, sum(ec_micro)::float8 / 1e6 AS estimated,
			sum(granted_micro)::float8 / 1e6 AS confirmed
		FROM (`+rolledDays+`) r
		GROUP BY day HAVING sum(ec_micro) > 0 OR sum(granted_micro) > 0
		ORDER BY day`, rolledArgs([]int64{userID}, from, to))
	days, err := pgx.CollectRows(rows, pgx.RowToStructByName[RolledDay])
	return days, op("rolled days", err)
}

// RolledShares returns the confirmed credit of each of the volunteers
// users per project on the days from–to (inclusive), from the rollups;
// pairs without confirmed credit are left out.
func (s *LedgerStore) RolledShares(ctx context.Context, users []int64, from, to time.Time) ([]RolledShare, error) {
	if len(users) == 0 {
		return nil, nil
	}
	rows, _ := s.pool.Query(ctx, `
		SELECT user_id, project_id, sum(granted_micro)::float8 / 1e6 AS confirmed
		FROM (`+rolledDays+`) r
		GROUP BY user_id, project_id HAVING sum(granted_micro) > 0`, rolledArgs(users, from, to))
	shares, err := pgx.CollectRows(rows, pgx.RowToStructByName[RolledShare])
	return shares, op("rolled shares", err)
}

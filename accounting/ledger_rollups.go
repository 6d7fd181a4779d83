package accounting

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The rollups: the ledger and the confirmed ledger summed per (project,
// day) in rollup_project_days, per day in rollup_days, and per (volunteer,
// project, day) in rollup_volunteer_days, which is kept for the settled
// days only (see volunteerDays). The periodic
// rollup (LedgerStore.Rollup) folds again, from the ledger, the days that may
// have changed: the recent ones, from the day before its previous round's
// (so that rounds missed by a stopped service are caught up), and those
// marked in ledger_dirty_days. Marks come from the writers of older days:
// an RPC that spreads credit back over days before yesterday (rare; it
// adds one statement to the RPC's batch, no round trip), a reconciliation's
// confirmed credit, and deletions (a trigger). Folding at most a few days
// a minute keeps the write path free of rollup rows, which every RPC of a
// project and day would otherwise update in turn.

// rollupColumns are the rollups' sums, in order, with the ledger
// expressions they sum (over the ledger rows "l" of a project and day).
var rollupColumns = []struct{ name, ledger string }{
	{"ec_micro", CreditSQL("l.")},
	{"time_micro", "l.cpu_time_micro + l.gpu_time_micro"},
	{"njobs_success", "l.njobs_success"},
	{"njobs_error", "l.njobs_error"},
	{"clamped_ec_micro", CreditSQL("l.clamped_")},
	{"clamped_time_micro", "l.clamped_cpu_time_micro + l.clamped_gpu_time_micro"},
	{"clamped_njobs", "l.clamped_njobs_success + l.clamped_njobs_error"},
}

// rollupFromLedger is a query of what rollup_project_days should hold for
// the days that the predicate days (on a column "day") selects: one row
// per (project, day) with the columns project_id, day, the rollupColumns,
// granted_micro and hosts. A host has one ledger row a project and day
// (its primary key), so a count of rows counts hosts, without the sort
// of a count(DISTINCT).
func rollupFromLedger(days string) string {
	var sums, outer []string
	for _, c := range rollupColumns {
		sums = append(sums, fmt.Sprintf("sum(%s)::bigint AS %s", c.ledger, c.name))
		outer = append(outer, fmt.Sprintf("coalesce(l.%s, 0) AS %s", c.name, c.name))
	}
	return fmt.Sprintf(`
		SELECT coalesce(l.project_id, c.project_id) AS project_id, coalesce(l.day, c.day) AS day, %s,
			coalesce(c.granted_micro, 0) AS granted_micro, coalesce(l.hosts, 0) AS hosts
		FROM (SELECT l.project_id, l.day, %s, count(*) AS hosts
			FROM ledger l WHERE %s GROUP BY l.project_id, l.day) l
		FULL JOIN (SELECT project_id, day, sum(granted_micro)::bigint AS granted_micro
			FROM confirmed_ledger WHERE %s GROUP BY project_id, day) c
		ON c.project_id = l.project_id AND c.day = l.day`,
		strings.Join(outer, ", "), strings.Join(sums, ", "), days, days)
}

// rollupNames is the rollups' column list after project_id/day.
func rollupNames() string {
	var names []string
	for _, c := range rollupColumns {
		names = append(names, c.name)
	}
	return strings.Join(append(names, "granted_micro", "hosts"), ", ")
}

// volunteerColumns are the ledger's columns that rollup_volunteer_days
// sums under the same names, in order: the six counters' credited
// amounts, then their clamped ones.
var volunteerColumns = func() []string {
	cs := make([]string, 0, 2*len(UsageFields))
	for _, f := range UsageFields {
		cs = append(cs, f.Column)
	}
	for _, f := range UsageFields {
		cs = append(cs, f.Clamped)
	}
	return cs
}()

// volunteerNames is rollup_volunteer_days' column list after
// user_id/project_id/day.
func volunteerNames() string {
	return strings.Join(append(slices.Clone(volunteerColumns), "granted_micro", "hosts"), ", ")
}

// volunteerFromLedger is a query of what rollup_volunteer_days should hold
// for the days that the predicate days (on a column "day") selects: one
// row per (volunteer, project, day) with the columns user_id, project_id,
// day, then volunteerNames. A host has one ledger row a project and day,
// so a count of rows counts hosts.
func volunteerFromLedger(days string) string {
	var sums, outer []string
	for _, c := range volunteerColumns {
		sums = append(sums, fmt.Sprintf("sum(%[1]s)::bigint AS %[1]s", c))
		outer = append(outer, fmt.Sprintf("coalesce(l.%[1]s, 0) AS %[1]s", c))
	}
	return fmt.Sprintf(`
		SELECT coalesce(l.user_id, c.user_id) AS user_id, coalesce(l.project_id, c.project_id) AS project_id,
			coalesce(l.day, c.day) AS day, %s,
			coalesce(c.granted_micro, 0) AS granted_micro, coalesce(l.hosts, 0) AS hosts
		FROM (SELECT user_id, project_id, day, %s, count(*) AS hosts
			FROM ledger WHERE %s GROUP BY user_id, project_id, day) l
		FULL JOIN (SELECT user_id, project_id, day, sum(granted_micro)::bigint AS granted_micro
			FROM confirmed_ledger WHERE %s GROUP BY user_id, project_id, day) c
		ON c.user_id = l.user_id AND c.project_id = l.project_id AND c.day = l.day`,
		strings.Join(outer, ", "), strings.Join(sums, ", "), days, days)
}

// zeroVolunteerColumns is a 0 for each of volunteerColumns, named as it.
func zeroVolunteerColumns() string {
	var zeros []string
	for _, c := range volunteerColumns {
		zeros = append(zeros, "0 AS "+c)
	}
	return strings.Join(zeros, ", ")
}

// upsertVolunteers is a query that makes rollup_volunteer_days hold
// want's rows for the days that the predicate days selects: it writes
// only the rows that changed, deletes those want lacks, and returns how
// many it wrote and deleted.
func upsertVolunteers(want, days string) string {
	var set, stored, excluded []string
	for _, c := range strings.Split(volunteerNames(), ", ") {
		set = append(set, fmt.Sprintf("%[1]s = EXCLUDED.%[1]s", c))
		stored, excluded = append(stored, "r."+c), append(excluded, "EXCLUDED."+c)
	}
	return fmt.Sprintf(`
		WITH want AS MATERIALIZED (%[1]s),
		changed AS (
			INSERT INTO rollup_volunteer_days AS r (user_id, project_id, day, %[2]s)
			SELECT * FROM want
			ON CONFLICT (user_id, day, project_id) DO UPDATE SET %[3]s
			WHERE (%[4]s) IS DISTINCT FROM (%[5]s)
			RETURNING 1),
		gone AS (
			DELETE FROM rollup_volunteer_days r WHERE %[6]s AND NOT EXISTS (
				SELECT 1 FROM want w WHERE w.user_id = r.user_id AND w.day = r.day AND w.project_id = r.project_id)
			RETURNING 1)
		SELECT (SELECT count(*) FROM changed) + (SELECT count(*) FROM gone)`,
		want, volunteerNames(), strings.Join(set, ", "), strings.Join(stored, ", "), strings.Join(excluded, ", "), days)
}

// foldDays recomputes from the ledger the per-(project, day) and per-day
// rollups of days, and the per-volunteer rollup of volunteerDays, and
// returns how many per-volunteer rows changed. The days go to PostgreSQL
// as one array of constants: a range OR'ed with a list made every
// statement visit every month partition. Each statement is planned for
// its days each time: a generic plan of day = ANY($1) visits every
// partition.
func foldDays(ctx context.Context, tx pgx.Tx, days, volunteerDays []time.Time) (volunteerRows int64, err error) {
	const where = `day = ANY(@days::date[]) AND day >= ledger_detail_from()`
	// The per-day count of distinct hosts hashes a day's rows.
	if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '64MB'`); err != nil {
		return 0, err
	}
	for _, sql := range []string{
		`DELETE FROM rollup_project_days WHERE ` + where,
		`INSERT INTO rollup_project_days (project_id, day, ` + rollupNames() + `) ` + rollupFromLedger(where),
		`DELETE FROM rollup_days WHERE ` + where,
		rollupDaysFrom(`r.day = ANY(@days::date[]) AND r.day >= ledger_detail_from()`,
			`SELECT day, host_id FROM ledger WHERE `+where),
	} {
		if _, err := tx.Exec(ctx, sql, pgx.QueryExecModeExec, pgx.NamedArgs{"days": days}); err != nil {
			return 0, err
		}
	}
	if len(volunteerDays) == 0 {
		return 0, nil
	}
	err = tx.QueryRow(ctx, upsertVolunteers(volunteerFromLedger(where), where), pgx.QueryExecModeExec,
		pgx.NamedArgs{"days": volunteerDays}).Scan(&volunteerRows)
	return volunteerRows, err
}

// rollupDaysFrom is a statement that inserts into rollup_days the sums of
// the rollup_project_days rows "r" that the predicate days selects, with
// the hosts counted among the (day, host_id) rows of ledgerHosts.
func rollupDaysFrom(days, ledgerHosts string) string {
	return `INSERT INTO rollup_days (day, ` + rollupNames() + `)
		SELECT r.day, ` + daySumList("r") + `, coalesce(h.hosts, 0)
		FROM rollup_project_days r LEFT JOIN (
			SELECT day, count(*) AS hosts FROM (SELECT DISTINCT day, host_id FROM (` + ledgerHosts + `) l) d
			GROUP BY day
		) h USING (day)
		WHERE ` + days + `
		GROUP BY r.day, h.hosts`
}

// foldRecent folds the days from since (or, if earlier, the day before
// the one an RPC in flight during the previous round may have begun on) to
// the day after now, and every marked day, clearing the marks; then it
// records now as the round's time. The per-volunteer rollup is read for
// settled days only (before rollup_settled_before()), so it folds just the
// days this round settles and the marked settled days: none in most
// rounds, one in the first round of a day.
func foldRecent(ctx context.Context, tx pgx.Tx, since, now time.Time) error {
	var prev *time.Time
	if err := tx.QueryRow(ctx, `SELECT at FROM system_counts WHERE name = 'rollup_day'`).
		Scan(&prev); err != nil && err != pgx.ErrNoRows {
		return err
	}
	from := CivilDay(since.UTC())
	settledFrom := from // the first day the per-volunteer rollup folds
	// An RPC leaves unmarked only its own day and the day before (UTC). One
	// that committed after the previous round began at most rpcInFlight
	// before it.
	if prev != nil {
		if d := CivilDay(prev.Add(-rpcInFlight).UTC()).AddDate(0, 0, -1); d.Before(from) {
			from = d
		}
		if d := settledBefore(*prev); d.Before(settledFrom) {
			settledFrom = d
		}
	} else {
		// The first round folds every day: RPCs before it marked nothing.
		var first *time.Time
		if err := tx.QueryRow(ctx, `SELECT least((SELECT min(day) FROM ledger), (SELECT min(day) FROM confirmed_ledger))`).
			Scan(&first); err != nil {
			return err
		}
		if first != nil && first.Before(from) {
			from = *first
		}
		settledFrom = from
	}
	rows, _ := tx.Query(ctx, `DELETE FROM ledger_dirty_days RETURNING day`)
	dirty, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return err
	}
	settled := settledBefore(now)
	var days, volunteerDays []time.Time
	for d := from; !d.After(CivilDay(now.UTC()).AddDate(0, 0, 1)); d = d.AddDate(0, 0, 1) {
		days = append(days, d)
	}
	for d := settledFrom; d.Before(settled); d = d.AddDate(0, 0, 1) {
		volunteerDays = append(volunteerDays, d)
	}
	for _, d := range dirty {
		days = append(days, d)
		if d.Before(settledFrom) {
			volunteerDays = append(volunteerDays, d)
		}
	}
	changed, err := foldDays(ctx, tx, days, volunteerDays)
	if err != nil {
		return err
	}
	if changed > 0 {
		if err := bumpVolunteerRollups(ctx, tx); err != nil {
			return err
		}
	}
	if err := foldTeams(ctx, tx, volunteerDays, now, prev == nil || !settledBefore(*prev).Equal(settled)); err != nil {
		return err
	}
	return markRound(ctx, tx, now)
}

// bumpVolunteerRollups counts a change of the per-volunteer rollups
// (rollup_volunteer_days and ledger_volunteer_days): what the leaderboards
// are computed from (boardsKey), so that an instance computes them again
// only after a change.
func bumpVolunteerRollups(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO system_counts (name, value, at) VALUES ('volunteer_rollups', 1, now())
		ON CONFLICT (name) DO UPDATE SET value = system_counts.value + 1, at = now()`)
	return err
}

// settledBefore is what rollup_settled_before() says once a round at t is
// recorded: two days before t's day (UTC).
func settledBefore(t time.Time) time.Time { return CivilDay(t.UTC()).AddDate(0, 0, -2) }

// rpcInFlight bounds how long before a rollup round an RPC that commits
// after it may have begun: far beyond any request's deadline.
const rpcInFlight = time.Hour

// markRound records now's day as the day of the latest rollup round.
func markRound(ctx context.Context, tx pgx.Tx, now time.Time) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO system_counts (name, value, at) VALUES ('rollup_day', $1, $2)
		ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, at = EXCLUDED.at`,
		CivilDay(now.UTC()).Unix()/86400, now)
	return err
}

// rollupPending is the SQL condition of the days whose rollups are not
// compared with the ledger: those that may have changed since a round last
// folded them (from two days before the latest round's day on, a margin
// over what the next round folds; the marked days; every day before any
// round) and the retired days, whose per-host rows are gone.
const rollupPending = `(%[1]s < ledger_detail_from() OR %[1]s >= rollup_settled_before()
	OR %[1]s IN (SELECT day FROM ledger_dirty_days))`

// rollupDifferences compares the three rollups, and the teams' rollup
// (teamDifferences), with the ledger, for every day that is not pending
// the next round (rollupPending), and returns each differing column (at
// most limit).
func rollupDifferences(ctx context.Context, tx pgx.Tx, limit int) ([]RollupDifference, error) {
	values := func(names []string) string {
		var cols []string
		for _, n := range names {
			cols = append(cols, fmt.Sprintf("('%[1]s', r.%[1]s, l.%[1]s)", n))
		}
		return strings.Join(cols, ", ")
	}
	names := strings.Split(rollupNames(), ", ")
	var daySums []string
	for _, n := range names[:len(names)-1] {
		daySums = append(daySums, fmt.Sprintf("sum(%[1]s)::bigint AS %[1]s", n))
	}
	query := fmt.Sprintf(`
		WITH want AS (%[1]s),
		want_days AS (
			SELECT w.day, %[3]s, coalesce(h.hosts, 0) AS hosts FROM want w
			LEFT JOIN (SELECT day, count(DISTINCT host_id) AS hosts FROM ledger GROUP BY day) h USING (day)
			GROUP BY w.day, h.hosts
		)
		SELECT 0, coalesce(r.project_id, l.project_id), coalesce(r.day, l.day)::timestamp AT TIME ZONE 'UTC',
			v.name, coalesce(v.r, -1), coalesce(v.l, -1)
		FROM rollup_project_days r FULL JOIN want l ON l.project_id = r.project_id AND l.day = r.day,
			LATERAL (VALUES %[2]s) AS v (name, r, l)
		WHERE v.r IS DISTINCT FROM v.l AND NOT %[5]s
		UNION ALL
		SELECT 0, 0, coalesce(r.day, l.day)::timestamp AT TIME ZONE 'UTC', v.name, coalesce(v.r, -1), coalesce(v.l, -1)
		FROM rollup_days r FULL JOIN want_days l ON l.day = r.day,
			LATERAL (VALUES %[2]s) AS v (name, r, l)
		WHERE v.r IS DISTINCT FROM v.l AND NOT %[5]s
		UNION ALL
		SELECT coalesce(r.user_id, l.user_id), coalesce(r.project_id, l.project_id),
			coalesce(r.day, l.day)::timestamp AT TIME ZONE 'UTC', v.name, coalesce(v.r, -1), coalesce(v.l, -1)
		FROM rollup_volunteer_days r FULL JOIN (%[6]s) l
			ON l.user_id = r.user_id AND l.project_id = r.project_id AND l.day = r.day,
			LATERAL (VALUES %[7]s) AS v (name, r, l)
		WHERE v.r IS DISTINCT FROM v.l AND NOT %[5]s
		ORDER BY 3, 2, 1, 4 LIMIT %[4]d`, rollupFromLedger("true"), values(names), strings.Join(daySums, ", "), limit,
		fmt.Sprintf(rollupPending, "coalesce(r.day, l.day)"), volunteerFromLedger("true"),
		values(strings.Split(volunteerNames(), ", ")))
	rows, _ := tx.Query(ctx, query)
	var d RollupDifference
	var out []RollupDifference
	_, err := pgx.ForEachRow(rows, []any{&d.UserID, &d.ProjectID, &d.Day, &d.Column, &d.Rollup, &d.Ledger}, func() error {
		out = append(out, d)
		return nil
	})
	if err != nil || len(out) >= limit {
		return out, err
	}
	teams, err := teamDifferences(ctx, tx, limit-len(out))
	return append(out, teams...), err
}

// RebuildRollups folds every day again from the ledger (but retired
// days, whose rollups stay as they were), as one
// transaction under the rollup's lock (the periodic rollup waits), and
// records now's day as a round's.
func (s *LedgerStore) RebuildRollups(ctx context.Context, now time.Time) error {
	return op("rebuild rollups", s.backgroundTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, rollupLock); err != nil {
			return err
		}
		const days = `day >= ledger_detail_from()`
		for _, q := range []string{
			`DELETE FROM ledger_dirty_days`,
			`DELETE FROM rollup_volunteer_days`,
			`DELETE FROM rollup_project_days WHERE ` + days,
			`DELETE FROM rollup_days WHERE ` + days,
			`INSERT INTO rollup_volunteer_days (user_id, project_id, day, ` + volunteerNames() + `) ` +
				volunteerFromLedger(days),
			`INSERT INTO rollup_project_days (project_id, day, ` + rollupNames() + `) ` + rollupFromLedger(days),
			rollupDaysFrom(`r.day >= ledger_detail_from()`, `SELECT day, host_id FROM ledger WHERE `+days),
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		if err := rebuildTeams(ctx, tx, now); err != nil {
			return err
		}
		if err := bumpVolunteerRollups(ctx, tx); err != nil {
			return err
		}
		return markRound(ctx, tx, now)
	}))
}

// daySumList sums the rollup columns but hosts over the rows alias.
func daySumList(alias string) string {
	names := strings.Split(rollupNames(), ", ")
	var out []string
	for _, n := range names[:len(names)-1] {
		out = append(out, fmt.Sprintf("sum(%s.%s)", alias, n))
	}
	return strings.Join(out, ", ")
}

// RollupProjectDays returns the rolled-up ledger of every project on the
// days from–to (inclusive), by project and day; days without rows are
// left out. It reads rollup_project_days only.
func (s *LedgerStore) RollupProjectDays(ctx context.Context, from, to time.Time) ([]ProjectDay, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT project_id, day::timestamp AT TIME ZONE 'UTC', ec_micro / 1e6, clamped_ec_micro / 1e6,
			granted_micro / 1e6, time_micro / 1e6, njobs_success, njobs_error, hosts,
			clamped_njobs, clamped_time_micro / 1e6
		FROM rollup_project_days WHERE day BETWEEN $1::date AND $2::date ORDER BY project_id, day`,
		CivilDay(from.UTC()), CivilDay(to.UTC()))
	var d ProjectDay
	var out []ProjectDay
	_, err := pgx.ForEachRow(rows, []any{&d.ProjectID, &d.Day, &d.Credit, &d.Clamped, &d.Granted,
		&d.TimeSeconds, &d.JobsSuccess, &d.JobsError, &d.Hosts, &d.ClampedJobs, &d.ClampedTime}, func() error {
		out = append(out, d)
		return nil
	})
	return out, op("rollup project days", err)
}

// RollupTotals returns the estimated credit accepted and clamped, and the
// granted credit, in Cobblestones, over every rolled-up day.
func (s *LedgerStore) RollupTotals(ctx context.Context) (accepted, clamped, granted float64, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT coalesce(sum(ec_micro), 0) / 1e6, coalesce(sum(clamped_ec_micro), 0) / 1e6,
			coalesce(sum(granted_micro), 0) / 1e6 FROM rollup_days`).Scan(&accepted, &clamped, &granted)
	return accepted, clamped, granted, op("rollup totals", err)
}

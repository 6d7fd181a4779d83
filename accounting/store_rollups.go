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
// day) in rollup_project_days and per day in rollup_days. The periodic
// rollup (Store.Rollup) folds again, from the ledger, the days that may
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
	{"ec_micro", "l.cpu_ec_micro + l.gpu_ec_micro"},
	{"time_micro", "l.cpu_time_micro + l.gpu_time_micro"},
	{"njobs_success", "l.njobs_success"},
	{"njobs_error", "l.njobs_error"},
	{"clamped_ec_micro", "l.clamped_cpu_ec_micro + l.clamped_gpu_ec_micro"},
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

// foldDays recomputes both rollups for the days from–to (inclusive) and
// the days in extra, from the ledger. The days go to PostgreSQL as one
// array of constants: a range OR'ed with a list made every statement
// visit every month partition.
func foldDays(ctx context.Context, tx pgx.Tx, from, to time.Time, extra []time.Time) error {
	const days = `day = ANY(@days::date[]) AND day >= ledger_detail_from()`
	all := slices.Clone(extra)
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		all = append(all, d)
	}
	args := pgx.NamedArgs{"days": all}
	// The per-day count of distinct hosts hashes a day's rows.
	if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '64MB'`); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM rollup_project_days WHERE ` + days,
		`INSERT INTO rollup_project_days (project_id, day, ` + rollupNames() + `) ` + rollupFromLedger(days),
		`DELETE FROM rollup_days WHERE ` + days,
		`INSERT INTO rollup_days (day, ` + rollupNames() + `)
		SELECT r.day, ` + daySumList("r") + `, coalesce(h.hosts, 0)
		FROM rollup_project_days r LEFT JOIN (
			SELECT day, count(*) AS hosts FROM (SELECT DISTINCT day, host_id FROM ledger WHERE ` + days + `) d
			GROUP BY day
		) h USING (day)
		WHERE r.day = ANY(@days::date[]) AND r.day >= ledger_detail_from()
		GROUP BY r.day, h.hosts`,
	} {
		// Planned for these days each time: a generic plan of day = ANY($1)
		// visits every partition.
		if _, err := tx.Exec(ctx, q, pgx.QueryExecModeExec, args); err != nil {
			return err
		}
	}
	return nil
}

// foldRecent folds the days from since (or, if earlier, the day before
// the one an RPC in flight during the previous round may have begun on) to
// the day after now, and every marked day, clearing the marks; then it
// records now as the round's time.
func foldRecent(ctx context.Context, tx pgx.Tx, since, now time.Time) error {
	var prev *time.Time
	if err := tx.QueryRow(ctx, `SELECT at FROM system_counts WHERE name = 'rollup_day'`).
		Scan(&prev); err != nil && err != pgx.ErrNoRows {
		return err
	}
	from := CivilDay(since.UTC())
	// An RPC leaves unmarked only its own day and the day before (UTC). One
	// that committed after the previous round began at most rpcInFlight
	// before it.
	if prev != nil {
		if d := CivilDay(prev.Add(-rpcInFlight).UTC()).AddDate(0, 0, -1); d.Before(from) {
			from = d
		}
	}
	rows, _ := tx.Query(ctx, `DELETE FROM ledger_dirty_days RETURNING day`)
	dirty, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return err
	}
	if err := foldDays(ctx, tx, from, CivilDay(now.UTC()).AddDate(0, 0, 1), dirty); err != nil {
		return err
	}
	return markRound(ctx, tx, now)
}

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

// RollupDifference is a rollup row that differs from the ledger's sums.
type RollupDifference struct {
	ProjectID int64 // 0 for the per-day rollup
	Day       time.Time
	Column    string
	Rollup    int64 // -1: no rollup row
	Ledger    int64 // -1: no ledger rows
}

// rollupPending is the SQL condition of the days whose rollups are not
// compared with the ledger: those that may have changed since a round last
// folded them (from two days before the latest round's day on, a margin
// over what the next round folds; the marked days; every day before any
// round) and the retired days, whose per-host rows are gone.
const rollupPending = `(%[1]s < ledger_detail_from() OR %[1]s >= rollup_settled_before()
	OR %[1]s IN (SELECT day FROM ledger_dirty_days))`

// rollupDifferences compares both rollups with the ledger, for every day
// that is not pending the next round (rollupPending), and returns each
// differing column (at most limit).
func rollupDifferences(ctx context.Context, tx pgx.Tx, limit int) ([]RollupDifference, error) {
	names := strings.Split(rollupNames(), ", ")
	var cols []string
	for _, n := range names {
		cols = append(cols, fmt.Sprintf("('%[1]s', r.%[1]s, l.%[1]s)", n))
	}
	values := strings.Join(cols, ", ")
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
		SELECT coalesce(r.project_id, l.project_id), coalesce(r.day, l.day)::timestamp AT TIME ZONE 'UTC',
			v.name, coalesce(v.r, -1), coalesce(v.l, -1)
		FROM rollup_project_days r FULL JOIN want l ON l.project_id = r.project_id AND l.day = r.day,
			LATERAL (VALUES %[2]s) AS v (name, r, l)
		WHERE v.r IS DISTINCT FROM v.l AND NOT %[5]s
		UNION ALL
		SELECT 0, coalesce(r.day, l.day)::timestamp AT TIME ZONE 'UTC', v.name, coalesce(v.r, -1), coalesce(v.l, -1)
		FROM rollup_days r FULL JOIN want_days l ON l.day = r.day,
			LATERAL (VALUES %[2]s) AS v (name, r, l)
		WHERE v.r IS DISTINCT FROM v.l AND NOT %[5]s
		ORDER BY 2, 1, 3 LIMIT %[4]d`, rollupFromLedger("true"), values, strings.Join(daySums, ", "), limit,
		fmt.Sprintf(rollupPending, "coalesce(r.day, l.day)"))
	rows, _ := tx.Query(ctx, query)
	var d RollupDifference
	var out []RollupDifference
	_, err := pgx.ForEachRow(rows, []any{&d.ProjectID, &d.Day, &d.Column, &d.Rollup, &d.Ledger}, func() error {
		out = append(out, d)
		return nil
	})
	return out, err
}

// RebuildRollups folds every day again from the ledger (but retired
// days, whose rollups stay as they were), as one
// transaction under the rollup's lock (the periodic rollup waits), and
// records now's day as a round's.
func (s *Store) RebuildRollups(ctx context.Context, now time.Time) error {
	return op("rebuild rollups", s.backgroundTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, rollupLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			DELETE FROM ledger_dirty_days;
			DELETE FROM rollup_project_days WHERE day >= ledger_detail_from();
			DELETE FROM rollup_days WHERE day >= ledger_detail_from()`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO rollup_project_days (project_id, day, `+rollupNames()+`) `+
			rollupFromLedger("day >= ledger_detail_from()")); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO rollup_days (day, `+rollupNames()+`)
			SELECT r.day, `+daySumList("r")+`, coalesce(h.hosts, 0)
			FROM rollup_project_days r
			LEFT JOIN (SELECT day, count(DISTINCT host_id) AS hosts FROM ledger GROUP BY day) h USING (day)
			WHERE r.day >= ledger_detail_from()
			GROUP BY r.day, h.hosts`)
		if err != nil {
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

// ProjectDay is one project's rolled-up ledger on one day.
type ProjectDay struct {
	ProjectID   int64
	Day         time.Time // midnight UTC
	Credit      float64   // estimated credit accepted, in Cobblestones
	Clamped     float64   // estimated credit clamped
	Granted     float64   // credit the project granted (confirmed)
	TimeSeconds float64   // CPU and GPU time
	JobsSuccess int64
	JobsError   int64
	Hosts       int64 // hosts with a ledger row that day
	ClampedJobs int64
	ClampedTime float64 // time clamped, in seconds
}

// RollupProjectDays returns the rolled-up ledger of every project on the
// days from–to (inclusive), by project and day; days without rows are
// left out. It reads rollup_project_days only.
func (s *Store) RollupProjectDays(ctx context.Context, from, to time.Time) ([]ProjectDay, error) {
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
func (s *Store) RollupTotals(ctx context.Context) (accepted, clamped, granted float64, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT coalesce(sum(ec_micro), 0) / 1e6, coalesce(sum(clamped_ec_micro), 0) / 1e6,
			coalesce(sum(granted_micro), 0) / 1e6 FROM rollup_days`).Scan(&accepted, &clamped, &granted)
	return accepted, clamped, granted, op("rollup totals", err)
}

package accounting

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

// The ledger and the confirmed ledger are partitioned by calendar month of
// their day (migrations/015_partitioned_ledger.sql). Cobble creates the partitions itself, ahead
// of time; a row whose month has no partition goes to a DEFAULT partition,
// from which the next EnsurePartitions moves it into its month.

// partitionLock is the advisory lock key of partition upkeep ("cobpart").
const partitionLock = 0x636f6270617274

// EnsurePartitions creates the month partitions of both ledgers from
// today's month to PartitionsAhead months after it, and those of any month
// with rows in a DEFAULT partition, moving those rows. One instance at a
// time does it; the others return (0, nil) at once. It returns how many
// partitions it created. Creating one briefly locks host_projects against
// writes (its foreign key); a lock not had within a few seconds fails the
// call, to be retried by the next.
func (s *LedgerStore) EnsurePartitions(ctx context.Context, today time.Time) (int, error) {
	var created int
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, partitionLock).Scan(&mine); err != nil || !mine {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '5s'`); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT ledger_partitions_ensure($1::date, $2)`,
			CivilDay(today.UTC()), PartitionsAhead).Scan(&created)
	})
	return created, op("ensure partitions", err)
}

// DefaultRows counts the rows in the DEFAULT partitions of the ledger and
// of the confirmed ledger: rows whose month had no partition when they
// were written. EnsurePartitions moves them; `cobble ledger check` reports
// them.
func (s *LedgerStore) DefaultRows(ctx context.Context) (ledger, confirmed int64, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM ledger_default), (SELECT count(*) FROM confirmed_ledger_default)`).
		Scan(&ledger, &confirmed)
	return ledger, confirmed, op("default partition rows", err)
}

// Partitions lists the month partitions of both ledgers, by table and month.
func (s *LedgerStore) Partitions(ctx context.Context) ([]Partition, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT i.inhparent::regclass::text, child.relname,
			substring(pg_get_expr(child.relpartbound, child.oid) FROM 'FROM \(''([0-9-]+)''\)')::date
		FROM pg_inherits i JOIN pg_class child ON child.oid = i.inhrelid
		WHERE i.inhparent IN ('ledger'::regclass, 'confirmed_ledger'::regclass)
			AND pg_get_expr(child.relpartbound, child.oid) <> 'DEFAULT'
		ORDER BY 1, 3`)
	var p Partition
	var out []Partition
	_, err := pgx.ForEachRow(rows, []any{&p.Table, &p.Name, &p.Month}, func() error {
		out = append(out, p)
		return nil
	})
	return out, op("partitions", err)
}

// RetireLedger drops the per-host detail of the months before the last
// detailMonths ones before now's (the current month and detailMonths
// previous months keep theirs): their rows are folded into per-(volunteer,
// project, day) and per-(host, project) totals, and their partitions
// detached and dropped, never deleted row by row. Rows that arrive later
// for a retired month (in a DEFAULT partition) are folded the same way.
// Each month is one transaction, which holds an exclusive lock on the
// ledger (RPCs wait) from the detaching of its partitions to its commit.
// One instance at a time does it; the others fold nothing. It returns how
// many months it folded, at most maxRetiredPerRound.
func (s *LedgerStore) RetireLedger(ctx context.Context, now time.Time, detailMonths int) (int, error) {
	if detailMonths < 1 {
		return 0, fmt.Errorf("retire ledger: %w",
			&ValidationError{Fields: map[string]locale.Msg{"detail months": locale.Text("at least one month of detail is kept")}})
	}
	y, m, _ := now.UTC().Date()
	before := time.Date(y, m-time.Month(detailMonths), 1, 0, 0, 0, 0, time.UTC)
	folded := 0
	for folded < maxRetiredPerRound {
		n := 0
		err := s.backgroundTx(ctx, func(tx pgx.Tx) error {
			var mine bool
			if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, partitionLock).Scan(&mine); err != nil || !mine {
				return err
			}
			if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '5s'`); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SELECT ledger_months_retire($1::date)`, before).Scan(&n); err != nil || n == 0 {
				return err
			}
			// The retired days' totals are in ledger_volunteer_days now.
			if _, err := tx.Exec(ctx, `DELETE FROM rollup_volunteer_days WHERE day < ledger_detail_from()`); err != nil {
				return err
			}
			return bumpVolunteerRollups(ctx, tx)
		})
		if err != nil || n == 0 {
			return folded, op("retire ledger", err)
		}
		folded += n
	}
	return folded, nil
}

// maxRetiredPerRound bounds the months one RetireLedger folds; the next
// round goes on.
const maxRetiredPerRound = 24

// DetailFrom returns the first day whose per-host ledger rows are kept
// (the zero time when no month was retired).
func (s *LedgerStore) DetailFrom(ctx context.Context) (time.Time, error) {
	var from *time.Time
	err := s.pool.QueryRow(ctx, `
		SELECT (max(month) + interval '1 month')::timestamp AT TIME ZONE 'UTC' FROM ledger_retired_months`).Scan(&from)
	if err != nil || from == nil {
		return time.Time{}, op("detail from", err)
	}
	return *from, nil
}

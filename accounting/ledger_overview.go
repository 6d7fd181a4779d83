package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// AddRPCCounts adds one instance's RPC counts per outcome to the hour
// that starts at hour.
func (s *LedgerStore) AddRPCCounts(ctx context.Context, hour time.Time, counts map[string]int64) error {
	b := &pgx.Batch{}
	for outcome, n := range counts {
		if n > 0 {
			b.Queue(`INSERT INTO rpc_hourly (hour, outcome, count) VALUES ($1, $2, $3)
				ON CONFLICT (hour, outcome) DO UPDATE SET count = rpc_hourly.count + EXCLUDED.count`,
				hour.UTC().Truncate(time.Hour), outcome, n)
		}
	}
	return op("add rpc counts", s.pool.SendBatch(ctx, b).Close())
}

// Rollup refreshes the overview's counters: the rollups per project and
// day and per day for the days since since (and those that changed before;
// see ledger_rollups.go), from the ledger's rows of those days only, and
// the counts of active hosts and volunteers.
func (s *LedgerStore) Rollup(ctx context.Context, since, now time.Time) error {
	return op("rollup", s.backgroundTx(ctx, func(tx pgx.Tx) error {
		// One instance at a time; the others skip this round.
		var mine bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, rollupLock).Scan(&mine); err != nil || !mine {
			return err
		}
		if err := foldRecent(ctx, tx, since, now); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO system_counts (name, value, at)
			SELECT * FROM (VALUES
				('hosts_24h', (SELECT count(*) FROM hosts WHERE last_rpc_at > @now::timestamptz - interval '24 hours'), @now::timestamptz),
				('hosts_7d', (SELECT count(*) FROM hosts WHERE last_rpc_at > @now::timestamptz - interval '7 days'), @now),
				('users', (SELECT count(*) FROM users), @now),
				('users_7d', (SELECT count(*) FROM users WHERE created_at > @now::timestamptz - interval '7 days'), @now)
			) AS v(name, value, at)
			ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, at = EXCLUDED.at`,
			pgx.NamedArgs{"now": now})
		return err
	}))
}

// rollupLock is the advisory lock key of the rollup ("cobroll" in ASCII).
const rollupLock = 0x636f62726f6c6c

// HoldRollups keeps every instance's periodic rollup from running (each
// round skips) until release is called: for a bulk writer that marks days
// faster than a round folds them, and folds them all itself after
// (RebuildRollups, which must be called after release).
func (s *LedgerStore) HoldRollups(ctx context.Context) (release func(), err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, op("hold rollups", err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, rollupLock); err != nil {
		conn.Release()
		return nil, op("hold rollups", err)
	}
	return func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, rollupLock); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) // a closed session holds no lock
		}
		conn.Release()
	}, nil
}

// CreditTotals returns the estimated credit accepted and clamped, in
// Cobblestones, over every day the rollup has seen.
func (s *LedgerStore) CreditTotals(ctx context.Context) (accepted, clamped float64, err error) {
	accepted, clamped, _, err = s.RollupTotals(ctx)
	return accepted, clamped, err
}

package accounting

import (
	"context"
	"time"
)

// Failures reads the counts of wrong passwords from addr, from addr on
// account, and on account, in the window that starts at window: one round
// trip, shared by every instance on the database.
func (s *AccessStore) Failures(ctx context.Context, addr, account string, window time.Time) (FailureCounts, error) {
	var c FailureCounts
	var last *time.Time
	err := s.pool.QueryRow(ctx, `
		SELECT coalesce(sum(n) FILTER (WHERE kind = 'addr'), 0),
		       coalesce(sum(n) FILTER (WHERE kind = 'pair'), 0),
		       coalesce(sum(n) FILTER (WHERE kind = 'account'), 0),
		       max(last_at) FILTER (WHERE kind = 'account')
		FROM attempt_counts
		WHERE window_start = $4 AND ((kind = 'addr' AND key = $1)
		   OR (kind = 'pair' AND key = $2) OR (kind = 'account' AND key = $3))`,
		addr, pairKey(addr, account), account, window.UTC()).Scan(&c.Addr, &c.Pair, &c.Account, &last)
	if last != nil {
		c.AccountLast = *last
	}
	return c, op("read failures", err)
}

// CountFailure adds a wrong password from addr on account, at now, to the
// three counters of the window that starts at window, in one statement.
func (s *AccessStore) CountFailure(ctx context.Context, addr, account string, window, now time.Time) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO attempt_counts AS c (kind, key, window_start, n, last_at)
		VALUES ('addr', $1, $4, 1, $5), ('pair', $2, $4, 1, $5), ('account', $3, $4, 1, $5)
		ON CONFLICT (kind, key, window_start)
		DO UPDATE SET n = c.n + 1, last_at = greatest(c.last_at, excluded.last_at)`,
		addr, pairKey(addr, account), account, window.UTC(), now.UTC())
	return op("count failure", err)
}

// CountAttempt adds one attempt of kind by key to the window that starts
// at window and returns the window's count, this one included.
func (s *AccessStore) CountAttempt(ctx context.Context, kind AttemptKind, key string, window, now time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `
		INSERT INTO attempt_counts AS c (kind, key, window_start, n, last_at)
		VALUES ($1, $2, $3, 1, $4)
		ON CONFLICT (kind, key, window_start)
		DO UPDATE SET n = c.n + 1, last_at = greatest(c.last_at, excluded.last_at)
		RETURNING n`, string(kind), key, window.UTC(), now.UTC()).Scan(&n)
	return n, op("count attempt", err)
}

// Attempts returns the count of attempts of kind by key in the window that
// starts at window (0 when there were none).
func (s *AccessStore) Attempts(ctx context.Context, kind AttemptKind, key string, window time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `
		SELECT coalesce(sum(n), 0) FROM attempt_counts
		WHERE kind = $1 AND key = $2 AND window_start = $3`, string(kind), key, window.UTC()).Scan(&n)
	return n, op("read attempts", err)
}

// PruneAttempts deletes the counters of windows that started before
// before, and returns how many it deleted.
func (s *AccessStore) PruneAttempts(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM attempt_counts WHERE window_start < $1`, before.UTC())
	return tag.RowsAffected(), op("prune attempts", err)
}

// pairKey is the key of an address's failures on one account.
func pairKey(addr, account string) string { return addr + " " + account }

package accounting

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/internal/every"
)

// A read replica (a streaming standby of the database) can take the reads
// that may lag a little: the admin reports, the lookups and the downloads.
// Every other read, and every read of a request marked WithPrimary (one
// that follows a write of the same person), goes to the primary. While the
// replica does not answer, or lags more than maxReplicaLag, those reads go
// to the primary too, and ReplicaStatus says so.

// maxReplicaLag is the lag past which the replica is not read.
const maxReplicaLag = 30 * time.Second

// replica is the Store's read replica and what it knows of it.
type replica struct {
	pool   *pgxpool.Pool // nil: none
	mu     sync.Mutex
	status ReplicaStatus
	// samples are the primary's WAL positions at the latest checks, oldest
	// first: a replica that replayed up to a sample's position is at most
	// the time since that sample behind (used when PostgreSQL cannot tell
	// the time of the last transaction replayed).
	samples []walSample
}

// walSample is the primary's WAL position at a time.
type walSample struct {
	at  time.Time
	lsn uint64
}

// maxSamples bounds the samples kept: more than maxReplicaLag of checks.
const maxSamples = 64

// UseReplica gives the Store a read replica's pool. Call it before the
// Store serves, and run ReplicaLoop: the replica is read only once a check
// found it answering and close enough.
func (s *Store) UseReplica(pool *pgxpool.Pool) {
	s.replica.pool = pool
	s.replica.status = ReplicaStatus{Configured: true, Problem: "not checked yet"}
}

// ReplicaStatus returns what the Store last learnt of its read replica.
func (s *Store) ReplicaStatus() ReplicaStatus { return s.replicaStatus() }

// replicaStatus is ReplicaStatus for the areas.
func (s *core) replicaStatus() ReplicaStatus {
	s.replica.mu.Lock()
	defer s.replica.mu.Unlock()
	return s.replica.status
}

type primaryKey struct{}

// WithPrimary marks ctx so that every read made with it goes to the
// primary: a request that follows its sender's own write must see it.
func WithPrimary(ctx context.Context) context.Context {
	return context.WithValue(ctx, primaryKey{}, true)
}

// ReadsPrimary reports whether ctx was marked WithPrimary.
func ReadsPrimary(ctx context.Context) bool { return ctx.Value(primaryKey{}) != nil }

// ReadPool returns the pool for a read that may lag a little: the replica
// when it is in use and ctx is not marked WithPrimary, else the primary.
func (s *Store) ReadPool(ctx context.Context) *pgxpool.Pool { return s.readPool(ctx) }

// readPool is ReadPool for the areas.
func (s *core) readPool(ctx context.Context) *pgxpool.Pool {
	if s.replica.pool == nil || ReadsPrimary(ctx) || !s.replicaStatus().InUse {
		return s.pool
	}
	return s.replica.pool
}

// ReplicaLoop checks the replica now and then every interval until ctx
// ends; it logs when the replica goes out of use and when it comes back.
func (s *Store) ReplicaLoop(ctx context.Context, period time.Duration, log *slog.Logger) {
	if s.replica.pool == nil {
		return
	}
	every.Loop(ctx, period, true, func(ctx context.Context, _ time.Time) {
		before := s.ReplicaStatus()
		st := s.checkReplica(ctx, period)
		if ctx.Err() != nil {
			return
		}
		s.replica.mu.Lock()
		s.replica.status = st
		s.replica.mu.Unlock()
		if st.InUse != before.InUse || (!st.InUse && st.Problem != before.Problem) {
			if st.InUse {
				log.Info("reading from the replica", "lag", st.Lag)
			} else {
				log.Warn("not reading from the replica; reading from the primary", "problem", st.Problem)
			}
		}
	})
}

// checkReplica measures the replica's lag: none when its replay has
// reached the primary's WAL position read just before, else the time since
// the last transaction it replayed.
func (s *Store) checkReplica(ctx context.Context, timeout time.Duration) ReplicaStatus {
	st := ReplicaStatus{Configured: true, CheckedAt: time.Now()}
	ctx, cancel := context.WithTimeout(ctx, max(timeout, time.Second))
	defer cancel()
	var primaryLSN uint64
	err := s.pool.QueryRow(ctx, `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::int8`).Scan(&primaryLSN)
	if err != nil {
		st.Problem = "the primary did not answer: " + err.Error()
		return st
	}
	s.sample(walSample{at: st.CheckedAt, lsn: primaryLSN})
	var standby bool
	var replayed uint64
	var lagSecs *float64
	err = s.replica.pool.QueryRow(ctx, `
		SELECT pg_is_in_recovery(), coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::int8, 0),
		       extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8`).Scan(&standby, &replayed, &lagSecs)
	switch {
	case err != nil:
		st.Problem = "the replica did not answer: " + err.Error()
		return st
	case !standby:
		st.Problem = "the replica's database is not a standby (not in recovery)"
		return st
	}
	st.Reachable = true
	if replayed < primaryLSN {
		lag, known := s.behind(replayed, st.CheckedAt)
		if lagSecs != nil {
			lag, known = max(time.Duration(*lagSecs*float64(time.Second)), 0), true
		}
		if !known {
			st.Problem = "the replica has not replayed what the primary wrote since this instance started"
			return st
		}
		st.Lag = lag
	}
	if st.Lag > maxReplicaLag {
		st.Problem = "the replica lags more than " + maxReplicaLag.String()
		return st
	}
	st.InUse = true
	return st
}

// sample records the primary's WAL position at a check.
func (s *Store) sample(w walSample) {
	s.replica.mu.Lock()
	defer s.replica.mu.Unlock()
	s.replica.samples = append(s.replica.samples, w)
	if len(s.replica.samples) > maxSamples {
		s.replica.samples = s.replica.samples[1:]
	}
}

// behind bounds how far behind a replica that replayed up to the WAL
// position replayed is: the time since the newest sample it has reached.
// known is false when it has reached none.
func (s *Store) behind(replayed uint64, now time.Time) (lag time.Duration, known bool) {
	s.replica.mu.Lock()
	defer s.replica.mu.Unlock()
	for i := len(s.replica.samples) - 1; i >= 0; i-- {
		if w := s.replica.samples[i]; w.lsn <= replayed {
			return now.Sub(w.at), true
		}
	}
	return 0, false
}

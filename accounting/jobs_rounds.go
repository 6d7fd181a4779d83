package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// roundLockSpace is the first key of the rounds' advisory locks ("rnd"
// in ASCII); the second is the hash of the round's kind. PostgreSQL keeps
// two-key locks apart from the one-key locks of the rollup and of
// reconciliation.
const roundLockSpace = 0x726e64

// HoldRound takes the cluster-wide lock of the periodic round kind, for
// as long as the round runs: held is false, and release nil, when another
// round of the kind holds it. The lock is a session's: should the
// instance that holds it die, PostgreSQL ends its session, and the next
// round of the kind takes the lock, whatever River still says of the dead
// instance's job. The session is one of its own, outside the pool, so
// that rounds waiting for the pool's connections never hold them all.
// release gives the lock up and closes the session.
func (s *JobsStore) HoldRound(ctx context.Context, kind string) (release func(), held bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, false, op("hold round", err)
	}
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, roundLockSpace, kind).
		Scan(&held); err != nil || !held {
		closeRoundConn(ctx, conn)
		return nil, false, op("hold round", err)
	}
	// Closing the session gives the lock up.
	return func() { closeRoundConn(ctx, conn) }, true, nil
}

// closeRoundConn closes a round's session, giving up at most 10 s to it.
func closeRoundConn(ctx context.Context, conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}

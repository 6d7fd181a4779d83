package reconcile

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"
)

// errLockLost ends a run whose project lock was lost (its database session
// ended: the primary failed over, or the session was terminated) and that
// another runner took since: that runner marked this run abandoned, and
// this one must store nothing.
var errLockLost = errors.New("the run lost the project's lock to another runner, which abandoned it")

// reconcileLockTag marks the advisory-lock keys of reconciliation runs.
const reconcileLockTag = int64(0x5245_4300) << 32

// projectLock is a project's reconciliation lock: a session-level advisory
// lock, held on a connection of its own for the whole run.
type projectLock struct {
	pool *pgxpool.Pool
	key  int64
	conn *pgxpool.Conn // nil once released or lost
}

// lockProject takes the project's reconciliation lock, or returns
// ErrRunBusy.
func (d *db) lockProject(ctx context.Context, projectID int64) (*projectLock, error) {
	l := &projectLock{pool: d.pool, key: reconcileLockTag | projectID}
	if err := l.take(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// take takes the lock on a new connection, or returns ErrRunBusy.
func (l *projectLock) take(ctx context.Context) error {
	conn, err := l.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, l.key).Scan(&ok); err != nil || !ok {
		conn.Release()
		if err != nil {
			return err
		}
		return ErrRunBusy
	}
	l.conn = conn
	return nil
}

// hold makes sure the lock is still held before the run stores anything.
// A lock's session can end under a run: when the primary database fails
// over, the new primary has no lock. hold then takes it again there; if
// another runner holds it now, it returns errLockLost.
func (l *projectLock) hold(ctx context.Context) error {
	if l.conn != nil && l.conn.Ping(ctx) == nil {
		return nil
	}
	l.drop()
	err := l.take(ctx)
	if errors.Is(err, ErrRunBusy) {
		return errLockLost
	}
	return err
}

// drop forgets the lock's connection, closing it so that the pool does not
// hand out a session that may still hold the lock.
func (l *projectLock) drop() {
	if l.conn == nil {
		return
	}
	l.conn.Conn().Close(context.Background())
	l.conn.Release()
	l.conn = nil
}

// release gives the lock up.
func (l *projectLock) release() {
	if l.conn == nil {
		return
	}
	if _, err := l.conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, l.key); err != nil {
		l.drop() // closing the session releases the lock
		return
	}
	l.conn.Release()
	l.conn = nil
}

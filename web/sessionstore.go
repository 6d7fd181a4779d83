package web

import (
	"context"
	"errors"
	"time"

	"github.com/alexedwards/scs/pgxstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// sessionStore keeps sessions in PostgreSQL (pgxstore's table and its
// clean-up of expired rows), with the request's context on every query, so
// that a request's deadline reaches its session's queries too: pgxstore's
// own methods take no context and would wait for a stalled database forever.
type sessionStore struct {
	*pgxstore.PostgresStore
	pool *pgxpool.Pool
}

func newSessionStore(pool *pgxpool.Pool) *sessionStore {
	return &sessionStore{PostgresStore: pgxstore.New(pool), pool: pool}
}

// FindCtx returns the data of an unexpired session; exists is false when
// there is none.
func (s *sessionStore) FindCtx(ctx context.Context, token string) (data []byte, exists bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT data FROM sessions WHERE token = $1 AND current_timestamp < expiry`,
		token).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// CommitCtx stores a session's data and expiry.
func (s *sessionStore) CommitCtx(ctx context.Context, token string, data []byte, expiry time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sessions (token, data, expiry) VALUES ($1, $2, $3)
		ON CONFLICT (token) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry`, token, data, expiry)
	return err
}

// DeleteCtx removes a session.
func (s *sessionStore) DeleteCtx(ctx context.Context, token string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE token = $1`, token)
	return err
}

package accounting

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store keeps Cobble's data in PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	opts Options
}

// Options tune the domain's decisions.
type Options struct {
	// MaxProjects is the most projects a host works for at once (default 4).
	MaxProjects int
}

// NewStore returns a Store on pool, which must point at a migrated database.
func NewStore(pool *pgxpool.Pool, opts Options) *Store {
	if opts.MaxProjects <= 0 {
		opts.MaxProjects = 4
	}
	return &Store{pool: pool, opts: opts}
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.pool.Ping(ctx)
}

// tx runs fn in one transaction, committed if fn returns nil.
func (s *Store) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// dbErr maps PostgreSQL's answers onto the domain's vocabulary.
func dbErr(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return fmt.Errorf("%w (%s)", ErrConflict, pgErr.ConstraintName)
	}
	return err
}

// querier is what both a pool and a transaction offer.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

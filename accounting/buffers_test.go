package accounting_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/internal/testdb"
)

// The plan tests count the buffers a statement touches rather than time
// it: a plan that reads a table whole is caught on any machine.

// oneBackend returns a pool of one connection to a fresh test database:
// one backend, whose statistics buffersTouched can have flushed.
func oneBackend(t *testing.T) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// buffersTouched flushes the pool's one backend's statistics and returns
// the buffers the database has read or hit so far.
func buffersTouched(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := pool.QueryRow(ctx, `SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

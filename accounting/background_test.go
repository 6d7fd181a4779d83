package accounting

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/internal/testdb"
)

// TestBackgroundWorkOutlivesTheRequestNet: the serving sessions'
// statement_timeout is a net for requests; reconciliation and rollups run
// longer statements in transactions that lift it.
func TestBackgroundWorkOutlivesTheRequestNet(t *testing.T) {
	t.Parallel()
	cfg, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = "50"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := NewStore(pool, Options{})
	sleep := func(tx pgx.Tx) error {
		_, err := tx.Exec(context.Background(), `SELECT pg_sleep(0.2)`)
		return err
	}
	if err := s.tx(context.Background(), sleep); err == nil {
		t.Fatal("a request's transaction outlived the 50 ms statement_timeout; the test proves nothing")
	}
	if err := s.backgroundTx(context.Background(), sleep); err != nil {
		t.Errorf("background transaction: %v", err)
	}
}

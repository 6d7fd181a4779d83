package accounting

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cobble-am/cobble/internal/testdb"
)

// Two transactions that lock two rows in opposite orders deadlock, and
// PostgreSQL ends one of them; tx runs that one again, once, so both
// complete. Only a deadlock or a serialization failure is run again, and
// only once: a clash the second time is ErrUnavailable (a 503, never a
// failure of Cobble's own), and any other error is returned at once.
func TestTxRunsAClashedTransactionOnceMore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewStore(testdb.New(t), Options{})
	if _, err := s.pool.Exec(ctx, `CREATE TABLE clash (id int PRIMARY KEY, n int NOT NULL);
		INSERT INTO clash VALUES (1, 0), (2, 0)`); err != nil {
		t.Fatal(err)
	}

	var both sync.WaitGroup // both hold their first row
	both.Add(2)
	var runs atomic.Int32
	lockBoth := func(first, second int) error {
		once := false
		return s.tx(ctx, func(tx pgx.Tx) error {
			runs.Add(1)
			if _, err := tx.Exec(ctx, `UPDATE clash SET n = n + 1 WHERE id = $1`, first); err != nil {
				return err
			}
			if !once {
				once = true
				both.Done()
				both.Wait()
			}
			_, err := tx.Exec(ctx, `UPDATE clash SET n = n + 1 WHERE id = $1`, second)
			return err
		})
	}
	errs := make(chan error, 2)
	go func() { errs <- lockBoth(1, 2) }()
	go func() { errs <- lockBoth(2, 1) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a transaction of the deadlocked two: %v", err)
		}
	}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT sum(n) FROM clash`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 3 || total != 4 {
		t.Errorf("%d runs leaving %d updates, want 3 runs (one again) and 4 updates", runs.Load(), total)
	}

	for _, c := range []struct {
		name        string
		sql         string
		runs        int32
		unavailable bool
	}{
		{"serialization failure", `DO $$ BEGIN RAISE EXCEPTION 'clash' USING ERRCODE = 'serialization_failure'; END $$`, 2, true},
		{"deadlock", `DO $$ BEGIN RAISE EXCEPTION 'clash' USING ERRCODE = 'deadlock_detected'; END $$`, 2, true},
		{"unique violation", `INSERT INTO clash VALUES (1, 0)`, 1, false},
	} {
		runs.Store(0)
		err := op("clash", s.tx(ctx, func(tx pgx.Tx) error {
			runs.Add(1)
			_, err := tx.Exec(ctx, c.sql)
			return err
		}))
		var pgErr *pgconn.PgError
		if runs.Load() != c.runs || !errors.As(err, &pgErr) || errors.Is(err, ErrUnavailable) != c.unavailable {
			t.Errorf("%s: %d runs and %v, want %d runs, unavailable %v", c.name, runs.Load(), err, c.runs, c.unavailable)
		}
	}
}

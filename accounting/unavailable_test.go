package accounting

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// What counts as the database being unavailable (an outage, answered 503)
// and what is a failure of Cobble's own (a bug).
func TestUnavailable(t *testing.T) {
	t.Parallel()
	pg := func(code string) error { return fmt.Errorf("query: %w", &pgconn.PgError{Code: code}) }
	for _, c := range []struct {
		err  error
		down bool
	}{
		{context.DeadlineExceeded, true},
		{&pgconn.ConnectError{}, true},
		{pg("57P01"), true}, // terminating connection due to administrator command
		{pg("57014"), true}, // statement timeout
		{pg("08006"), true}, // connection failure
		{pg("23505"), false},
		{pg("23514"), false}, // a CHECK constraint
		{pg("42703"), false}, // undefined column
		{context.Canceled, false},
		{errors.New("a bug"), false},
	} {
		if got := errors.Is(op("x", c.err), ErrUnavailable); got != c.down {
			t.Errorf("%v: unavailable %v, want %v", c.err, got, c.down)
		}
	}
}

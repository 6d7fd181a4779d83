package accounting

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Every way pgx says that the database went away, or that PostgreSQL
// ended a transaction for clashing with another, is ErrUnavailable (503,
// "retry later"); TestConnectionLossIsUnavailable makes the connection
// errors for real.
func TestUnavailableKinds(t *testing.T) {
	t.Parallel()
	pg := func(code string) error { return fmt.Errorf("query: %w", &pgconn.PgError{Code: code}) }
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	for _, c := range []struct {
		err  error
		down bool
	}{
		{fmt.Errorf("sync: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("failed to deallocate cached statement(s): %w", pgconn.ErrConnClosed), true},
		{reset, true},
		{pg("57P01"), true},  // admin_shutdown
		{pg("57P02"), true},  // crash_shutdown
		{pg("57P03"), true},  // cannot_connect_now
		{pg("08001"), true},  // sqlclient_unable_to_establish_sqlconnection
		{pg("08006"), true},  // connection_failure
		{pg("40001"), true},  // serialization_failure, after the one retry
		{pg("40P01"), true},  // deadlock_detected, after the one retry
		{pg("40002"), false}, // transaction_integrity_constraint_violation
		{pg("23505"), false},
		{io.EOF, false}, // pgx turns a lost stream into io.ErrUnexpectedEOF
		{errors.New("unexpected EOF in a file"), false},
	} {
		if got := errors.Is(op("x", c.err), ErrUnavailable); got != c.down {
			t.Errorf("%v: unavailable %v, want %v", c.err, got, c.down)
		}
	}
}

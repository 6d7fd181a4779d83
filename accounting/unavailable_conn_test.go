package accounting_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/tcpcut"
	"github.com/cobble-am/cobble/internal/testdb"
)

// behindProxy returns the configuration of a fresh test database reached
// through a proxy the test can cut, the proxy, and the configuration that
// reaches the database directly.
func behindProxy(t *testing.T) (proxied *pgx.ConnConfig, p *tcpcut.Proxy, direct *pgx.ConnConfig) {
	t.Helper()
	direct, err := pgx.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	p = tcpcut.Start(t, net.JoinHostPort(direct.Host, strconv.Itoa(int(direct.Port))))
	host, port, _ := net.SplitHostPort(p.Addr())
	n, _ := strconv.Atoi(port)
	proxied = direct.Copy()
	proxied.Host, proxied.Port, proxied.Fallbacks = host, uint16(n), nil
	proxied.ConnectTimeout = 5 * time.Second
	return proxied, p, direct
}

// waitRunning waits until a backend of the database other than the
// caller's is running sql.
func waitRunning(t *testing.T, direct *pgx.ConnConfig, sql string) {
	t.Helper()
	conn, err := pgx.ConnectConfig(t.Context(), direct)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var n int
		err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE query = $1 AND state = 'active' AND pid <> pg_backend_pid() AND datname = current_database()`, sql).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
	}
	t.Fatalf("%q never ran", sql)
}

// cutMidQuery runs sql on a new connection through proxy, cuts the
// proxy's connections while it runs, and returns the error the query gave
// and the error of a next query on the same connection.
func cutMidQuery(t *testing.T, cfg, direct *pgx.ConnConfig, proxy *tcpcut.Proxy, sql string, args ...any) (mid, next error) {
	t.Helper()
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := conn.Exec(t.Context(), sql, args...)
		errs <- err
	}()
	waitRunning(t, direct, sql)
	proxy.Cut()
	mid = <-errs
	_, next = conn.Exec(t.Context(), "SELECT 1")
	return mid, next
}

// The errors pgx returns when the database goes away, made for real: a
// connection cut in the middle of a query (by the simple and the extended
// protocol), a query on the connection that was cut, a server that
// refuses new connections, and a backend terminated by an administrator.
// Each is ErrUnavailable, which Cobble answers with 503 and an RPC's
// "retry later", not with an error of its own.
func TestConnectionLossIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	cfg, proxy, direct := behindProxy(t)
	errs := map[string]error{}
	errs["cut mid-query"], errs["after the cut"] = cutMidQuery(t, cfg, direct, proxy, "SELECT pg_sleep(60)")
	errs["cut mid-query, extended"], errs["after the cut, extended"] =
		cutMidQuery(t, cfg, direct, proxy, "SELECT pg_sleep($1)", 60.0)

	proxy.Refuse(true)
	_, errs["refused"] = pgx.ConnectConfig(ctx, cfg)
	proxy.Refuse(false)

	victim, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close(context.Background())
	const doomed = "SELECT pg_sleep(61)"
	terminated := make(chan error, 1)
	go func() {
		_, err := victim.Exec(ctx, doomed)
		terminated <- err
	}()
	waitRunning(t, direct, doomed)
	killer, err := pgx.ConnectConfig(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(context.Background())
	if _, err := killer.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE query = $1 AND datname = current_database()`, doomed); err != nil {
		t.Fatal(err)
	}
	errs["terminated"] = <-terminated

	for name, err := range errs {
		t.Logf("%s: %v (%T)", name, err, err)
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if !errors.Is(accounting.Classify(err), accounting.ErrUnavailable) {
			t.Errorf("%s: %v is not ErrUnavailable", name, err)
		}
	}
}

package web_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/tcpcut"
	"github.com/cobble-am/cobble/internal/testdb"
)

// cuttable returns two pools on one fresh test database: one direct, for
// the test's own statements, and one through a proxy the test can cut,
// for the server under test.
func cuttable(t *testing.T) (direct, proxied *pgxpool.Pool, proxy *tcpcut.Proxy) {
	t.Helper()
	dcfg, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy = tcpcut.Start(t, net.JoinHostPort(dcfg.ConnConfig.Host, strconv.Itoa(int(dcfg.ConnConfig.Port))))
	pcfg := dcfg.Copy()
	host, port, _ := net.SplitHostPort(proxy.Addr())
	n, _ := strconv.Atoi(port)
	pcfg.ConnConfig.Host, pcfg.ConnConfig.Port, pcfg.ConnConfig.Fallbacks = host, uint16(n), nil
	pcfg.ConnConfig.ConnectTimeout = 5 * time.Second
	for _, cfg := range []*pgxpool.Config{dcfg, pcfg} {
		pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if direct == nil {
			direct = pool
		} else {
			proxied = pool
		}
	}
	return direct, proxied, proxy
}

// waitLockWait waits until a backend of pool's database waits for a lock.
func waitLockWait(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var n int
		err := pool.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
	}
	t.Fatal("no statement came to wait for the lock")
}

// A database connection lost in the middle of an RPC's query, whether the
// connection breaks (pgx reads an unexpected end of file) or PostgreSQL
// terminates the backend, is an outage: the client gets 503 with "project
// down", which it retries quietly later, not the error -1 that it shows
// as Cobble failing.
func TestRPCConnectionLostMidQueryIs503(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		lose func(direct *pgxpool.Pool, proxy *tcpcut.Proxy) error
	}{
		{"cut", func(_ *pgxpool.Pool, proxy *tcpcut.Proxy) error { proxy.Cut(); return nil }},
		{"terminated", func(direct *pgxpool.Pool, _ *tcpcut.Proxy) error {
			_, err := direct.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			direct, proxied, proxy := cuttable(t)
			setup := newEnvOn(t, direct)
			setup.user("vol@example.org", "secret-pass")
			e := newEnvOn(t, proxied)

			// Every query on the volunteers waits, so the RPC's does too.
			lock, err := direct.Begin(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Rollback(context.Background())
			if _, err := lock.Exec(t.Context(), `LOCK TABLE users IN ACCESS EXCLUSIVE MODE`); err != nil {
				t.Fatal(err)
			}
			type answer struct {
				status int
				body   string
				err    error
			}
			answers := make(chan answer, 1)
			go func() {
				resp, err := http.Post(e.http.URL+"/rpc.php", "application/x-www-form-urlencoded",
					bytes.NewReader(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")))
				if err != nil {
					answers <- answer{err: err}
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				answers <- answer{resp.StatusCode, string(b), err}
			}()
			waitLockWait(t, direct)
			if err := c.lose(direct, proxy); err != nil {
				t.Fatal(err)
			}
			a := <-answers
			if a.err != nil {
				t.Fatal(a.err)
			}
			if r := parseReply(t, a.body); a.status != http.StatusServiceUnavailable || r.ErrorNum != boinc.CodeProjectDown {
				t.Errorf("RPC: status %d error %d %q, want 503 with %d", a.status, r.ErrorNum, r.ErrorMsg, boinc.CodeProjectDown)
			}
		})
	}
}

// Package testdb gives each test a fresh PostgreSQL database, migrated to
// Cobble's newest schema (or empty, from NewEmptyURL) and dropped when the
// test ends.
//
// The server comes from COBBLE_TEST_DATABASE_URL, which `make test` sets to
// a throwaway cluster (see internal/pgcluster/withpg). Without it the tests
// that need a database are skipped, except under CI=true, where they fail.
//
// Each test process migrates once, into a template database of its own, and
// every test gets a copy of that template, which is much faster than
// migrating each database.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/migrations"
)

// EnvURL names the variable holding the URL of the test server's
// maintenance database, such as postgres://postgres@127.0.0.1:5432/postgres.
const EnvURL = "COBBLE_TEST_DATABASE_URL"

const (
	// templatePrefix and databasePrefix begin the names of the databases
	// testdb makes, followed by the Unix time of their making.
	templatePrefix = "cobble_tmpl_"
	databasePrefix = "cobble_test_"
	// staleAfter is the age past which such a database is taken for the
	// leftover of a test process that died, and dropped.
	staleAfter = 24 * time.Hour
	// lockKey is the advisory lock, held on the maintenance database, under
	// which a test process makes its template.
	lockKey int64 = 0x636f62626c65 // "cobble"
	// opTimeout bounds each step: making the template, copying, dropping.
	opTimeout = 2 * time.Minute
	// closeTimeout is how long New waits at the end of a test for the pool's
	// connections to be released.
	closeTimeout = 10 * time.Second
)

// New returns a pgx pool on a fresh database migrated to the newest schema.
// The pool is closed and the database dropped when t ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dbURL := NewURL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal("testdb:", err)
	}
	// Registered after NewURL's cleanup, so it runs before the drop.
	t.Cleanup(func() {
		closed := make(chan struct{})
		go func() {
			pool.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(closeTimeout):
			t.Errorf("testdb: the pool did not close within %v: the test did not release a connection it acquired", closeTimeout)
		}
	})
	return pool
}

// NewURL is New for code that opens its own pool: it returns the URL of a
// fresh migrated database, which is dropped when t ends, even while
// connections to it remain.
func NewURL(t testing.TB) string {
	t.Helper()
	server := serverURL(t)
	tmpl, err := templateFor(server)
	if err != nil {
		t.Fatal(err)
	}
	return create(t, server, "TEMPLATE "+ident(tmpl))
}

// NewEmptyURL is NewURL without Cobble's schema (a copy of template0), for
// tests of migrations and of restores.
func NewEmptyURL(t testing.TB) string {
	t.Helper()
	return create(t, serverURL(t), "TEMPLATE template0 ENCODING 'UTF8'")
}

// serverURL returns the test server's URL, skipping t (or failing it
// under CI=true) when there is none.
func serverURL(t testing.TB) string {
	t.Helper()
	server := os.Getenv(EnvURL)
	if server == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("testdb: " + EnvURL + " is not set, and under CI=true a test that needs PostgreSQL must not be skipped; " +
				"run the tests with `make test`, which starts a throwaway PostgreSQL for them")
		}
		t.Skip("testdb: " + EnvURL + " is not set; run `make test` to run this test against a throwaway PostgreSQL")
	}
	return server
}

// create makes a database on server with the options of CREATE DATABASE
// in with, to be dropped when t ends, and returns its URL.
func create(t testing.TB, server, with string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	name := newName(databasePrefix)
	if err := withConn(ctx, server, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "CREATE DATABASE "+ident(name)+" "+with)
		return err
	}); err != nil {
		t.Fatalf("testdb: creating database %s (%s): %v", name, with, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		if err := withConn(ctx, server, func(conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)")
			return err
		}); err != nil {
			t.Errorf("testdb: dropping database %s: %v", name, err)
		}
	})
	dbURL, err := withDatabase(server, name)
	if err != nil {
		t.Fatal(err)
	}
	return dbURL
}

// templates holds, per server, the outcome of making this process's
// template there.
var (
	templatesMu sync.Mutex
	templates   = map[string]func() (string, error){}
)

// templateFor returns the name of this process's migrated template on
// server, making it on the first call.
func templateFor(server string) (string, error) {
	templatesMu.Lock()
	once, ok := templates[server]
	if !ok {
		once = sync.OnceValues(func() (string, error) { return makeTemplate(server) })
		templates[server] = once
	}
	templatesMu.Unlock()
	return once()
}

// makeTemplate makes and migrates a template database for this process,
// under an advisory lock so that test processes starting together take
// turns, and drops the stale databases that dead test processes left.
func makeTemplate(server string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", fmt.Errorf("testdb: connecting to %s: %w", redact(server), err)
	}
	defer admin.Close(context.Background())
	// Closing admin releases the lock.
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return "", fmt.Errorf("testdb: %w", err)
	}

	dropStale(ctx, admin)

	name := newName(templatePrefix)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident(name)+" TEMPLATE template0 ENCODING 'UTF8'"); err != nil {
		return "", fmt.Errorf("testdb: creating template %s: %w", name, err)
	}
	if err := migrate(ctx, server, name); err != nil {
		_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)")
		return "", err
	}
	// A connection to the template would make copying it fail, so none is
	// allowed from now on.
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+ident(name)+" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"); err != nil {
		return "", fmt.Errorf("testdb: %w", err)
	}
	return name, nil
}

// migrate brings database name on server to the newest schema.
func migrate(ctx context.Context, server, name string) error {
	dbURL, err := withDatabase(server, name)
	if err != nil {
		return err
	}
	return withConn(ctx, dbURL, func(conn *pgx.Conn) error {
		if err := migrations.Migrate(ctx, conn); err != nil {
			return fmt.Errorf("testdb: migrating template %s: %w", name, err)
		}
		return nil
	})
}

// dropStale drops the templates and test databases older than staleAfter,
// judged by the time in their names. It is only housekeeping, so it gives
// up quietly on what it cannot drop.
func dropStale(ctx context.Context, admin *pgx.Conn) {
	rows, err := admin.Query(ctx,
		"SELECT datname FROM pg_database WHERE starts_with(datname, $1) OR starts_with(datname, $2)",
		templatePrefix, databasePrefix)
	if err != nil {
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, name := range names {
		if made, ok := madeAt(name); ok && time.Since(made) > staleAfter {
			if _, err := admin.Exec(ctx, "ALTER DATABASE "+ident(name)+" WITH IS_TEMPLATE false"); err == nil {
				_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)")
			}
		}
	}
}

var seq atomic.Int64

// newName returns prefix followed by the Unix time, the process ID, a
// sequence number and a random part: unique on the server even across
// machines that share it.
func newName(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s%d_%d_%d_%s", prefix, time.Now().Unix(), os.Getpid(), seq.Add(1), hex.EncodeToString(b[:]))
}

// madeAt reads the time out of a name from newName.
func madeAt(name string) (time.Time, bool) {
	for _, prefix := range []string{templatePrefix, databasePrefix} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			unix, _, _ := strings.Cut(rest, "_")
			sec, err := strconv.ParseInt(unix, 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(sec, 0), true
		}
	}
	return time.Time{}, false
}

// withDatabase returns the server's connection string with database name
// in place of the one it names.
func withDatabase(server, name string) (string, error) {
	if !strings.HasPrefix(server, "postgres://") && !strings.HasPrefix(server, "postgresql://") {
		// A keyword/value string: the last dbname wins.
		return server + " dbname=" + name, nil
	}
	u, err := url.Parse(server)
	if err != nil {
		return "", fmt.Errorf("testdb: %s is not a URL: %w", EnvURL, err)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// withConn runs f on a connection to connString that it then closes.
func withConn(ctx context.Context, connString string, f func(*pgx.Conn) error) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", redact(connString), err)
	}
	err = f(conn)
	return errors.Join(err, conn.Close(context.WithoutCancel(ctx)))
}

// redact hides the password in a connection string.
func redact(connString string) string {
	if !strings.HasPrefix(connString, "postgres://") && !strings.HasPrefix(connString, "postgresql://") {
		return "the server in " + EnvURL
	}
	if u, err := url.Parse(connString); err == nil {
		return u.Redacted()
	}
	return "the server in " + EnvURL
}

func ident(name string) string {
	return pgx.Identifier{name}.Sanitize()
}

package testdb

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// schemaVersion returns the migration version a database is at.
func schemaVersion(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var v int
	if err := pool.QueryRow(t.Context(), "SELECT version FROM schema_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNewGivesIndependentDatabases(t *testing.T) {
	a, b := New(t), New(t)
	ctx := t.Context()

	var nameA, nameB string
	if err := a.QueryRow(ctx, "SELECT current_database()").Scan(&nameA); err != nil {
		t.Fatal(err)
	}
	if err := b.QueryRow(ctx, "SELECT current_database()").Scan(&nameB); err != nil {
		t.Fatal(err)
	}
	if nameA == nameB {
		t.Fatalf("both pools are on %s", nameA)
	}
	if va, vb := schemaVersion(t, a), schemaVersion(t, b); va < 1 || va != vb {
		t.Errorf("schema versions %d and %d, want the same newest one", va, vb)
	}

	// What one test writes, the other does not see.
	if _, err := a.Exec(ctx, "CREATE TABLE only_in_a (v int); INSERT INTO only_in_a VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	var exists bool
	if err := b.QueryRow(ctx, "SELECT to_regclass('only_in_a') IS NOT NULL").Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Error("a table made in one database shows in the other")
	}
}

func TestDatabaseDroppedAtEnd(t *testing.T) {
	var name string
	t.Run("user", func(t *testing.T) {
		pool := New(t)
		if err := pool.QueryRow(t.Context(), "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		// A connection left open by code under test does not stop the drop.
		conn, err := pgx.Connect(t.Context(), NewURL(t))
		if err != nil {
			t.Fatal(err)
		}
		_ = conn
	})
	if name == "" {
		return // The subtest was skipped, or failed.
	}
	var exists bool
	err := withConn(t.Context(), os.Getenv(EnvURL), func(conn *pgx.Conn) error {
		return conn.QueryRow(t.Context(), "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	})
	if err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database %s is still there after its test ended", name)
	}
}

func TestNewURL(t *testing.T) {
	u := NewURL(t)
	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var tables []string
	rows, err := conn.Query(t.Context(), "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('users', 'schema_version') ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	if tables, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"schema_version", "users"}, tables); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
}

func TestNewEmptyURL(t *testing.T) {
	u := NewEmptyURL(t)
	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var tables int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("the empty database has %d tables", tables)
	}
	if other := NewEmptyURL(t); other == u {
		t.Errorf("two calls gave one database, %s", u)
	}
}

func TestParallel(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			pool := New(t)
			if _, err := pool.Exec(t.Context(), "CREATE TABLE mine (v int)"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// recorder stands in for a test, to see whether NewURL skips or fails it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.failed = fmt.Sprint(args...)
	runtime.Goexit()
}

func runRecorded(t *testing.T) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		NewURL(r)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("NewURL did not return")
	}
	return r
}

func TestWithoutServer(t *testing.T) {
	t.Setenv(EnvURL, "")

	t.Setenv("CI", "")
	if r := runRecorded(t); r.failed != "" || !strings.Contains(r.skipped, "make test") {
		t.Errorf("outside CI: skipped %q, failed %q; want a skip that names make test", r.skipped, r.failed)
	}

	t.Setenv("CI", "true")
	if r := runRecorded(t); r.skipped != "" || !strings.Contains(r.failed, EnvURL) {
		t.Errorf("under CI=true: skipped %q, failed %q; want a failure", r.skipped, r.failed)
	}
}

func TestWithDatabase(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable": "postgres://postgres@127.0.0.1:5432/x?sslmode=disable",
		"postgresql://u:p@h/":           "postgresql://u:p@h/x",
		"host=h user=u dbname=postgres": "host=h user=u dbname=postgres dbname=x",
	} {
		got, err := withDatabase(in, "x")
		if err != nil || got != want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestNames(t *testing.T) {
	a, b := newName(databasePrefix), newName(databasePrefix)
	if a == b || len(a) > 63 {
		t.Errorf("names %q and %q: want different ones of at most 63 bytes", a, b)
	}
	made, ok := madeAt(a)
	if !ok || time.Since(made) > time.Minute {
		t.Errorf("madeAt(%q) = %v, %v", a, made, ok)
	}
	if _, ok := madeAt("cobble"); ok {
		t.Error("madeAt accepted a name testdb does not make")
	}
}

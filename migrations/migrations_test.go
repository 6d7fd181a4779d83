package migrations_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/migrations"
)

// connect opens a connection to a fresh database without Cobble's schema.
func connect(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), testdb.NewEmptyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// migrated opens a connection to a fresh database with Cobble's newest
// schema.
func migrated(t *testing.T) *pgx.Conn {
	t.Helper()
	conn := connect(t)
	if err := migrations.Migrate(t.Context(), conn); err != nil {
		t.Fatal(err)
	}
	return conn
}

func status(t *testing.T, conn *pgx.Conn) migrations.Status {
	t.Helper()
	st, err := migrations.ReadStatus(t.Context(), conn)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStatusAndMigrateTo(t *testing.T) {
	t.Parallel()
	conn := connect(t)
	st := status(t, conn)
	if st.Version != 0 || len(st.Names) < 9 || st.Pending() != len(st.Names) || st.Newer() {
		t.Fatalf("empty database: %+v, pending %d", st, st.Pending())
	}
	var created bool
	if err := conn.QueryRow(t.Context(), `SELECT to_regclass('schema_version') IS NOT NULL`).Scan(&created); err != nil || created {
		t.Errorf("ReadStatus on an empty database made the version table (%v)", err)
	}
	for i, name := range st.Names {
		if !strings.HasPrefix(name, fmt.Sprintf("%03d_", i+1)) || !strings.HasSuffix(name, ".sql") {
			t.Errorf("migration %d is named %q", i+1, name)
		}
	}
	if err := migrations.MigrateTo(t.Context(), conn, 8); err != nil {
		t.Fatal(err)
	}
	if st := status(t, conn); st.Version != 8 || st.Pending() != len(st.Names)-8 {
		t.Errorf("after MigrateTo 8: version %d, pending %d", st.Version, st.Pending())
	}
	for _, v := range []int{7, -1, len(st.Names) + 1} {
		if err := migrations.MigrateTo(t.Context(), conn, v); err == nil {
			t.Errorf("MigrateTo %d from 8 succeeded", v)
		}
	}
	if err := migrations.Migrate(t.Context(), conn); err != nil {
		t.Fatal(err)
	}
	if st := status(t, conn); st.Version != len(st.Names) || st.Pending() != 0 {
		t.Errorf("after Migrate: version %d of %d, pending %d", st.Version, len(st.Names), st.Pending())
	}
}

func TestNewerDatabase(t *testing.T) {
	t.Parallel()
	conn := migrated(t)
	if _, err := conn.Exec(t.Context(), `UPDATE schema_version SET version = 999`); err != nil {
		t.Fatal(err)
	}
	st := status(t, conn)
	if !st.Newer() || st.Pending() != 0 || st.Version != 999 {
		t.Errorf("status %+v: newer %v, pending %d", st, st.Newer(), st.Pending())
	}
	err := migrations.Migrate(t.Context(), conn)
	var newer migrations.NewerError
	if !errors.As(err, &newer) || newer.Version != 999 || newer.Known != len(st.Names) {
		t.Fatalf("Migrate on version 999: %v, want a NewerError", err)
	}
	want := fmt.Sprintf("the database is at version 999, newer than this cobble knows (%d); use a newer cobble", len(st.Names))
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	var v int
	if err := conn.QueryRow(t.Context(), `SELECT version FROM schema_version`).Scan(&v); err != nil || v != 999 {
		t.Errorf("version after the refusal: %d (%v), want 999 untouched", v, err)
	}
}

// Migration 021 brings in River's tables through River's migrator, which
// records its versions; a second Migrate changes nothing.
func TestRiverTables(t *testing.T) {
	t.Parallel()
	conn := migrated(t)
	if err := migrations.Migrate(t.Context(), conn); err != nil {
		t.Fatalf("migrating again: %v", err)
	}
	rows, _ := conn.Query(t.Context(), `SELECT version FROM river_migration WHERE line = 'main' ORDER BY version`)
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != 8 || versions[0] != 1 || versions[7] != 8 {
		t.Errorf("river_migration records %v, want River's versions 1 to 8", versions)
	}
	var job bool
	if err := conn.QueryRow(t.Context(), `SELECT to_regclass('river_job') IS NOT NULL`).Scan(&job); err != nil || !job {
		t.Errorf("river_job exists: %v (%v)", job, err)
	}
}

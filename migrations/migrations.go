// Package migrations holds Cobble's schema as numbered plain SQL files,
// embedded in the binary and applied in order by tern.
//
// A migration that has landed is never edited; a change is a new file.
package migrations

import (
	"context"
	"embed"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/tern/v2/migrate"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed *.sql
var files embed.FS

// versionTable is where tern records the applied version: the number of
// migrations applied, in order.
const versionTable = "schema_version"

// Status is where a database's schema stands against the migrations this
// binary embeds.
type Status struct {
	// Version is the version the database records: how many migrations it
	// has applied (0 for an empty database).
	Version int
	// Names are the embedded migrations' file names, in the order they
	// apply, such as "001_initial.sql".
	Names []string
}

// Pending returns how many embedded migrations the database has not
// applied; 0 when it is up to date or newer.
func (s Status) Pending() int { return max(len(s.Names)-s.Version, 0) }

// Newer reports whether the database records more migrations than this
// binary knows: a newer Cobble migrated it, and this one must not use it.
func (s Status) Newer() bool { return s.Version > len(s.Names) }

// NewerError is the error of a database migrated by a newer Cobble.
type NewerError struct {
	Version int // the version the database records
	Known   int // the migrations this binary knows
}

// Error says what to do: use a newer cobble.
func (e NewerError) Error() string {
	return fmt.Sprintf("the database is at version %d, newer than this cobble knows (%d); use a newer cobble",
		e.Version, e.Known)
}

// ReadStatus reads the version conn's database records, and changes
// nothing: a database without tern's version table is at version 0.
func ReadStatus(ctx context.Context, conn *pgx.Conn) (Status, error) {
	names, err := migrate.FindMigrations(files)
	if err != nil {
		return Status{}, fmt.Errorf("migrations: load: %w", err)
	}
	st := Status{Names: names}
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, versionTable).Scan(&exists); err != nil {
		return Status{}, fmt.Errorf("migrations: reading the version: %w", err)
	}
	if !exists {
		return st, nil
	}
	if err := conn.QueryRow(ctx, `SELECT version FROM `+versionTable).Scan(&st.Version); err != nil {
		return Status{}, fmt.Errorf("migrations: reading the version: %w", err)
	}
	return st, nil
}

// Migrate applies every pending migration on conn. tern holds a PostgreSQL
// advisory lock meanwhile, so several Cobble instances starting at once
// apply each migration exactly once. A database newer than this binary is
// refused with a NewerError.
func Migrate(ctx context.Context, conn *pgx.Conn) error {
	names, err := migrate.FindMigrations(files)
	if err != nil {
		return fmt.Errorf("migrate: load: %w", err)
	}
	return MigrateTo(ctx, conn, len(names))
}

// MigrateTo applies the migrations up to and including number version on
// conn, for tests and tools that need an older schema (Migrate applies
// them all). It never undoes migrations: a database past version is
// refused, one newer than this binary with a NewerError.
func MigrateTo(ctx context.Context, conn *pgx.Conn, version int) error {
	m, err := migrator(ctx, conn)
	if err != nil {
		return err
	}
	v, err := m.GetCurrentVersion(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("migrate: reading the version: %w", err)
	case int(v) > len(m.Migrations):
		return NewerError{Version: int(v), Known: len(m.Migrations)}
	case version < 0 || version > len(m.Migrations):
		return fmt.Errorf("migrate: there is no migration %d (this cobble knows %d)", version, len(m.Migrations))
	case int(v) > version:
		return fmt.Errorf("migrate: the database is at version %d, past %d; migrations are never undone", v, version)
	}
	return migrateLocked(ctx, conn, m, int(v), version)
}

// migrateLocked applies the migrations after from up to version under
// migrateLock, running River's migrator before migration riverMigration.
func migrateLocked(ctx context.Context, conn *pgx.Conn, m *migrate.Migrator, from, version int) error {
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLock); err != nil {
		return fmt.Errorf("migrate: locking: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLock)
	if from < riverMigration && version >= riverMigration {
		if err := m.MigrateTo(ctx, riverMigration-1); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if err := migrateRiver(ctx, conn); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if err := m.MigrateTo(ctx, int32(version)); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// Pending reports how many migrations conn's database has not applied yet;
// 0 for a database that is up to date or newer (see ReadStatus).
func Pending(ctx context.Context, conn *pgx.Conn) (int, error) {
	st, err := ReadStatus(ctx, conn)
	return st.Pending(), err
}

// migrator returns a tern migrator on conn with the embedded migrations.
func migrator(ctx context.Context, conn *pgx.Conn) (*migrate.Migrator, error) {
	m, err := migrate.NewMigrator(ctx, conn, versionTable)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	if err := m.LoadMigrations(files); err != nil {
		return nil, fmt.Errorf("migrations: load: %w", err)
	}
	return m, nil
}

// riverMigration is the migration that brings in River's tables: River's
// migrator runs just before it (migrateRiver).
const riverMigration = 21

// riverVersions is the last of River's schema versions that migration 021
// applies. A River release with a newer schema takes a new migration that
// runs River's migrator up to its version, so that what 021 applies stays
// as it landed.
const riverVersions = 8

// migrateLock is the advisory lock under which one Cobble at a time runs
// the migrations, River's with them (tern locks only its own steps).
const migrateLock int64 = 0x636f62626c6d // "cobblm"

// migrateRiver applies River's schema versions up to riverVersions with
// River's migrator, on a connection of its own to conn's database.
func migrateRiver(ctx context.Context, conn *pgx.Conn) error {
	cfg, err := pgxpool.ParseConfig(conn.Config().ConnString())
	if err != nil {
		return fmt.Errorf("river: %w", err)
	}
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("river: %w", err)
	}
	defer pool.Close()
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: quiet})
	if err != nil {
		return fmt.Errorf("river: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{TargetVersion: riverVersions}); err != nil {
		return fmt.Errorf("river: %w", err)
	}
	return nil
}

// quiet drops River's migrator's log: cobble migrate reports the outcome.
var quiet = slog.New(slog.DiscardHandler)

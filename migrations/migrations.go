// Package migrations holds Cobble's schema as numbered plain SQL files,
// embedded in the binary and applied in order by tern.
//
// A migration that has landed is never edited; a change is a new file.
package migrations

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"
)

//go:embed *.sql
var files embed.FS

// versionTable is where tern records the applied version.
const versionTable = "schema_version"

// Migrate applies every pending migration on conn. tern holds a PostgreSQL
// advisory lock meanwhile, so several Cobble instances starting at once
// apply each migration exactly once.
func Migrate(ctx context.Context, conn *pgx.Conn) error {
	m, err := migrate.NewMigrator(ctx, conn, versionTable)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := m.LoadMigrations(files); err != nil {
		return fmt.Errorf("migrate: load: %w", err)
	}
	if err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// Pending reports how many migrations conn's database has not applied yet.
func Pending(ctx context.Context, conn *pgx.Conn) (int, error) {
	m, err := migrate.NewMigrator(ctx, conn, versionTable)
	if err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	if err := m.LoadMigrations(files); err != nil {
		return 0, fmt.Errorf("migrations: load: %w", err)
	}
	v, err := m.GetCurrentVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	return len(m.Migrations) - int(v), nil
}

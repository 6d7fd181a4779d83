package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/migrations"
)

// previousRelease is the schema version of Cobble's previous release:
// migrations 001 to 008; 009_mail.sql is new in this one.
const previousRelease = 8

// databaseAt returns the URL of a fresh database migrated to version,
// dropped when t ends.
func databaseAt(t *testing.T, version int) string {
	t.Helper()
	dbURL := bareDatabase(t)
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := migrations.MigrateTo(t.Context(), conn, version); err != nil {
		t.Fatal(err)
	}
	return dbURL
}

// schemaStatus reads the migration status of the database at dbURL.
func schemaStatus(t *testing.T, dbURL string) migrations.Status {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	st, err := migrations.ReadStatus(t.Context(), conn)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// statusLines is what cobble migrate --status lists for a database at
// version, given the migrations this binary knows, before its summary.
func statusLines(names []string, version int) string {
	var b strings.Builder
	for i, name := range names {
		state := map[bool]string{true: "applied", false: "pending"}[i < version]
		fmt.Fprintf(&b, "%s  %s\n", state, name)
	}
	return b.String()
}

// migrateStatusCase is a database and what cobble migrate --status says of
// it.
type migrateStatusCase struct {
	name    string
	dbURL   string
	version int
	status  int
	stdout  string
	stderr  string // the last line of stderr
}

func TestMigrateStatus(t *testing.T) {
	t.Parallel()
	names := schemaStatus(t, bareDatabase(t)).Names
	n := len(names)
	if n <= previousRelease || names[previousRelease] != "009_mail.sql" {
		t.Fatalf("migrations %q: the first of this release should be 009_mail.sql", names)
	}
	cases := []migrateStatusCase{
		{name: "empty", dbURL: bareDatabase(t),
			stdout: statusLines(names, 0) + fmt.Sprintf("0 applied, %d pending: run 'cobble migrate'\n", n)},
		{name: "previous release", dbURL: databaseAt(t, previousRelease), version: previousRelease,
			stdout: statusLines(names, previousRelease) +
				fmt.Sprintf("%d applied, %d pending: run 'cobble migrate'\n", previousRelease, n-previousRelease)},
		{name: "current", dbURL: testdb.NewURL(t), version: n,
			stdout: statusLines(names, n) + fmt.Sprintf("%d applied, 0 pending: the database is up to date\n", n)},
		{name: "newer", dbURL: schemaAt(t, 999), version: 999, status: 1, stdout: statusLines(names, n),
			stderr: newerThan(n)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.check(t)
		})
	}
}

// check runs cobble migrate --status on c's database and checks that it
// said what c expects and changed nothing.
func (c migrateStatusCase) check(t *testing.T) {
	t.Helper()
	status, stdout, stderr := runProcess(t, map[string]string{"DATABASE_URL": c.dbURL}, "migrate", "--status")
	if status != c.status || stdout != c.stdout || (c.stderr != "" && lastLine(stderr) != c.stderr) {
		t.Errorf("migrate --status: exit %d, want %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", status, c.status, stdout, c.stdout, stderr)
	}
	if v := schemaStatus(t, c.dbURL).Version; v != c.version {
		t.Errorf("after migrate --status the database is at version %d, want %d unchanged", v, c.version)
	}
	var table bool
	query(t, c.dbURL, []any{&table}, `SELECT to_regclass('schema_version') IS NOT NULL`)
	if table != (c.version > 0) {
		t.Errorf("version table there: %v; migrate --status must not make it", table)
	}
}

func TestSchemaCommandLine(t *testing.T) {
	t.Parallel()
	maybe := map[string]string{"COBBLE_AUTO_MIGRATE": "maybe"}
	cases := []errCase{
		{name: "serve -h", args: []string{"serve", "-h"}, wantNil: true,
			stderr: []string{"-auto-migrate", "COBBLE_AUTO_MIGRATE=true|false)\n", "-no-migrate", "the default; kept for older scripts"}},
		{name: "dev -h", args: []string{"dev", "-h"}, wantNil: true,
			stderr: []string{"-auto-migrate", "COBBLE_AUTO_MIGRATE=true|false) (default true)"}},
		{name: "migrate -h", args: []string{"migrate", "-h"}, wantNil: true, stderr: []string{"-status"}},
		{name: "ledger check -h", args: []string{"ledger", "check", "-h"}, wantNil: true},
		{name: "help", args: []string{"help"}, wantNil: true, stdout: []string{"ledger check", "--status"}},
		{name: "migrate --status without DATABASE_URL", args: []string{"migrate", "--status"}, usage: true,
			want: []string{"DATABASE_URL is not set"}},
		{name: "ledger check without DATABASE_URL", args: []string{"ledger", "check"}, usage: true,
			want: []string{"DATABASE_URL is not set"}},
		{name: "ledger check stray argument", args: []string{"ledger", "check", "now"}, usage: true, want: []string{`"now"`}},
		{name: "auto-migrate and no-migrate", args: []string{"serve", "--auto-migrate", "--no-migrate"}, usage: true,
			want: []string{"--auto-migrate and --no-migrate"}},
		{name: "COBBLE_AUTO_MIGRATE not a boolean", args: []string{"serve"}, env: maybe, usage: true,
			want: []string{`COBBLE_AUTO_MIGRATE="maybe"`}},
		{name: "dev COBBLE_AUTO_MIGRATE not a boolean", args: []string{"dev"}, env: maybe, usage: true,
			want: []string{"COBBLE_AUTO_MIGRATE"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.check(t)
		})
	}
}

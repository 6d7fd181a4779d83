package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/migrations"
)

// registerAutoMigrate adds --auto-migrate to fs, defaulting to
// COBBLE_AUTO_MIGRATE (true or false) when set, else to def (which differs
// from the table's for cobble dev).
func registerAutoMigrate(fs *flag.FlagSet, env environment, def bool) (*bool, error) {
	var auto bool
	b := &binder{fs: fs, env: env}
	optAutoMigrate.to(b, &auto)
	if err := b.err; err != nil {
		return nil, err
	}
	if env.getenv(optAutoMigrate.env) == "" {
		auto = def
		fs.Lookup("auto-migrate").DefValue = strconv.FormatBool(def)
	}
	return &auto, nil
}

// openToServe opens the database for a serving command and checks its
// schema (checkSchema), migrating it first when autoMigrate.
func openToServe(ctx context.Context, dbURL string, autoMigrate bool, statementTimeout time.Duration) (*pgxpool.Pool, error) {
	pool, err := openDB(ctx, dbURL, false, statementTimeout)
	if err != nil {
		return nil, err
	}
	if err := checkSchema(ctx, pool, autoMigrate); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// migrationStatus prints one line per migration this binary knows, applied
// or pending, then a summary. A database newer than this binary is an
// error, after the list.
func (env environment) migrationStatus(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer conn.Release()
	st, err := migrations.ReadStatus(ctx, conn.Conn())
	if err != nil {
		return fmt.Errorf("reading the database schema: %s", oneLine(err.Error()))
	}
	for i, name := range st.Names {
		state := "applied"
		if i >= st.Version {
			state = "pending"
		}
		fmt.Fprintf(env.stdout, "%s  %s\n", state, name)
	}
	applied := min(st.Version, len(st.Names))
	switch {
	case st.Newer():
		return migrations.NewerError{Version: st.Version, Known: len(st.Names)}
	case st.Pending() > 0:
		fmt.Fprintf(env.stdout, "%d applied, %d pending: run 'cobble migrate'\n", applied, st.Pending())
	default:
		fmt.Fprintf(env.stdout, "%d applied, 0 pending: the database is up to date\n", applied)
	}
	return nil
}

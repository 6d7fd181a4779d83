package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/migrations"
	"github.com/cobble-am/cobble/web"
)

func (env environment) serve(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	var sf serverFlags
	if err := sf.register(fs, env); err != nil {
		return err
	}
	noMigrate := fs.Bool("no-migrate", false, "do not apply pending migrations at start")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := sf.config()
	if err != nil {
		return err
	}
	dbURL, err := env.databaseURL()
	if err != nil {
		return err
	}
	pool, err := openDB(ctx, dbURL, !*noMigrate)
	if err != nil {
		return err
	}
	defer pool.Close()
	return env.listenAndServe(ctx, cfg, sf.addr, pool)
}

// listenAndServe serves Cobble on addr until ctx ends.
func (env environment) listenAndServe(ctx context.Context, cfg web.Config, addr string, pool *pgxpool.Pool) error {
	log := slog.New(slog.NewTextHandler(env.stderr, nil))
	srv, err := web.New(ctx, cfg, pool, log)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	log.Info("serving", "addr", l.Addr().String(), "base_url", cfg.BaseURL)
	return srv.Serve(ctx, l)
}

func (env environment) migrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dbURL, err := env.databaseURL()
	if err != nil {
		return err
	}
	pool, err := openDB(ctx, dbURL, true)
	if err != nil {
		return err
	}
	pool.Close()
	fmt.Fprintln(env.stdout, "database is up to date")
	return nil
}

func (env environment) databaseURL() (string, error) {
	u := env.getenv("DATABASE_URL")
	if u == "" {
		return "", fmt.Errorf("%w: DATABASE_URL is not set (for example postgres://user:pass@127.0.0.1:5432/cobble); "+
			"'cobble dev' runs without one", errUsage)
	}
	return u, nil
}

// openDB connects to PostgreSQL, checks that it answers and, if migrate is
// set, applies pending migrations.
func openDB(ctx context.Context, dbURL string, migrate bool) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("%w: DATABASE_URL is not a PostgreSQL URL", errUsage)
	}
	cfg.MaxConns = max(cfg.MaxConns, 16)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot reach the database at %s:%d: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, errors.Unwrap(err))
	}
	if migrate {
		if err := applyMigrations(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return pool, nil
}

func applyMigrations(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer conn.Release()
	return migrations.Migrate(ctx, conn.Conn())
}

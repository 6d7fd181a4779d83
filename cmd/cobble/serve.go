package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
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
	autoMigrate, err := registerAutoMigrate(fs, env, false)
	if err != nil {
		return err
	}
	var noMigrate bool
	var readURL string
	b := &binder{fs: fs, env: env}
	optNoMigrate.to(b, &noMigrate)
	optDatabaseReadURL.to(b, &readURL)
	if err := b.err; err != nil {
		return err
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if noMigrate && *autoMigrate && flagSet(fs, "auto-migrate") {
		return fmt.Errorf("%w: --auto-migrate and --no-migrate contradict each other", errUsage)
	}
	cfg, err := sf.config()
	if err != nil {
		return err
	}
	dbURL, err := env.databaseURL()
	if err != nil {
		return err
	}
	if readURL != "" {
		if cfg.Replica, err = openReplica(ctx, readURL, cfg.RequestTimeout); err != nil {
			return err
		}
		defer cfg.Replica.Close()
	}
	pool, err := openToServe(ctx, dbURL, *autoMigrate && !noMigrate, cfg.RequestTimeout)
	if err != nil {
		return err
	}
	defer pool.Close()
	return env.listenAndServe(ctx, cfg, sf.addr, pool)
}

// openReplica makes the pool of the read replica at readURL without
// connecting: a replica that does not answer must not keep Cobble from
// serving (the primary then takes its reads, and the admin overview says
// so).
func openReplica(ctx context.Context, readURL string, statementTimeout time.Duration) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(readURL)
	if err != nil {
		return nil, fmt.Errorf("%w: --database-read-url (COBBLE_DATABASE_READ_URL) is not a PostgreSQL URL", errUsage)
	}
	if _, set := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !set && statementTimeout > 0 {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(statementTimeout.Milliseconds(), 10)
	}
	cfg.MaxConns = max(cfg.MaxConns, 8)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("read replica: %w", err)
	}
	return pool, nil
}

// checkSchema refuses a database this binary cannot serve, which would
// otherwise fail request by request once serving: one a newer Cobble
// migrated, and one with migrations pending, unless autoMigrate, which
// applies them.
func checkSchema(ctx context.Context, pool *pgxpool.Pool, autoMigrate bool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	st, err := migrations.ReadStatus(ctx, conn.Conn())
	conn.Release()
	if err != nil {
		return fmt.Errorf("checking the database schema: %s", oneLine(err.Error()))
	}
	n := st.Pending()
	switch {
	case st.Newer():
		return migrations.NewerError{Version: st.Version, Known: len(st.Names)}
	case n == 0:
		return nil
	case autoMigrate:
		return applyMigrations(ctx, pool)
	case n == 1:
		return errors.New("the database schema is 1 migration behind; run 'cobble migrate' (or start with --auto-migrate)")
	}
	return fmt.Errorf("the database schema is %d migrations behind; run 'cobble migrate' (or start with --auto-migrate)", n)
}

// listenAndServe serves Cobble on addr until ctx ends.
func (env environment) listenAndServe(ctx context.Context, cfg web.Config, addr string, pool *pgxpool.Pool) error {
	log := slog.New(logHandler(env.stderr, cfg.LogFormat))
	srv, err := web.New(ctx, cfg, pool, log)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	log.Info("serving", "addr", l.Addr().String(), "base_url", cfg.BaseURL)
	if cfg.Mail.SMTPURL == "" && !cfg.Mail.DevMailbox {
		log.Warn("no --smtp-url: mail (password resets among it) waits in the outbox until one is set")
	}
	return srv.Serve(ctx, l)
}

func (env environment) migrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	status := fs.Bool("status", false, "list the applied and pending migrations, and change nothing")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dbURL, err := env.databaseURL()
	if err != nil {
		return err
	}
	pool, err := openDB(ctx, dbURL, !*status, 0)
	if err != nil {
		return err
	}
	defer pool.Close()
	if *status {
		return env.migrationStatus(ctx, pool)
	}
	fmt.Fprintln(env.stdout, "database is up to date")
	return nil
}

func (env environment) databaseURL() (string, error) {
	u := env.getenv(optDatabaseURL.env)
	if u == "" {
		return "", fmt.Errorf("%w: DATABASE_URL is not set (for example postgres://user:pass@127.0.0.1:5432/cobble); "+
			"'cobble dev' runs without one", errUsage)
	}
	return u, nil
}

// openDB connects to PostgreSQL, checks that it answers and, if migrate is
// set, applies pending migrations. A statementTimeout above 0 becomes the
// sessions' statement_timeout (unless DATABASE_URL sets one): the net
// under the requests' own deadlines for a statement that runs too long.
func openDB(ctx context.Context, dbURL string, migrate bool, statementTimeout time.Duration) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("%w: DATABASE_URL is not a PostgreSQL URL", errUsage)
	}
	if err := followPrimary(&cfg.ConnConfig.Config); err != nil {
		return nil, err
	}
	if _, set := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !set && statementTimeout > 0 {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(statementTimeout.Milliseconds(), 10)
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
		reason := connectFailure(err)
		if pw := cfg.ConnConfig.Password; pw != "" {
			reason = strings.ReplaceAll(reason, pw, "xxxxx") // should pgx ever quote it
		}
		return nil, fmt.Errorf("cannot reach the database at %s:%d: %s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, reason)
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
	// Migrations may take long; the session's statement_timeout is for
	// requests, and RESET brings it back for them.
	if _, err := conn.Exec(ctx, `SET statement_timeout = 0`); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `RESET statement_timeout`)
	return migrations.Migrate(ctx, conn.Conn())
}

// connectFailure says in a few words why connecting failed. pgx's own error
// repeats the host for each attempt (with and without TLS), one a line.
func connectFailure(err error) string {
	var pgErr *pgconn.PgError
	var dnsErr *net.DNSError
	var sysErr *os.SyscallError
	var opErr *net.OpError
	switch {
	case errors.As(err, &pgErr):
		return pgErr.Message // such as: password authentication failed for user "cobble"
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.As(err, &dnsErr):
		return dnsErr.Error()
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return "no answer in time"
	case errors.As(err, &sysErr):
		return sysErr.Err.Error() // such as: connection refused
	case errors.As(err, &opErr):
		return opErr.Err.Error()
	}
	return oneLine(err.Error())
}

// oneLine joins the distinct lines of s with "; ".
func oneLine(s string) string {
	var lines []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

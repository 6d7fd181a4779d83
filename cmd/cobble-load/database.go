package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/internal/pgcluster"
	"github.com/cobble-am/cobble/migrations"
)

// database is the PostgreSQL database of a run, with the tool's own pool
// (Cobble's server has another).
type database struct {
	url  string
	what string // where it comes from, for the report
	// migrated says how this run migrated a schema it found, for the
	// report ("" for a new database or one up to date).
	migrated string
	pool     *pgxpool.Pool

	cluster *pgcluster.Cluster // a throwaway cluster, if the tool started one
	tmp     string             // the cluster's temporary directory
}

// loadDatabase is the database the tool creates in a throwaway cluster.
const loadDatabase = "cobble_load"

// openDatabase connects to --db, or starts a throwaway cluster, and migrates
// the database when Cobble is to run in this process.
func openDatabase(ctx context.Context, cfg config, logw io.Writer) (*database, error) {
	db := &database{url: cfg.dbURL, what: describeDB(cfg.dbURL) + " (--db or DATABASE_URL)"}
	if db.url == "" {
		if err := db.startCluster(ctx, cfg, logw); err != nil {
			db.close(logw)
			return nil, err
		}
	}
	pc, err := pgxpool.ParseConfig(db.url)
	if err != nil {
		db.close(logw)
		return nil, fmt.Errorf("%w: --db is not a PostgreSQL URL", errUsage)
	}
	// Enough for the ceiling's workers, plus one for checks.
	pc.MaxConns = int32(cfg.concurrency + 1)
	if db.pool, err = pgxpool.NewWithConfig(ctx, pc); err == nil {
		err = db.pool.Ping(ctx)
	}
	if err == nil && cfg.url == "" {
		err = db.migrate(ctx)
	}
	if err != nil {
		db.close(logw)
		return nil, fmt.Errorf("database: %w", err)
	}
	return db, nil
}

// startCluster starts a private cluster, in a temporary directory or in
// dir (kept, and used again if it holds one), and creates the tool's
// database in it.
func (db *database) startCluster(ctx context.Context, cfg config, logw io.Writer) error {
	durable, dir := cfg.pgDurable, cfg.clusterDir
	data, what := dir, "a private cluster kept in "+dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "cobble-load-")
		if err != nil {
			return err
		}
		db.tmp = tmp
		if os.Geteuid() == 0 {
			// PostgreSQL then runs as the postgres user, which must get through.
			if err := os.Chmod(tmp, 0o711); err != nil {
				return err
			}
		}
		data, what = filepath.Join(tmp, "data"), "a throwaway private cluster"
	}
	var err error
	db.cluster, err = pgcluster.StartWith(ctx, data, pgcluster.Options{Log: logw,
		Settings: clusterSettings(durable, cfg.costs, cfg.pgBuffers)})
	if err != nil {
		return err
	}
	if err := db.cluster.CreateDatabase(ctx, loadDatabase); err != nil {
		return err
	}
	db.url = db.cluster.URL(loadDatabase)
	kind := "throwaway settings (no fsync, asynchronous commit)"
	if durable {
		kind = "durable settings (--pg-durable: fsync, synchronous commit, full-page writes)"
	}
	db.what = what + " with " + kind
	return nil
}

// clusterSettings are ThrowawaySettings, except that a durable cluster
// keeps what makes commits survive a crash, and one measuring costs loads
// pg_stat_statements; buffers, when set, is its shared_buffers.
func clusterSettings(durable, costs bool, buffers string) map[string]string {
	s := pgcluster.ThrowawaySettings()
	if buffers != "" {
		s["shared_buffers"] = buffers
	}
	if durable {
		s["fsync"], s["synchronous_commit"], s["full_page_writes"] = "on", "on", "on"
	}
	if costs {
		s["shared_preload_libraries"] = "pg_stat_statements"
	}
	return s
}

// migrate brings the database to Cobble's newest schema.
func (db *database) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	st, err := migrations.ReadStatus(ctx, conn.Conn())
	if err != nil || st.Pending() == 0 {
		return err
	}
	began := time.Now()
	if err := migrations.Migrate(ctx, conn.Conn()); err != nil {
		return err
	}
	if st.Version > 0 {
		db.migrated = fmt.Sprintf("migrated from version %d to %d in %v", st.Version, len(st.Names), since(began))
	}
	return nil
}

// settings returns the server settings the report shows, as name=value.
func (db *database) settings(ctx context.Context) ([]string, error) {
	names := []string{"server_version", "fsync", "synchronous_commit", "full_page_writes",
		"shared_buffers", "max_connections"}
	out := make([]string, len(names))
	for i, name := range names {
		var v string
		if err := db.pool.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&v); err != nil {
			return nil, fmt.Errorf("database: %w", err)
		}
		out[i] = name + "=" + v
	}
	return out, nil
}

// close closes the pool, then stops and removes a throwaway cluster.
func (db *database) close(logw io.Writer) {
	if db.pool != nil {
		db.pool.Close()
	}
	var errs []error
	if db.cluster != nil {
		errs = append(errs, db.cluster.Stop())
	}
	if db.tmp != "" {
		errs = append(errs, os.RemoveAll(db.tmp))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(logw, "cobble-load: cleaning up the throwaway cluster:", err)
	}
}

package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// db keeps reconciliation's runs and what they read in PostgreSQL:
// reconcile_runs, the export's files and credit, the confirmed ledger,
// and each run's orphans, missing hosts and unverified matches.
type db struct {
	pool *pgxpool.Pool
	// reads is the pool for the reports' reads, which may lag a little:
	// the read replica when one is in use (accounting.Store.ReadPool).
	reads func(context.Context) *pgxpool.Pool
}

// op wraps err with the operation's name, in the domain's vocabulary
// (accounting.ErrNotFound, ErrConflict, ErrUnavailable).
func op(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", name, accounting.Classify(err))
}

// backgroundTx runs fn in one transaction, committed if fn returns nil,
// without the statement_timeout that serving sessions carry as a net for
// requests: a run's commit may take long; ctx still bounds it.
func (d *db) backgroundTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL statement_timeout = 0`); err != nil {
			return err
		}
		return fn(tx)
	})
}

// abandonRuns marks the project's runs still "running" abandoned. The
// caller holds the project's lock, which a live runner would hold: such
// runs belong to a process that died (the lock died with its session).
func (d *db) abandonRuns(ctx context.Context, projectID int64, now time.Time) error {
	_, err := d.pool.Exec(ctx, `
		UPDATE reconcile_runs SET status = 'abandoned', finished_at = $2,
			error = 'the process running it stopped before it ended'
		WHERE project_id = $1 AND status = 'running'`, projectID, now)
	return err
}

const runColumns = `id, project_id, started_at, finished_at, status, source, export_time,
	hosts_scanned, hosts_matched, orphans, missing, error, ratios_from, ratios_to,
	ratio_hosts, ratio_estimated, ratio_granted, ratio_median`

func (d *db) startRun(ctx context.Context, projectID int64, source string, now time.Time) (Run, error) {
	rows, _ := d.pool.Query(ctx, `
		INSERT INTO reconcile_runs (project_id, started_at, status, source) VALUES ($1, $2, 'running', $3)
		RETURNING `+runColumns, projectID, now, accounting.CleanText(source, 1000))
	return pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Run])
}

// runProgress records how far a run has scanned; a failure to record it
// does not stop the run.
func (d *db) runProgress(ctx context.Context, runID, scanned int64) {
	d.pool.Exec(ctx, `UPDATE reconcile_runs SET hosts_scanned = $2 WHERE id = $1`, runID, scanned)
}

// finishRun records a run that stored nothing: failed or unchanged. Its
// error is only about recording the run; the caller returns why it failed.
// A run another runner marked abandoned meanwhile stays so (errLockLost).
func (d *db) finishRun(ctx context.Context, run Run, now time.Time) (Run, error) {
	rows, _ := d.pool.Query(ctx, `
		UPDATE reconcile_runs SET status = $2, error = $3, finished_at = $4 WHERE id = $1 AND status = 'running'
		RETURNING `+runColumns, run.ID, run.Status, accounting.CleanText(run.Error, 2000), now)
	done, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Run])
	if errors.Is(err, pgx.ErrNoRows) {
		return d.abandoned(ctx, run)
	}
	if err != nil {
		return run, fmt.Errorf("recording the run's end: %w", err)
	}
	return done, nil
}

func (d *db) exportValidators(ctx context.Context, projectID int64) (map[string]boinc.Validators, error) {
	rows, _ := d.pool.Query(ctx, `SELECT name, etag, last_modified FROM export_files WHERE project_id = $1`, projectID)
	out := map[string]boinc.Validators{}
	var name string
	var v boinc.Validators
	_, err := pgx.ForEachRow(rows, []any{&name, &v.ETag, &v.LastModified}, func() error {
		out[name] = v
		return nil
	})
	return out, err
}

// exportSeen says whether a run already stored the export of this time.
func (d *db) exportSeen(ctx context.Context, projectID int64, exportTime time.Time) (bool, error) {
	var seen bool
	err := d.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM reconcile_runs
		WHERE project_id = $1 AND status = 'ok' AND export_time = $2)`, projectID, exportTime).Scan(&seen)
	return seen, err
}

// knownHosts lists the project's Cobble hosts that have a project host id.
func (d *db) knownHosts(ctx context.Context, projectID int64) ([]knownHost, error) {
	rows, _ := d.pool.Query(ctx, `
		SELECT hp.project_hostid, hp.host_id, hp.user_id, u.time_zone, h.host_cpid AS cpid
		FROM host_projects hp JOIN users u ON u.id = hp.user_id JOIN hosts h ON h.id = hp.host_id
		WHERE hp.project_id = $1 AND hp.project_hostid > 0
		ORDER BY hp.first_seen_at`, projectID)
	return pgx.CollectRows(rows, pgx.RowToStructByName[knownHost])
}

// accountUserID returns Cobble's user id on the project, 0 if unknown.
func (d *db) accountUserID(ctx context.Context, projectID int64) (int64, error) {
	var id *int64
	if err := d.pool.QueryRow(ctx, `SELECT account_userid FROM projects WHERE id = $1`, projectID).Scan(&id); err != nil {
		return 0, fmt.Errorf("reading Cobble's account on the project: %w", err)
	}
	if id == nil {
		return 0, nil
	}
	return *id, nil
}

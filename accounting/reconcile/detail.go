package reconcile

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
)

// MissingHost is a Cobble host attached to a project that an export did
// not list: hidden by its owner, not yet credited, or deleted.
type MissingHost struct {
	HostID        int64
	ProjectHostID int64
	Email         string
	DomainName    string
}

// Days returns estimated and granted credit per day on a project, of
// one host (or of all when hostID is 0), for the days from–to, every day
// present.
func (r *Reconciler) Days(ctx context.Context, projectID, hostID int64, from, to time.Time) ([]Day, error) {
	days, err := r.db.days(ctx, projectID, hostID, from, to)
	return days[projectID], op("reconciliation days", err)
}

// HostDays returns, in one query, Days of each of a host's
// projects, by project id.
func (r *Reconciler) HostDays(ctx context.Context, hostID int64, from, to time.Time) (map[int64][]Day, error) {
	days, err := r.db.days(ctx, 0, hostID, from, to)
	return days, op("host reconciliation days", err)
}

// days sums estimated and granted credit per project and day over
// the days from–to, every day present, of one host (or of all when hostID
// is 0): on project projectID, or, when it is 0, on each of the host's
// projects. A project's days (hostID 0) come from its rollup but for the
// days the rollup may lag on, which come from the ledgers.
func (d *db) days(ctx context.Context, projectID, hostID int64, from, to time.Time) (map[int64][]Day, error) {
	rows, _ := d.reads(ctx).Query(ctx, `
		WITH p AS (SELECT $1::bigint AS project_id WHERE $1 <> 0
		           UNION ALL SELECT project_id FROM host_projects WHERE $1 = 0 AND host_id = $4),
		days AS (SELECT generate_series($2::date, $3::date, '1 day')::date AS day),
		est AS (SELECT project_id, day, sum(cpu_ec_micro + gpu_ec_micro) AS m FROM ledger
			WHERE project_id IN (SELECT project_id FROM p) AND ($4 = 0 OR host_id = $4)
			  AND day BETWEEN $2::date AND $3::date AND ($4 <> 0 OR `+unsettled+`) GROUP BY project_id, day
			UNION ALL
			SELECT project_id, day, ec_micro FROM rollup_project_days
			WHERE $4 = 0 AND project_id = $1 AND day BETWEEN $2::date AND $3::date AND NOT `+unsettled+`),
		gra AS (SELECT project_id, day, sum(granted_micro) AS m FROM confirmed_ledger
			WHERE project_id IN (SELECT project_id FROM p) AND ($4 = 0 OR host_id = $4)
			  AND day BETWEEN $2::date AND $3::date AND ($4 <> 0 OR `+unsettled+`) GROUP BY project_id, day
			UNION ALL
			SELECT project_id, day, granted_micro FROM rollup_project_days
			WHERE $4 = 0 AND project_id = $1 AND day BETWEEN $2::date AND $3::date AND NOT `+unsettled+`)
		SELECT p.project_id, d.day::timestamp AT TIME ZONE 'UTC' AS day,
			coalesce(est.m, 0) / 1e6 AS estimated, coalesce(gra.m, 0) / 1e6 AS granted
		FROM p CROSS JOIN days d LEFT JOIN est USING (project_id, day) LEFT JOIN gra USING (project_id, day)
		ORDER BY p.project_id, d.day`, projectID, from, to, hostID)
	out := map[int64][]Day{}
	var id int64
	var day Day
	_, err := pgx.ForEachRow(rows, []any{&id, &day.Day, &day.Estimated, &day.Granted}, func() error {
		out[id] = append(out[id], day)
		return nil
	})
	return out, err
}

// Unverified returns the unverified matches of a run: Cobble hosts
// whose reported project host id the run could not verify as theirs.
func (r *Reconciler) Unverified(ctx context.Context, runID int64) ([]Unverified, error) {
	rows, _ := r.db.reads(ctx).Query(ctx, `
		SELECT host_id AS "HostID", user_id AS "UserID", project_hostid AS "ProjectHostID", reason AS "Reason"
		FROM reconcile_unverified WHERE run_id = $1 ORDER BY project_hostid, host_id`, runID)
	us, err := pgx.CollectRows(rows, pgx.RowToStructByName[Unverified])
	return us, op("unverified matches", err)
}

// Orphans returns the orphans a run found (at most the first 10,000).
func (r *Reconciler) Orphans(ctx context.Context, runID int64) ([]Orphan, error) {
	rows, _ := r.db.reads(ctx).Query(ctx, `
		SELECT project_hostid, userid, total_credit, expavg_credit, host_cpid
		FROM reconcile_orphans WHERE run_id = $1 ORDER BY total_credit DESC, project_hostid`, runID)
	os, err := pgx.CollectRows(rows, pgx.RowToStructByName[Orphan])
	return os, op("orphans", err)
}

// Missing returns the Cobble hosts a run's export did not list.
func (r *Reconciler) Missing(ctx context.Context, runID int64) ([]MissingHost, error) {
	rows, _ := r.db.reads(ctx).Query(ctx, `
		SELECT m.host_id, m.project_hostid, u.email, h.domain_name
		FROM reconcile_missing m JOIN hosts h ON h.id = m.host_id JOIN users u ON u.id = h.user_id
		WHERE m.run_id = $1 ORDER BY m.host_id`, runID)
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[MissingHost])
	return ms, op("missing hosts", err)
}

// RunWithProject is a run with its project's name.
type RunWithProject struct {
	Run
	ProjectName string
}

// Runs returns the latest runs, newest first: of one project, or of all
// when projectID is 0.
func (r *Reconciler) Runs(ctx context.Context, projectID int64, limit int) ([]RunWithProject, error) {
	rows, _ := r.db.reads(ctx).Query(ctx, `
		SELECT r.id, r.project_id, r.started_at, r.finished_at, r.status, r.source, r.export_time,
			r.hosts_scanned, r.hosts_matched, r.orphans, r.missing, r.error, p.name
		FROM reconcile_runs r JOIN projects p ON p.id = r.project_id
		WHERE $1 = 0 OR r.project_id = $1
		ORDER BY r.started_at DESC, r.id DESC LIMIT $2`, projectID, limit)
	runs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (RunWithProject, error) {
		var r RunWithProject
		err := row.Scan(&r.ID, &r.ProjectID, &r.StartedAt, &r.FinishedAt, &r.Status, &r.Source, &r.ExportTime,
			&r.HostsScanned, &r.HostsMatched, &r.Orphans, &r.Missing, &r.Error, &r.ProjectName)
		return r, err
	})
	return runs, op("runs", err)
}

// Run returns one run, or ErrNotFound.
func (r *Reconciler) Run(ctx context.Context, id int64) (Run, error) { return r.db.run(ctx, id) }

// Detail is what reconciliation knows of one project, in full.
type Detail struct {
	Report  Report
	Days    []Day         // the report's window, every day
	Orphans []Orphan      // of the last successful run
	Missing []MissingHost // of the last successful run
	Runs    []RunWithProject
	// EstimatedSince is the credit estimated after the window, up to
	// today: days no export covers yet.
	EstimatedSince float64
}

// Detail reports on project p in full: its Report, the days of its
// window, what its last successful run found, and its latest runs (at
// most runs of them), newest first.
func (r *Reconciler) Detail(ctx context.Context, p accounting.Project, runs int) (Detail, error) {
	var d Detail
	var err error
	if d.Report, err = r.Report(ctx, p); err != nil {
		return d, err
	}
	if d.Days, err = r.Days(ctx, p.ID, 0, d.Report.From, d.Report.To); err != nil {
		return d, err
	}
	if ok := d.Report.LastOK; ok != nil {
		if d.Orphans, err = r.Orphans(ctx, ok.ID); err != nil {
			return d, err
		}
		if d.Missing, err = r.Missing(ctx, ok.ID); err != nil {
			return d, err
		}
	}
	if d.Runs, err = r.Runs(ctx, p.ID, runs); err != nil {
		return d, err
	}
	d.EstimatedSince, err = r.EstimatedSince(ctx, d.Report)
	return d, err
}

// RunDetail is one run in full: its project's name, and its orphans and
// missing hosts.
type RunDetail struct {
	Run     RunWithProject
	Orphans []Orphan
	Missing []MissingHost
}

// RunDetail returns run id in full, or ErrNotFound.
func (r *Reconciler) RunDetail(ctx context.Context, id int64) (RunDetail, error) {
	var d RunDetail
	run, err := r.Run(ctx, id)
	if err != nil {
		return d, err
	}
	p, err := r.store.Project(ctx, run.ProjectID)
	if err != nil {
		return d, err
	}
	d.Run = RunWithProject{Run: run, ProjectName: p.Name}
	if d.Orphans, err = r.Orphans(ctx, id); err != nil {
		return d, err
	}
	d.Missing, err = r.Missing(ctx, id)
	return d, err
}

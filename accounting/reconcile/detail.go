package reconcile

import (
	"context"
	"errors"
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
// projects. A host's rows are read by the ledgers' primary keys, a
// project's by (project_id, day): the two are separate statements, since
// one plan for both (cached by the driver) scans the whole project for a
// host.
func (d *db) days(ctx context.Context, projectID, hostID int64, from, to time.Time) (map[int64][]Day, error) {
	query, args := hostDays, []any{projectID, from, to, hostID}
	if hostID == 0 {
		query = projectDays
	}
	rows, _ := d.reads(ctx).Query(ctx, query, args...)
	out := map[int64][]Day{}
	var id int64
	var day Day
	_, err := pgx.ForEachRow(rows, []any{&id, &day.Day, &day.Estimated, &day.Granted}, func() error {
		out[id] = append(out[id], day)
		return nil
	})
	return out, err
}

// dayRows is the end of both days queries: every day of every project p
// lists, with its estimated (est) and granted (gra) credit.
const dayRows = `
	SELECT p.project_id, d.day::timestamp AT TIME ZONE 'UTC' AS day,
		coalesce(est.m, 0) / 1e6 AS estimated, coalesce(gra.m, 0) / 1e6 AS granted
	FROM p CROSS JOIN (SELECT generate_series($2::date, $3::date, '1 day')::date AS day) d
	LEFT JOIN est USING (project_id, day) LEFT JOIN gra USING (project_id, day)
	ORDER BY p.project_id, d.day`

// projectDays is days of all hosts on project $1 ($4 unused), read from
// the per-(project, day) rollups alone: as of their latest round (see
// RolledUpAt), and at a cost that does not grow with the project's hosts.
const projectDays = `
	WITH p AS (SELECT $1::bigint AS project_id WHERE $4::bigint = 0),
	est AS (SELECT project_id, day, ec_micro AS m FROM rollup_project_days
		WHERE project_id = $1 AND day BETWEEN $2::date AND $3::date),
	gra AS (SELECT project_id, day, granted_micro AS m FROM rollup_project_days
		WHERE project_id = $1 AND day BETWEEN $2::date AND $3::date)` + dayRows

// RolledUpAt returns the time of the latest rollup round, as of which the
// projects' days and estimates stand; zero before the first.
func (r *Reconciler) RolledUpAt(ctx context.Context) (time.Time, error) {
	var at time.Time
	err := r.db.reads(ctx).QueryRow(ctx, `SELECT at FROM system_counts WHERE name = 'rollup_day'`).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	return at, op("rolled up at", err)
}

// hostDays is days of host $4 on project $1, or on each of its projects
// when $1 is 0.
var hostDays = `
	WITH p AS (SELECT $1::bigint AS project_id WHERE $1 <> 0
	           UNION ALL SELECT project_id FROM host_projects WHERE $1 = 0 AND host_id = $4),
	est AS (SELECT project_id, day, sum(` + accounting.CreditSQL("") + `) AS m FROM ledger
		WHERE host_id = $4 AND project_id IN (SELECT project_id FROM p)
		  AND day BETWEEN $2::date AND $3::date GROUP BY project_id, day),
	gra AS (SELECT project_id, day, sum(granted_micro) AS m FROM confirmed_ledger
		WHERE host_id = $4 AND project_id IN (SELECT project_id FROM p)
		  AND day BETWEEN $2::date AND $3::date GROUP BY project_id, day)` + dayRows

// UnverifiedPage returns limit of the unverified matches of a run from
// offset on: Cobble hosts whose reported project host id the run could
// not verify as theirs; and how many the run has in all.
func (r *Reconciler) UnverifiedPage(ctx context.Context, runID int64, offset, limit int) ([]Unverified, int, error) {
	rows, _ := r.db.reads(ctx).Query(ctx, `
		SELECT host_id, user_id, project_hostid, reason, count(*) OVER () AS total
		FROM reconcile_unverified WHERE run_id = $1 ORDER BY project_hostid, host_id LIMIT $2 OFFSET $3`,
		runID, limit, offset)
	var us []Unverified
	var u Unverified
	total := 0
	_, err := pgx.ForEachRow(rows, []any{&u.HostID, &u.UserID, &u.ProjectHostID, &u.Reason, &total}, func() error {
		us = append(us, u)
		return nil
	})
	return us, total, op("unverified matches", err)
}

// Orphans returns limit of the orphans a run found (it keeps at most the
// first 10,000), from offset on, the most credited first.
func (r *Reconciler) Orphans(ctx context.Context, runID int64, offset, limit int) ([]Orphan, error) {
	rows, _ := r.db.reads(ctx).Query(ctx, `
		SELECT project_hostid, userid, total_credit, expavg_credit, host_cpid
		FROM reconcile_orphans WHERE run_id = $1 ORDER BY total_credit DESC, project_hostid
		LIMIT $2 OFFSET $3`, runID, limit, offset)
	os, err := pgx.CollectRows(rows, pgx.RowToStructByName[Orphan])
	return os, op("orphans", err)
}

// Missing returns limit of the Cobble hosts a run's export did not list,
// from offset on, by host id.
func (r *Reconciler) Missing(ctx context.Context, runID int64, offset, limit int) ([]MissingHost, error) {
	rows, _ := r.db.reads(ctx).Query(ctx, `
		SELECT m.host_id, m.project_hostid, u.email, h.domain_name
		FROM reconcile_missing m JOIN hosts h ON h.id = m.host_id JOIN users u ON u.id = h.user_id
		WHERE m.run_id = $1 ORDER BY m.host_id LIMIT $2 OFFSET $3`, runID, limit, offset)
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
		WHERE $1::bigint = 0 OR r.project_id = $1
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

// Detail is what reconciliation knows of one project: its report, the
// first page of each of its lists, and its days.
type Detail struct {
	Report  Report
	Days    []Day         // the days asked for, every day, up to the report's window's end
	Orphans []Orphan      // of the last successful run: the first DetailShown
	Missing []MissingHost // of the last successful run: the first DetailShown
	Hosts   HostPage      // the page of host ratios asked for
	Runs    []RunWithProject
	// EstimatedSince is the credit estimated after the window, up to
	// today: days no export covers yet.
	EstimatedSince float64
	// RolledUpAt is the latest rollup round, as of which Days and
	// EstimatedSince stand (zero before the first).
	RolledUpAt time.Time
}

// DetailShown bounds the orphans and missing hosts a Detail lists; the
// run's page lists them all, a page at a time.
const DetailShown = 50

// DetailQuery is what a project's page asks for: how many days of
// history (0: the report's window) and which page of host ratios.
type DetailQuery struct {
	Days  int
	Hosts HostQuery
}

// Detail reports on project p: its Report, its days, the first of what
// its last successful run found, the page of host ratios q asks for, and
// its latest runs (at most runs of them), newest first.
func (r *Reconciler) Detail(ctx context.Context, p accounting.Project, q DetailQuery, runs int) (Detail, error) {
	var d Detail
	var err error
	if d.Report, err = r.Report(ctx, p); err != nil {
		return d, err
	}
	from := d.Report.From
	if q.Days > 0 {
		from = d.Report.To.AddDate(0, 0, 1-q.Days)
	}
	if d.Days, err = r.Days(ctx, p.ID, 0, from, d.Report.To); err != nil {
		return d, err
	}
	if d.Hosts, err = r.HostRatios(ctx, d.Report, q.Hosts); err != nil {
		return d, err
	}
	if ok := d.Report.LastOK; ok != nil {
		if d.Orphans, err = r.Orphans(ctx, ok.ID, 0, DetailShown); err != nil {
			return d, err
		}
		if d.Missing, err = r.Missing(ctx, ok.ID, 0, DetailShown); err != nil {
			return d, err
		}
	}
	if d.Runs, err = r.Runs(ctx, p.ID, runs); err != nil {
		return d, err
	}
	if d.EstimatedSince, err = r.EstimatedSince(ctx, d.Report); err != nil {
		return d, err
	}
	d.RolledUpAt, err = r.RolledUpAt(ctx)
	return d, err
}

// RunDetail is one run: its project's name, and a page of its orphans
// and one of its missing hosts.
type RunDetail struct {
	Run     RunWithProject
	Orphans []Orphan
	Missing []MissingHost
}

// RunPage is the size of a run's pages of orphans and missing hosts.
const RunPage = 100

// RunDetail returns run id with the page orphanPage (from 0) of its
// orphans and missingPage of its missing hosts, or ErrNotFound.
func (r *Reconciler) RunDetail(ctx context.Context, id int64, orphanPage, missingPage int) (RunDetail, error) {
	var d RunDetail
	run, err := r.Run(ctx, id)
	if err != nil {
		return d, err
	}
	p, err := r.catalog.Project(ctx, run.ProjectID)
	if err != nil {
		return d, err
	}
	d.Run = RunWithProject{Run: run, ProjectName: p.Name}
	if d.Orphans, err = r.Orphans(ctx, id, max(orphanPage, 0)*RunPage, RunPage); err != nil {
		return d, err
	}
	d.Missing, err = r.Missing(ctx, id, max(missingPage, 0)*RunPage, RunPage)
	return d, err
}

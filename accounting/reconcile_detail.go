package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// MissingHost is a Cobble host attached to a project that an export did
// not list: hidden by its owner, not yet credited, or deleted.
type MissingHost struct {
	HostID        int64
	ProjectHostID int64
	Email         string
	DomainName    string
}

// ReconDays returns estimated and granted credit per day on a project, of
// one host (or of all when hostID is 0), for the days from–to, every day
// present.
func (s *Store) ReconDays(ctx context.Context, projectID, hostID int64, from, to time.Time) ([]ReconDay, error) {
	days, err := s.reconDays(ctx, projectID, hostID, from, to)
	return days[projectID], op("reconciliation days", err)
}

// HostReconDays returns, in one query, ReconDays of each of a host's
// projects, by project id.
func (s *Store) HostReconDays(ctx context.Context, hostID int64, from, to time.Time) (map[int64][]ReconDay, error) {
	days, err := s.reconDays(ctx, 0, hostID, from, to)
	return days, op("host reconciliation days", err)
}

// reconDays sums estimated and granted credit per project and day over
// the days from–to, every day present, of one host (or of all when hostID
// is 0): on project projectID, or, when it is 0, on each of the host's
// projects.
func (s *Store) reconDays(ctx context.Context, projectID, hostID int64, from, to time.Time) (map[int64][]ReconDay, error) {
	rows, _ := s.pool.Query(ctx, `
		WITH p AS (SELECT $1::bigint AS project_id WHERE $1 <> 0
		           UNION ALL SELECT project_id FROM host_projects WHERE $1 = 0 AND host_id = $4),
		days AS (SELECT generate_series($2::date, $3::date, '1 day')::date AS day),
		est AS (SELECT project_id, day, sum(cpu_ec_micro + gpu_ec_micro) AS m FROM ledger
			WHERE project_id IN (SELECT project_id FROM p) AND ($4 = 0 OR host_id = $4)
			  AND day BETWEEN $2::date AND $3::date GROUP BY project_id, day),
		gra AS (SELECT project_id, day, sum(granted_micro) AS m FROM confirmed_ledger
			WHERE project_id IN (SELECT project_id FROM p) AND ($4 = 0 OR host_id = $4)
			  AND day BETWEEN $2::date AND $3::date GROUP BY project_id, day)
		SELECT p.project_id, d.day::timestamp AT TIME ZONE 'UTC' AS day,
			coalesce(est.m, 0) / 1e6 AS estimated, coalesce(gra.m, 0) / 1e6 AS granted
		FROM p CROSS JOIN days d LEFT JOIN est USING (project_id, day) LEFT JOIN gra USING (project_id, day)
		ORDER BY p.project_id, d.day`, projectID, from, to, hostID)
	out := map[int64][]ReconDay{}
	var id int64
	var d ReconDay
	_, err := pgx.ForEachRow(rows, []any{&id, &d.Day, &d.Estimated, &d.Granted}, func() error {
		out[id] = append(out[id], d)
		return nil
	})
	return out, err
}

// RunUnverified returns the unverified matches of a run: Cobble hosts
// whose reported project host id the run could not verify as theirs.
func (s *Store) RunUnverified(ctx context.Context, runID int64) ([]Unverified, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT host_id AS "HostID", user_id AS "UserID", project_hostid AS "ProjectHostID", reason AS "Reason"
		FROM reconcile_unverified WHERE run_id = $1 ORDER BY project_hostid, host_id`, runID)
	us, err := pgx.CollectRows(rows, pgx.RowToStructByName[Unverified])
	return us, op("unverified matches", err)
}

// RunOrphans returns the orphans a run found (at most the first 10,000).
func (s *Store) RunOrphans(ctx context.Context, runID int64) ([]Orphan, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT project_hostid, userid, total_credit, expavg_credit, host_cpid
		FROM reconcile_orphans WHERE run_id = $1 ORDER BY total_credit DESC, project_hostid`, runID)
	os, err := pgx.CollectRows(rows, pgx.RowToStructByName[Orphan])
	return os, op("orphans", err)
}

// RunMissing returns the Cobble hosts a run's export did not list.
func (s *Store) RunMissing(ctx context.Context, runID int64) ([]MissingHost, error) {
	rows, _ := s.pool.Query(ctx, `
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
func (s *Store) Runs(ctx context.Context, projectID int64, limit int) ([]RunWithProject, error) {
	rows, _ := s.pool.Query(ctx, `
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
func (s *Store) Run(ctx context.Context, id int64) (Run, error) { return s.run(ctx, id) }

// ConfirmedDay is credit a project granted one of a volunteer's hosts on one day.
type ConfirmedDay struct {
	Day       time.Time
	HostID    int64
	ProjectID int64
	Granted   float64 // Cobblestones
}

// UserConfirmed returns a volunteer's confirmed credit per day, host and
// project for the days from–to, oldest first. Sum it by day, host or
// project as a page needs.
func (s *Store) UserConfirmed(ctx context.Context, userID int64, from, to time.Time) ([]ConfirmedDay, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT day::timestamp AT TIME ZONE 'UTC' AS day, host_id, project_id, granted_micro / 1e6 AS granted
		FROM confirmed_ledger WHERE user_id = $1 AND day BETWEEN $2::date AND $3::date
		ORDER BY day, host_id, project_id`, userID, from, to)
	days, err := pgx.CollectRows(rows, pgx.RowToStructByName[ConfirmedDay])
	return days, op("confirmed credit", err)
}

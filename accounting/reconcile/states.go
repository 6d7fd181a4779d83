package reconcile

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
)

// State is a project's last reconciliation, for the overview.
type State struct {
	ProjectID  int64
	Name       string
	LastRun    *time.Time
	Status     string     // of the last run; "" when none
	ExportTime *time.Time // of the last successful run
	// Stale says that export is stale (see States).
	Stale bool `db:"-"`
}

// States lists the last run and latest export of each project reconciled
// from its stats URL, for the overview, with whether that export is stale.
func (r *Reconciler) States(ctx context.Context) ([]State, error) {
	states, err := r.db.states(ctx)
	for i := range states {
		states[i].Stale = r.staleExport(states[i].ExportTime)
	}
	return states, err
}

// states lists the last run and latest export of each project
// reconciled from its stats URL, from the runs table's index only.
func (d *db) states(ctx context.Context) ([]State, error) {
	rows, _ := d.reads(ctx).Query(ctx, `
		SELECT p.id AS project_id, p.name, p.status AS project_status, p.stats_url,
			r.started_at AS last_run, COALESCE(r.status, '') AS status, ok.export_time
		FROM projects p
		LEFT JOIN LATERAL (SELECT started_at, status FROM reconcile_runs
		                   WHERE project_id = p.id ORDER BY started_at DESC LIMIT 1) r ON true
		LEFT JOIN LATERAL (SELECT export_time FROM reconcile_runs
		                   WHERE project_id = p.id AND status = 'ok' ORDER BY started_at DESC LIMIT 1) ok ON true
		ORDER BY lower(p.name), p.id`)
	type stateRow struct {
		State
		ProjectStatus accounting.ProjectStatus
		StatsURL      string
	}
	all, err := pgx.CollectRows(rows, pgx.RowToStructByName[stateRow])
	var states []State
	for _, r := range all {
		if (accounting.Project{Status: r.ProjectStatus, StatsURL: r.StatsURL}).ReconciledFrom("") {
			states = append(states, r.State)
		}
	}
	return states, op("reconciliation states", err)
}

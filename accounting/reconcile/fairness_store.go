package reconcile

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting/cache"
)

// FairnessStore computes the fairness measure from the verified hosts'
// credit that reconciliation runs store (credit_hosts), keeps it per
// window (credit_measures, credit_projects, credit_pairs) and serves it.
// Reconciler.Fairness is one.
type FairnessStore struct {
	db  *db
	now func() time.Time
	// pulling keeps the hosts chosen as pulling a project's figures most
	// (PullingHosts), by their ids.
	pulling *cache.Cache[pullingKey, []int64]
}

// pullingChoices bounds the choices of pulling hosts an instance keeps: a
// few windows of each project.
const pullingChoices = 1024

// Measure computes the measure of every window in FairnessWindows from
// the stored hosts' credit and stores it, each window in one transaction,
// in place of the one before. Periodic work calls it after
// reconciliations; it reads no ledger.
func (f *FairnessStore) Measure(ctx context.Context) error {
	for _, days := range FairnessWindows {
		if err := f.measureWindow(ctx, days); err != nil {
			return op(fmt.Sprintf("measure credit fairness over %d days", days), err)
		}
	}
	return nil
}

// measureWindow computes and stores one window's measure.
func (f *FairnessStore) measureWindow(ctx context.Context, days int) error {
	now := f.now()
	projects, err := f.fairProjects(ctx, days, now)
	if err != nil {
		return err
	}
	rows, _ := f.db.pool.Query(ctx, `SELECT c.project_id, c.user_id, c.host_id, c.estimated, c.estimated_gpu,
		c.cpu_hours, c.gpu_hours, c.granted FROM credit_hosts c JOIN reconcile_runs r ON r.id = c.run_id
		WHERE c.window_days = $1 AND `+currentRun, days, now)
	var hosts []CreditHost
	var h CreditHost
	if _, err := pgx.ForEachRow(rows, []any{&h.ProjectID, &h.UserID, &h.HostID, &h.Estimated, &h.EstimatedGPU,
		&h.CPUHours, &h.GPUHours, &h.Granted}, func() error {
		hosts = append(hosts, h)
		return nil
	}); err != nil {
		return err
	}
	m := measureFairness(days, projects, hosts)
	m.ComputedAt = now
	return f.db.backgroundTx(ctx, func(tx pgx.Tx) error { return storeMeasure(ctx, tx, m) })
}

// currentRun is the SQL condition that run r's export ($2 the time of the
// measure) falls in the window of $1 days: the hosts' credit of a project
// no longer reconciled leaves the measure when its window has passed.
const currentRun = `r.export_time > $2::timestamptz - make_interval(days => $1)`

// fairProjects lists the projects with verified hosts' credit stored by
// a run whose export is in the window, with how many of their exports the
// window saw.
func (f *FairnessStore) fairProjects(ctx context.Context, days int, now time.Time) ([]FairProject, error) {
	rows, _ := f.db.pool.Query(ctx, `
		SELECT p.id, p.url, p.name, (SELECT count(*) FROM reconcile_runs r WHERE r.project_id = p.id
			AND r.status = 'ok' AND r.export_time > $2::timestamptz - make_interval(days => $1))::int AS exports
		FROM projects p WHERE EXISTS (SELECT 1 FROM credit_hosts c JOIN reconcile_runs r ON r.id = c.run_id
			WHERE c.project_id = p.id AND c.window_days = $1 AND `+currentRun+`)
		ORDER BY lower(p.name), p.id`, days, now)
	return pgx.CollectRows(rows, pgx.RowToStructByName[FairProject])
}

// storeMeasure replaces the stored measure of m's window with m.
func storeMeasure(ctx context.Context, tx pgx.Tx, m Fairness) error {
	// One measure at a time, over all instances: the key is "CRED".
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(x'43524544'::bigint)`); err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM credit_measures WHERE window_days = $1`, m.WindowDays)
	b.Queue(`INSERT INTO credit_measures (window_days, computed_at, hosts, volunteers) VALUES ($1, $2, $3, $4)`,
		m.WindowDays, m.ComputedAt, m.Hosts, m.Volunteers)
	for _, p := range m.Projects {
		v := projectValues(p)
		b.Queue(`INSERT INTO credit_projects (window_days, project_id, hosts, volunteers, exports, enough_data,
			ratio_median, ci_low, ci_high, iqr_low, iqr_high, position, share_above, gpu_hosts, cpu_hosts,
			gpu_vs_cpu, granted_per_cpu_hour, granted_per_gpu_hour)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
			append([]any{m.WindowDays}, v...)...)
	}
	for _, p := range m.Pairs {
		med, lo, hi := ifEnough(p.Enough, p.Median), ifEnough(p.Enough, p.CI95.Low), ifEnough(p.Enough, p.CI95.High)
		b.Queue(`INSERT INTO credit_pairs (window_days, a_project_id, b_project_id, hosts, volunteers, enough_data,
			ratio_median, ci_low, ci_high) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			m.WindowDays, p.A, p.B, p.Hosts, p.Volunteers, p.Enough, med, lo, hi)
	}
	return tx.SendBatch(ctx, b).Close()
}

// projectValues are a project's columns after window_days, its figures
// NULL below the threshold.
func projectValues(p ProjectFairness) []any {
	e := p.Enough
	return []any{p.ProjectID, p.Hosts, p.Volunteers, p.Exports, e, ifEnough(e, p.Median),
		ifEnough(e, p.CI95.Low), ifEnough(e, p.CI95.High), ifEnough(e, p.IQR.Low), ifEnough(e, p.IQR.High),
		ifEnough(e, p.Position), ifEnough(e, p.ShareAbove), p.GPUHosts, p.CPUHosts, p.GPUvsCPU, p.PerCPUHour,
		p.PerGPUHour}
}

// ifEnough is v when there is enough data, else NULL.
func ifEnough(ok bool, v float64) *float64 {
	if !ok {
		return nil
	}
	return &v
}

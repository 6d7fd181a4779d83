package reconcile

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// projectColumns are a stored project's figures, in the order scanProject
// reads them (credit_projects c joined with projects p).
const projectColumns = `c.project_id, p.url, p.name, c.hosts, c.volunteers, c.exports, c.enough_data,
	c.ratio_median, c.ci_low, c.ci_high, c.iqr_low, c.iqr_high, c.position, c.share_above,
	c.gpu_hosts, c.cpu_hosts, c.gpu_vs_cpu, c.granted_per_cpu_hour, c.granted_per_gpu_hour`

// Fairness returns the measure over days as last stored; a window never
// measured has a zero ComputedAt and no projects.
func (f *FairnessStore) Fairness(ctx context.Context, days int) (Fairness, error) {
	m := Fairness{WindowDays: days}
	err := f.db.reads(ctx).QueryRow(ctx, `SELECT computed_at, hosts, volunteers FROM credit_measures
		WHERE window_days = $1`, days).Scan(&m.ComputedAt, &m.Hosts, &m.Volunteers)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, nil
	}
	if err == nil {
		m.Projects, err = f.projects(ctx, `c.window_days = $1 ORDER BY lower(p.name), p.id`, days)
	}
	if err == nil {
		m.Pairs, err = f.pairs(ctx, days)
	}
	return m, op("credit fairness", err)
}

// ProjectFairness returns one project's stored figures over every window
// measured, in the order of FairnessWindows; none when it has none.
func (f *FairnessStore) ProjectFairness(ctx context.Context, projectID int64) ([]ProjectFairness, error) {
	ps, err := f.projects(ctx, `c.project_id = $1 ORDER BY c.window_days`, projectID)
	return ps, op("project credit fairness", err)
}

// projects reads the stored projects' figures where cond holds (its $1 is
// arg), in the order it ends with.
func (f *FairnessStore) projects(ctx context.Context, cond string, arg any) ([]ProjectFairness, error) {
	rows, _ := f.db.reads(ctx).Query(ctx, `SELECT `+projectColumns+`, c.window_days
		FROM credit_projects c JOIN projects p ON p.id = c.project_id WHERE `+cond, arg)
	var out []ProjectFairness
	var p ProjectFairness
	var med, ciLo, ciHi, iqrLo, iqrHi, pos, share *float64
	var days int
	_, err := pgx.ForEachRow(rows, []any{&p.ProjectID, &p.URL, &p.Name, &p.Hosts, &p.Volunteers, &p.Exports,
		&p.Enough, &med, &ciLo, &ciHi, &iqrLo, &iqrHi, &pos, &share, &p.GPUHosts, &p.CPUHosts, &p.GPUvsCPU,
		&p.PerCPUHour, &p.PerGPUHour, &days}, func() error {
		q := p
		q.Median, q.CI95, q.IQR = val(med), Interval{val(ciLo), val(ciHi)}, Interval{val(iqrLo), val(iqrHi)}
		q.Position, q.ShareAbove, q.Window = val(pos), val(share), days
		out = append(out, q)
		return nil
	})
	return out, err
}

// pairs reads the stored pairs of a window, by the names of A and B.
func (f *FairnessStore) pairs(ctx context.Context, days int) ([]PairFairness, error) {
	rows, _ := f.db.reads(ctx).Query(ctx, `
		SELECT c.a_project_id, c.b_project_id, a.url, b.url, a.name, b.name, c.hosts, c.volunteers,
			c.enough_data, c.ratio_median, c.ci_low, c.ci_high
		FROM credit_pairs c JOIN projects a ON a.id = c.a_project_id JOIN projects b ON b.id = c.b_project_id
		WHERE c.window_days = $1 ORDER BY lower(a.name), a.id, lower(b.name), b.id`, days)
	var out []PairFairness
	var p PairFairness
	var med, lo, hi *float64
	_, err := pgx.ForEachRow(rows, []any{&p.A, &p.B, &p.AURL, &p.BURL, &p.AName, &p.BName, &p.Hosts,
		&p.Volunteers, &p.Enough, &med, &lo, &hi}, func() error {
		q := p
		q.Median, q.CI95 = val(med), Interval{val(lo), val(hi)}
		out = append(out, q)
		return nil
	})
	return out, err
}

// val is *v, or 0 for NULL.
func val(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

// PullingHosts returns the limit hosts of a project that pull its figures
// over days most: those whose granted credit is farthest from what the
// project's median ratio would give them (median × estimated), with less
// than MinFairEstimated estimated left out as the measure leaves them.
// For admins: it names hosts and volunteers, of the chosen hosts only
// (a project's window can hold 50,000).
//
// Choosing them sorts the window's hosts (267 ms on average under the
// mixed load at 50 M rows); the choice is kept (pullingKey) while the
// window's rows are those of the same reconciliation run, and then only
// the chosen hosts are read again, by their ids, for their names and
// addresses as they are now. Should one of them be gone (a deleted host
// or volunteer), the hosts are chosen again.
func (f *FairnessStore) PullingHosts(ctx context.Context, projectID int64, days int, median float64,
	limit int) ([]PullingHost, error) {
	q := f.db.reads(ctx)
	key := pullingKey{project: projectID, days: days, median: median, limit: limit}
	err := q.QueryRow(ctx, `SELECT run_id FROM credit_hosts WHERE project_id = $1 AND window_days = $2 LIMIT 1`,
		projectID, days).Scan(&key.run)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, op("hosts pulling credit fairness", err)
	}
	if ids, ok := f.pulling.Get(key); ok {
		hs, err := pullingHosts(ctx, q, `host_id = ANY(@ids) AND run_id = @run`, key, ids)
		if err != nil || len(hs) == len(ids) {
			return hs, op("hosts pulling credit fairness", err)
		}
		f.pulling.Delete(key)
	}
	hs, err := pullingHosts(ctx, q, `run_id = @run`, key, nil)
	if err != nil {
		return nil, op("hosts pulling credit fairness", err)
	}
	ids := make([]int64, len(hs))
	for i, h := range hs {
		ids[i] = h.HostID
	}
	f.pulling.Put(key, ids)
	return hs, nil
}

// pullingKey names a choice of the hosts pulling a project's figures: the
// window's rows are those of one reconciliation run, which change only
// when a host or volunteer is deleted.
type pullingKey struct {
	project, run int64
	days, limit  int
	median       float64
}

// pullingHosts reads the k.limit hosts of k's window, among those that
// the predicate which selects, farthest from k.median × their estimated
// credit, with their names and addresses.
func pullingHosts(ctx context.Context, q *pgxpool.Pool, which string, k pullingKey, ids []int64) ([]PullingHost, error) {
	rows, _ := q.Query(ctx, `
		SELECT c.host_id, c.user_id, u.email, h.domain_name, c.estimated, c.granted,
			c.granted / c.estimated AS ratio, c.excess
		FROM (SELECT host_id, user_id, estimated, granted, granted - @median * estimated AS excess
			FROM credit_hosts WHERE project_id = @project AND window_days = @days AND estimated >= @least AND `+which+`
			ORDER BY abs(granted - @median * estimated) DESC, host_id LIMIT @limit) AS c
		JOIN hosts h ON h.id = c.host_id JOIN users u ON u.id = c.user_id
		ORDER BY abs(c.excess) DESC, c.host_id`,
		pgx.NamedArgs{"project": k.project, "days": k.days, "median": k.median, "limit": k.limit,
			"least": MinFairEstimated, "run": k.run, "ids": ids})
	return pgx.CollectRows(rows, pgx.RowToStructByName[PullingHost])
}

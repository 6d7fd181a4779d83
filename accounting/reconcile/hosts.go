package reconcile

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
)

// HostSort is an order of a project's host ratios.
type HostSort string

// The orders HostRatios knows; any other value is HostSortID.
const (
	HostSortID        HostSort = "host"      // by Cobble host id
	HostSortRatioLow  HostSort = "ratio"     // lowest ratio first, hosts with no estimate last
	HostSortRatioHigh HostSort = "-ratio"    // highest ratio first
	HostSortGranted   HostSort = "granted"   // most granted credit first
	HostSortEstimated HostSort = "estimated" // most estimated credit first
)

// HostSorts lists the orders, in the order a page offers them.
var HostSorts = []HostSort{HostSortID, HostSortRatioLow, HostSortRatioHigh, HostSortGranted, HostSortEstimated}

// hostOrder is each order's ORDER BY; every one ends with the host id, so
// that pages do not overlap.
var hostOrder = map[HostSort]string{
	HostSortID:        "host_id",
	HostSortRatioLow:  "ratio ASC NULLS LAST, host_id",
	HostSortRatioHigh: "ratio DESC NULLS LAST, host_id",
	HostSortGranted:   "granted DESC, host_id",
	HostSortEstimated: "estimated DESC, host_id",
}

// HostFlagFilter selects hosts by their flag: "" all, "any" every flagged
// host, "low" or "high" those flags only. Other values select all.
type HostFlagFilter string

// HostQuery asks for one page of a project's host ratios.
type HostQuery struct {
	Sort   HostSort
	Flag   HostFlagFilter
	Offset int
	Limit  int // at most MaxHostPage; 0 or less is MaxHostPage
}

// MaxHostPage bounds the hosts of one page.
const MaxHostPage = 200

// normal returns q with its sort, flag and bounds made valid.
func (q HostQuery) normal() HostQuery {
	if _, ok := hostOrder[q.Sort]; !ok {
		q.Sort = HostSortID
	}
	switch q.Flag {
	case "any", "low", "high":
	default:
		q.Flag = ""
	}
	if q.Limit <= 0 || q.Limit > MaxHostPage {
		q.Limit = MaxHostPage
	}
	q.Offset = max(q.Offset, 0)
	return q
}

// liveRatios is the SQL of a project's hosts in a report (@project, the
// window @from–@to) summed from the ledgers: their estimated and granted
// credit over the window and their ratio (NULL when nothing was
// estimated). Its cost grows with the project's hosts × the window's days.
var liveRatios = `
	est AS (SELECT host_id, sum(` + accounting.CreditSQL("") + `) AS e FROM ledger
		WHERE project_id = @project AND day BETWEEN @from::date AND @to::date GROUP BY host_id),
	gra AS (SELECT host_id, sum(granted_micro) AS g FROM confirmed_ledger
		WHERE project_id = @project AND day BETWEEN @from::date AND @to::date GROUP BY host_id),
	r AS (SELECT hp.host_id, hp.user_id, hp.project_hostid,
			(coalesce(est.e, 0) / 1e6)::float8 AS estimated, (coalesce(gra.g, 0) / 1e6)::float8 AS granted,
			CASE WHEN est.e > 0 THEN (coalesce(gra.g, 0)::float8 / est.e::float8) END AS ratio
		FROM host_projects hp LEFT JOIN est ON est.host_id = hp.host_id LEFT JOIN gra ON gra.host_id = hp.host_id
		WHERE hp.project_id = @project AND (est.e > 0 OR gra.g > 0 OR hp.project_hostid > 0))`

// storedRatios is the same hosts as stored with run @run.
const storedRatios = `
	r AS (SELECT host_id, user_id, project_hostid, estimated, granted, ratio FROM reconcile_ratios
		WHERE run_id = @run)`

// stored returns the run whose stored ratios cover pr's window: pr's last
// successful run, if they do; else nil.
func stored(pr Report) *Run {
	ok := pr.LastOK
	if ok != nil && ok.RatiosFrom != nil && ok.RatiosTo != nil && ok.RatioHosts != nil && ok.RatioEstimated != nil &&
		ok.RatioGranted != nil && ok.RatioMedian != nil && ok.RatiosFrom.Equal(pr.From) && ok.RatiosTo.Equal(pr.To) {
		return ok
	}
	return nil
}

// ratioSource returns the SQL of pr's hosts, "r", and its arguments: the
// ratios stored with pr's last successful run when they cover pr's
// window, else the sums of the ledgers.
func ratioSource(pr Report, opts Options) (string, pgx.NamedArgs) {
	args := pgx.NamedArgs{"project": pr.Project.ID, "from": pr.From, "to": pr.To, "median": pr.Median,
		"low": opts.RatioLow, "high": opts.RatioHigh}
	if run := stored(pr); run != nil {
		args["run"] = run.ID
		return storedRatios, args
	}
	return liveRatios, args
}

// flagRange is the SQL condition of the hosts q.Flag selects, on their
// ratio, so that it reads an index range: "low" below @median × @low,
// "high" above @median × @high, "any" either; nothing when the median is
// not positive (no host is flagged).
func flagRange(f HostFlagFilter) string {
	low, high := `ratio < @median * @low::float8`, `ratio > @median * @high::float8`
	switch f {
	case "low":
		return `@median::float8 > 0 AND ` + low
	case "high":
		return `@median::float8 > 0 AND ` + high
	case "any":
		return `@median::float8 > 0 AND (` + low + ` OR ` + high + `)`
	}
	return `true`
}

// summary sets pr's totals, ratio, median host ratio and its counts of
// hosts and of flagged hosts, over pr's window: from its run's stored
// summary and an index range when the run stored its ratios.
func (d *db) summary(ctx context.Context, pr *Report, opts Options) error {
	if run := stored(*pr); run != nil {
		pr.Hosts, pr.Estimated, pr.Granted, pr.Median = int(*run.RatioHosts), *run.RatioEstimated,
			*run.RatioGranted, *run.RatioMedian
		if pr.Estimated > 0 {
			pr.Ratio = pr.Granted / pr.Estimated
		}
		_, args := ratioSource(*pr, opts)
		return d.reads(ctx).QueryRow(ctx, `SELECT count(*) FROM reconcile_ratios WHERE run_id = @run AND `+
			flagRange("any"), args).Scan(&pr.Flagged)
	}
	src, args := ratioSource(*pr, opts)
	err := d.reads(ctx).QueryRow(ctx, `
		WITH `+src+`,
		m AS (SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY ratio), 0)::float8 AS median
		      FROM r WHERE ratio IS NOT NULL)
		SELECT (SELECT count(*) FROM r), (SELECT coalesce(sum(estimated), 0) FROM r)::float8,
			(SELECT coalesce(sum(granted), 0) FROM r)::float8, m.median,
			(SELECT count(*) FROM r WHERE m.median > 0 AND (ratio < m.median * @low OR ratio > m.median * @high))
		FROM m`, args).
		Scan(&pr.Hosts, &pr.Estimated, &pr.Granted, &pr.Median, &pr.Flagged)
	if err == nil && pr.Estimated > 0 {
		pr.Ratio = pr.Granted / pr.Estimated
	}
	return err
}

// HostPage is one page of a project's host ratios, and how many hosts
// the query selects in all.
type HostPage struct {
	Hosts []HostRatio
	Total int
	Query HostQuery // as applied
}

// flagSQL is a host's flag against the median, from its ratio.
const flagSQL = `CASE WHEN ratio IS NULL OR @median::float8 <= 0 THEN ''
	WHEN ratio < @median * @low::float8 THEN 'low' WHEN ratio > @median * @high::float8 THEN 'high' ELSE '' END`

// HostRatios returns one page of the hosts of pr's project over pr's
// window, with their ratios and flags (against pr.Median), filtered and
// sorted as q asks.
func (r *Reconciler) HostRatios(ctx context.Context, pr Report, q HostQuery) (HostPage, error) {
	q = q.normal()
	if stored(pr) != nil {
		p, err := r.storedHostRatios(ctx, pr, q)
		return p, op("host ratios", err)
	}
	src, args := ratioSource(pr, r.opts)
	args["flag"], args["limit"], args["offset"] = string(q.Flag), q.Limit, q.Offset
	rows, _ := r.db.reads(ctx).Query(ctx, `
		WITH `+src+`,
		f AS (SELECT r.*, `+flagSQL+` AS flag FROM r),
		page AS (SELECT f.*, count(*) OVER () AS total FROM f
			WHERE @flag::text = '' OR (@flag = 'any' AND flag <> '') OR flag = @flag
			ORDER BY `+hostOrder[q.Sort]+` LIMIT @limit OFFSET @offset)
		SELECT page.host_id, page.user_id, u.email, h.domain_name, page.project_hostid, page.estimated,
			page.granted, coalesce(page.ratio, 0), page.flag, page.total
		FROM page JOIN hosts h ON h.id = page.host_id JOIN users u ON u.id = page.user_id
		ORDER BY `+hostOrder[q.Sort], args)
	p := HostPage{Query: q}
	var h HostRatio
	_, err := pgx.ForEachRow(rows, []any{&h.HostID, &h.UserID, &h.Email, &h.DomainName, &h.ProjectHostID,
		&h.Estimated, &h.Granted, &h.Ratio, &h.Flag, &p.Total}, func() error {
		p.Hosts = append(p.Hosts, h)
		return nil
	})
	if err == nil && len(p.Hosts) == 0 && q.Offset > 0 {
		// Past the end: count what the query selects.
		err = r.db.reads(ctx).QueryRow(ctx, `WITH `+src+`, f AS (SELECT `+flagSQL+` AS flag FROM r)
			SELECT count(*) FROM f WHERE @flag::text = '' OR (@flag = 'any' AND flag <> '') OR flag = @flag`,
			args).Scan(&p.Total)
	}
	return p, op("host ratios", err)
}

// storedHostRatios is HostRatios from the ratios stored with pr's run:
// one index range a page, and a count only for "low" and "high".
func (r *Reconciler) storedHostRatios(ctx context.Context, pr Report, q HostQuery) (HostPage, error) {
	_, args := ratioSource(pr, r.opts)
	args["limit"], args["offset"] = q.Limit, q.Offset
	p := HostPage{Query: q}
	switch q.Flag {
	case "":
		p.Total = pr.Hosts
	case "any":
		p.Total = pr.Flagged
	default:
		if err := r.db.reads(ctx).QueryRow(ctx, `SELECT count(*) FROM reconcile_ratios WHERE run_id = @run AND `+
			flagRange(q.Flag), args).Scan(&p.Total); err != nil {
			return p, err
		}
	}
	rows, _ := r.db.reads(ctx).Query(ctx, `
		SELECT r.host_id, r.user_id, u.email, h.domain_name, r.project_hostid, r.estimated, r.granted,
			coalesce(r.ratio, 0), `+flagSQL+`
		FROM reconcile_ratios r JOIN hosts h ON h.id = r.host_id JOIN users u ON u.id = r.user_id
		WHERE r.run_id = @run AND `+flagRange(q.Flag)+`
		ORDER BY `+hostOrder[q.Sort]+` LIMIT @limit OFFSET @offset`, args)
	var h HostRatio
	_, err := pgx.ForEachRow(rows, []any{&h.HostID, &h.UserID, &h.Email, &h.DomainName, &h.ProjectHostID,
		&h.Estimated, &h.Granted, &h.Ratio, &h.Flag}, func() error {
		p.Hosts = append(p.Hosts, h)
		return nil
	})
	return p, err
}

// storeRatios stores the host ratios of run, a successful run, over its
// report window, in place of those stored with any run of its project, in
// one background transaction: its sums grow with the project's hosts, and
// a serving session's statement_timeout must not cut them short.
func (r *Reconciler) storeRatios(ctx context.Context, run Run) error {
	from, to := r.window(&run)
	args := pgx.NamedArgs{"project": run.ProjectID, "from": from, "to": to, "run": run.ID}
	return r.db.backgroundTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM reconcile_ratios WHERE run_id IN
			(SELECT id FROM reconcile_runs WHERE project_id = @project)`, args); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `WITH `+liveRatios+`
			INSERT INTO reconcile_ratios (run_id, host_id, user_id, project_hostid, estimated, granted, ratio)
			SELECT @run, host_id, user_id, project_hostid, estimated, granted, ratio FROM r`, args); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			UPDATE reconcile_runs SET ratios_from = @from, ratios_to = @to, ratio_hosts = s.hosts,
				ratio_estimated = s.estimated, ratio_granted = s.granted, ratio_median = s.median
			FROM (SELECT count(*) AS hosts, coalesce(sum(estimated), 0) AS estimated,
					coalesce(sum(granted), 0) AS granted,
					coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY ratio) FILTER (WHERE ratio IS NOT NULL), 0) AS median
				FROM reconcile_ratios WHERE run_id = @run) s
			WHERE id = @run`, args)
		return err
	})
}

// RefreshRatios stores again the host ratios of project p's latest
// successful run over its report window, and its verified hosts' credit
// over the fairness windows (a run stores both when it commits): after
// the ledgers were rebuilt or written by other means. A project never
// reconciled has none to store.
func (r *Reconciler) RefreshRatios(ctx context.Context, p accounting.Project) error {
	_, ok, err := r.db.lastRuns(ctx, p.ID)
	if err == nil && ok != nil {
		err = r.storeRatios(ctx, *ok)
	}
	if err == nil && ok != nil {
		err = r.storeCreditHosts(ctx, *ok)
	}
	return op("refresh host ratios", err)
}

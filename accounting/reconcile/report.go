package reconcile

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
)

// Day is one day's estimated and granted credit.
type Day struct {
	Day       time.Time `db:"day"`
	Estimated float64   `db:"estimated"`
	Granted   float64   `db:"granted"`
}

// HostRatio is one host's granted and estimated credit on a project over
// the report's window, and how it compares with the project's hosts.
type HostRatio struct {
	HostID        int64
	UserID        int64
	Email         string
	DomainName    string
	ProjectHostID int64
	Estimated     float64
	Granted       float64
	Ratio         float64 // granted ÷ estimated; 0 when nothing was estimated
	Flag          string  // "low", "high" or ""
}

// Report is a project's reconciliation at a glance.
type Report struct {
	Project   accounting.Project
	LastRun   *Run
	LastOK    *Run // the last run that stored an export
	From, To  time.Time
	Estimated float64
	Granted   float64
	Ratio     float64 // granted ÷ estimated over From–To; 0 when nothing was estimated
	Median    float64 // the median of the host ratios
	// Hosts counts the project's hosts in the report (credit in the window
	// or a project host id); Flagged those off the median ratio. HostRatios
	// lists them a page at a time.
	Hosts, Flagged int
	// Unverified lists, from the last run that stored an export, the first
	// UnverifiedShown Cobble hosts whose reported project host id was not
	// verified as theirs: never credited. UnverifiedCount counts them all.
	// HowToVerify says how to make them verifiable.
	Unverified      []Unverified
	UnverifiedCount int
	Flags           []string
}

// UnverifiedShown bounds the unverified matches a Report lists.
const UnverifiedShown = 50

// window returns the whole days a project's ratios cover: the trailing
// window that ends the day before its latest export.
func (r *Reconciler) window(lastOK *Run) (from, to time.Time) {
	end := r.now()
	if lastOK != nil && lastOK.ExportTime != nil {
		end = *lastOK.ExportTime
	}
	to = accounting.CivilDay(end.UTC()).AddDate(0, 0, -1)
	return to.Add(-r.opts.Window).AddDate(0, 0, 1), to
}

// Report reports on one project: its last runs, its hosts' ratios
// and the flags an admin should look at.
func (r *Reconciler) Report(ctx context.Context, p accounting.Project) (Report, error) {
	pr := Report{Project: p}
	var err error
	if pr.LastRun, pr.LastOK, err = r.db.lastRuns(ctx, p.ID); err != nil {
		return pr, op("project reconciliation", err)
	}
	pr.From, pr.To = r.window(pr.LastOK)
	if err := r.db.summary(ctx, &pr, r.opts); err != nil {
		return pr, op("project reconciliation", err)
	}
	if pr.LastOK != nil {
		if pr.Unverified, pr.UnverifiedCount, err = r.UnverifiedPage(ctx, pr.LastOK.ID, 0, UnverifiedShown); err != nil {
			return pr, op("project reconciliation", err)
		}
	}
	r.flag(&pr)
	return pr, nil
}

// EstimatedSince sums the credit estimated on pr's project after its
// report's window, up to today: estimates no export has confirmed yet.
func (r *Reconciler) EstimatedSince(ctx context.Context, pr Report) (float64, error) {
	from, today := pr.To.AddDate(0, 0, 1), accounting.CivilDay(r.now().UTC())
	if from.After(today) {
		return 0, nil
	}
	sum, err := r.db.estimatedCredit(ctx, pr.Project.ID, from, today)
	return sum, op("estimated since", err)
}

// estimatedCredit sums a project's estimated credit over the days from–to
// from the rollups, as of their latest round.
func (d *db) estimatedCredit(ctx context.Context, projectID int64, from, to time.Time) (float64, error) {
	var sum float64
	err := d.reads(ctx).QueryRow(ctx, `
		SELECT coalesce(sum(ec_micro), 0) / 1e6 FROM rollup_project_days
		WHERE project_id = $1 AND day BETWEEN $2::date AND $3::date`,
		projectID, from, to).Scan(&sum)
	return sum, err
}

// Overview reports on every project of the catalog.
func (r *Reconciler) Overview(ctx context.Context) ([]Report, error) {
	ps, err := r.catalog.Projects(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Report, 0, len(ps))
	for _, p := range ps {
		pr, err := r.Report(ctx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, pr)
	}
	return out, nil
}

func (r *Reconciler) flag(pr *Report) {
	add := func(cond bool, format string, args ...any) {
		if cond {
			pr.Flags = append(pr.Flags, fmt.Sprintf(format, args...))
		}
	}
	last, ok := pr.LastRun, pr.LastOK
	add(last == nil, "never reconciled")
	add(last != nil && last.Status == RunFailed, "last run failed")
	add(last != nil && last.Status == RunAbandoned, "last run abandoned")
	add(ok != nil && r.staleExport(ok.ExportTime), "stale export")
	add(ok != nil && ok.Orphans > 0, "%s", accounting.Plural(int(orDefault(ok).Orphans), "orphan"))
	add(ok != nil && ok.Missing > 0, "%d missing", orDefault(ok).Missing)
	add(pr.UnverifiedCount > 0, "%s", accounting.Plural(pr.UnverifiedCount, "unverified match"))
	add(pr.Flagged > 0, "%s off the median ratio", accounting.Plural(pr.Flagged, "host"))
}

// staleExport reports whether an export made at exportTime is stale: older
// than StaleAfter. No export (nil) is not a stale one.
func (r *Reconciler) staleExport(exportTime *time.Time) bool {
	return exportTime != nil && r.now().Sub(*exportTime) > r.opts.StaleAfter
}

func orDefault(r *Run) Run {
	if r == nil {
		return Run{}
	}
	return *r
}

// lastRuns returns a project's latest run and latest successful run.
func (d *db) lastRuns(ctx context.Context, projectID int64) (last, ok *Run, err error) {
	rows, _ := d.reads(ctx).Query(ctx, `
		(SELECT `+runColumns+` FROM reconcile_runs WHERE project_id = $1 ORDER BY started_at DESC, id DESC LIMIT 1)
		UNION ALL
		(SELECT `+runColumns+` FROM reconcile_runs WHERE project_id = $1 AND status = 'ok'
		 ORDER BY started_at DESC, id DESC LIMIT 1)`, projectID)
	runs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Run])
	if err != nil || len(runs) == 0 {
		return nil, nil, err
	}
	last = &runs[0]
	if len(runs) == 2 {
		ok = &runs[1]
	} else if last.Status == RunOK {
		ok = last
	}
	return last, ok, nil
}

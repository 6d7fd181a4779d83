package handlers

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/views"
)

// pathID reads a numeric id from the route; anything else is not found.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, accounting.ErrNotFound
	}
	return id, nil
}

// ReconOverview lists every project's reconciliation.
func (a *Admin) ReconOverview(w http.ResponseWriter, r *http.Request) error {
	rows, err := a.reconciler.Overview(r.Context())
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ReconOverview(a.page(r, "Reconciliation"), rows, a.now()))
	return nil
}

// ReconProject reports on one project's reconciliation.
func (a *Admin) ReconProject(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := a.catalog.Project(ctx, id)
	if err != nil {
		return err
	}
	d := views.ReconProjectPage{Now: a.now(), Range: historyRange(r)}
	q := reconcile.DetailQuery{Days: d.Range, Hosts: reconcile.HostQuery{
		Sort: reconcile.HostSort(r.URL.Query().Get("sort")), Flag: reconcile.HostFlagFilter(r.URL.Query().Get("flag")),
		Offset: queryInt(r, "from", maxHostOffset), Limit: hostsPerPage}}
	if d.Detail, err = a.reconciler.Detail(ctx, p, q, 20); err != nil {
		return err
	}
	if d.Fairness, err = a.creditAdmin(r, p.ID); err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ReconProject(a.page(r, p.Name+" · reconciliation"), d))
	return nil
}

// The project page's host table shows hostsPerPage hosts from ?from=;
// a run's page lists its orphans and missing hosts reconcile.RunPage at
// a time, ?orphans= and ?missing= naming the pages.
const (
	hostsPerPage  = 50
	maxHostOffset = 100_000_000
	maxRunPage    = 1_000_000
)

// queryInt reads a non-negative number from the query; anything else,
// or more than most, is 0.
func queryInt(r *http.Request, name string, most int) int {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil || n < 0 || n > most {
		return 0
	}
	return n
}

// ReconRunNow starts a run of one project and shows its progress. If one
// is running already, it shows that one.
func (a *Admin) ReconRunNow(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := a.catalog.Project(r.Context(), id)
	if err != nil {
		return err
	}
	run, err := a.reconciler.Start(p)
	if errors.Is(err, reconcile.ErrRunBusy) {
		runs, err := a.reconciler.Runs(r.Context(), p.ID, 1)
		if err != nil || len(runs) == 0 {
			return cmp.Or(err, errBusy)
		}
		run = runs[0].Run
	} else if err != nil {
		return err
	} else if err := a.admin.AuditRunNow(r.Context(), actor(r), p, run.ID); err != nil {
		a.log.ErrorContext(r.Context(), "audit of run now failed", "run", run.ID, "err", err)
	}
	a.log.InfoContext(r.Context(), "reconciliation started", "project", p.URL, "run", run.ID,
		"admin", currentUser(r).Email)
	http.Redirect(w, r, "/admin/runs/"+strconv.FormatInt(run.ID, 10), http.StatusSeeOther)
	return nil
}

// ReconRuns is the history of all runs.
func (a *Admin) ReconRuns(w http.ResponseWriter, r *http.Request) error {
	runs, err := a.reconciler.Runs(r.Context(), 0, 200)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ReconRuns(a.page(r, "Run history"), runs, a.now()))
	return nil
}

// ReconRun shows one run, reloading while it is running.
func (a *Admin) ReconRun(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	d := views.ReconRunPage{OrphanPage: queryInt(r, "orphans", maxRunPage),
		MissingPage: queryInt(r, "missing", maxRunPage), Now: a.now()}
	if d.RunDetail, err = a.reconciler.RunDetail(r.Context(), id, d.OrphanPage, d.MissingPage); err != nil {
		return err
	}
	page := a.page(r, "Run of "+d.Run.ProjectName)
	if d.Run.Status == reconcile.RunRunning {
		page.Refresh = 2
	}
	a.render(w, r, http.StatusOK, views.ReconRun(page, d))
	return nil
}

// hostHistoryDays is how far back the admin host page shows history.
const hostHistoryDays = 60

// AdminHost shows one host to admins.
func (a *Admin) AdminHost(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var d views.AdminHostPage
	if d.Host, err = a.computers.Host(ctx, id); err != nil {
		return err
	}
	projects, err := a.computers.HostProjects(ctx, id)
	if err != nil {
		return err
	}
	to := a.now().UTC()
	from := to.AddDate(0, 0, -hostHistoryDays+1)
	days, err := a.reconciler.HostDays(ctx, id, from, to)
	if err != nil {
		return err
	}
	exportDays, err := a.ledger.ExportDays(ctx, d.Host.TimeZone)
	if err != nil {
		return err
	}
	for _, hp := range projects {
		d.Projects = append(d.Projects, views.HostProjectHistory{HostProjectCredit: hp, Days: days[hp.ProjectID],
			ExportDay: exportDays[hp.ProjectID]})
	}
	if d.Events, err = a.computers.HostEvents(ctx, id, 100); err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.AdminHost(a.page(r, d.Host.DomainName), d))
	return nil
}

// creditAdmin is a project's credit fairness figures for its
// reconciliation page, with the hosts that pull the first window's most.
func (a *Admin) creditAdmin(r *http.Request, projectID int64) (views.CreditAdmin, error) {
	var c views.CreditAdmin
	var err error
	if c.Figures, err = a.fairness.ProjectFairness(r.Context(), projectID); err != nil || len(c.Figures) == 0 {
		return c, err
	}
	if f := c.Figures[0]; f.Enough {
		c.Pulling, err = a.fairness.PullingHosts(r.Context(), projectID, f.Window, f.Median, pullingShown)
	}
	return c, err
}

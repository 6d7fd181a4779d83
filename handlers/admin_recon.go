package handlers

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"

	"github.com/cobble-am/cobble/accounting"
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
func (a *App) ReconOverview(w http.ResponseWriter, r *http.Request) error {
	rows, err := a.reconciler.Overview(r.Context())
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ReconOverview(a.page(r, "Reconciliation"), rows, a.now()))
	return nil
}

// ReconProject reports on one project's reconciliation.
func (a *App) ReconProject(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := a.store.Project(ctx, id)
	if err != nil {
		return err
	}
	d := views.ReconProjectPage{Now: a.now()}
	if d.Recon, err = a.reconciler.ProjectRecon(ctx, p); err != nil {
		return err
	}
	if d.Days, err = a.store.ReconDays(ctx, p.ID, 0, d.Recon.From, d.Recon.To); err != nil {
		return err
	}
	if ok := d.Recon.LastOK; ok != nil {
		if d.Orphans, err = a.store.RunOrphans(ctx, ok.ID); err != nil {
			return err
		}
		if d.Missing, err = a.store.RunMissing(ctx, ok.ID); err != nil {
			return err
		}
	}
	if d.Runs, err = a.store.Runs(ctx, p.ID, 20); err != nil {
		return err
	}
	if d.EstimatedSince, err = a.reconciler.EstimatedSince(ctx, d.Recon); err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ReconProject(a.page(r, p.Name+" · reconciliation"), d))
	return nil
}

// ReconRunNow starts a run of one project and shows its progress. If one
// is running already, it shows that one.
func (a *App) ReconRunNow(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := a.store.Project(r.Context(), id)
	if err != nil {
		return err
	}
	run, err := a.reconciler.Start(p)
	if errors.Is(err, accounting.ErrRunBusy) {
		runs, err := a.store.Runs(r.Context(), p.ID, 1)
		if err != nil || len(runs) == 0 {
			return cmp.Or(err, errBusy)
		}
		run = runs[0].Run
	} else if err != nil {
		return err
	} else if err := a.store.AuditRunNow(r.Context(), actor(r), p, run.ID); err != nil {
		a.log.ErrorContext(r.Context(), "audit of run now failed", "run", run.ID, "err", err)
	}
	a.log.InfoContext(r.Context(), "reconciliation started", "project", p.URL, "run", run.ID,
		"admin", currentUser(r).Email)
	http.Redirect(w, r, "/admin/runs/"+strconv.FormatInt(run.ID, 10), http.StatusSeeOther)
	return nil
}

// ReconRuns is the history of all runs.
func (a *App) ReconRuns(w http.ResponseWriter, r *http.Request) error {
	runs, err := a.store.Runs(r.Context(), 0, 200)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ReconRuns(a.page(r, "Run history"), runs, a.now()))
	return nil
}

// ReconRun shows one run, reloading while it is running.
func (a *App) ReconRun(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	run, err := a.store.Run(r.Context(), id)
	if err != nil {
		return err
	}
	p, err := a.store.Project(r.Context(), run.ProjectID)
	if err != nil {
		return err
	}
	page := a.page(r, "Run of "+p.Name)
	if run.Status == accounting.RunRunning {
		page.Refresh = 2
	}
	orphans, err := a.store.RunOrphans(r.Context(), run.ID)
	if err != nil {
		return err
	}
	missing, err := a.store.RunMissing(r.Context(), run.ID)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ReconRun(page, accounting.RunWithProject{Run: run, ProjectName: p.Name},
		orphans, missing, a.now()))
	return nil
}

// hostHistoryDays is how far back the admin host page shows history.
const hostHistoryDays = 60

// AdminHost shows one host to admins.
func (a *App) AdminHost(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var d views.AdminHostPage
	if d.Host, err = a.store.Host(ctx, id); err != nil {
		return err
	}
	projects, err := a.store.HostProjects(ctx, id)
	if err != nil {
		return err
	}
	to := a.now().UTC()
	from := to.AddDate(0, 0, -hostHistoryDays+1)
	days, err := a.store.HostReconDays(ctx, id, from, to)
	if err != nil {
		return err
	}
	for _, hp := range projects {
		d.Projects = append(d.Projects, views.HostProjectHistory{HostProjectCredit: hp, Days: days[hp.ProjectID]})
	}
	if d.Events, err = a.store.HostEvents(ctx, id, 100); err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.AdminHost(a.page(r, d.Host.DomainName), d))
	return nil
}

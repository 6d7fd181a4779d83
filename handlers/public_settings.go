package handlers

import (
	"errors"
	"net/http"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// PublicSettings shows the volunteer's public profile settings (GET
// /settings/public): off by default.
func (a *Settings) PublicSettings(w http.ResponseWriter, r *http.Request) error {
	p, err := a.public.PublicProfile(r.Context(), currentUser(r).ID)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	d := views.PublicSettingsPage{Profile: p, Saved: q.Get("saved") == "1", Renewed: q.Get("renewed") == "1", BaseURL: a.cfg.BaseURL}
	return a.renderPublicSettings(w, r, http.StatusOK, d)
}

// SetPublicSettings saves them (POST /settings/public, fields handle,
// public, show_totals, show_projects, show_areas, show_chart, list_me,
// in_stats, stats_hosts; a checkbox present means on): 422 with the
// handle's message when it is malformed, reserved or taken.
func (a *Settings) SetPublicSettings(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r)
	on := func(name string) bool { return r.PostForm.Has(name) }
	p := accounting.PublicProfile{Handle: textOnly(r.PostForm.Get("handle")), Public: on("public"),
		ShowTotals: on("show_totals"), ShowProjects: on("show_projects"), ShowAreas: on("show_areas"),
		ShowChart: on("show_chart"), ListMe: on("list_me"), InStats: on("in_stats"), StatsHosts: on("stats_hosts")}
	if err == nil {
		err = a.public.SetPublicProfile(r.Context(), currentUser(r).ID, p)
	}
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		d := views.PublicSettingsPage{Profile: p, Errors: invalid.Fields, BaseURL: a.cfg.BaseURL}
		return a.renderPublicSettings(w, r, http.StatusUnprocessableEntity, d)
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/settings/public?saved=1", http.StatusSeeOther)
	return nil
}

// RenewStatsID gives the volunteer a new id in the statistics export
// (POST /settings/public/stats-id), then 303 to the settings; 404 when
// they never opted in.
func (a *Settings) RenewStatsID(w http.ResponseWriter, r *http.Request) error {
	if err := a.public.RenewStatsID(r.Context(), currentUser(r).ID); err != nil {
		return err
	}
	http.Redirect(w, r, "/settings/public?renewed=1", http.StatusSeeOther)
	return nil
}

// renderPublicSettings renders the settings page with status.
func (a *Settings) renderPublicSettings(w http.ResponseWriter, r *http.Request, status int, d views.PublicSettingsPage) error {
	a.render(w, r, status, views.PublicSettings(a.volunteerPage(r, tr(r, "public.settings_title"), "settings"), d))
	return nil
}

package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/views"
)

// Home is the start page: a welcome for visitors, the dashboard for volunteers.
func (a *App) Home(w http.ResponseWriter, r *http.Request) error {
	u := currentUser(r)
	if u == nil {
		a.render(w, r, http.StatusOK, views.Welcome(a.page(r, "Welcome")))
		return nil
	}
	c := views.Connect{AMURL: a.cfg.BaseURL, Email: u.Email}
	a.render(w, r, http.StatusOK, views.Dashboard(a.page(r, "Your contribution"), c))
	return nil
}

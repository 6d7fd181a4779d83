package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/views"
)

// PublicProfile is a volunteer's public page (GET /v/{handle}): only what
// they ticked. A private or unknown handle is the one 404 page, the same
// as for any address Cobble does not serve.
func (a *Public) PublicProfile(w http.ResponseWriter, r *http.Request) error {
	pg, err := a.public.PublicPage(r.Context(), r.PathValue("handle"))
	if err != nil {
		return err
	}
	d := views.PublicProfilePage{Page: pg, BaseURL: a.cfg.BaseURL}
	a.render(w, r, http.StatusOK, views.PublicProfile(a.page(r, tr(r, "public.profile_title", "Handle", pg.Profile.Handle)), d))
	return nil
}

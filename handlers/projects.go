package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/views"
)

// Projects lists the projects the volunteer's computers work for.
func (a *Volunteer) Projects(w http.ResponseWriter, r *http.Request) error {
	ps, err := a.computers.VolunteerProjects(r.Context(), currentUser(r).ID)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.Projects(a.volunteerPage(r, tr(r, "projects.title"), "projects"), ps))
	return nil
}

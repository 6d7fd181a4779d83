package handlers

import (
	"errors"
	"net/http"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// pauseForm reads the pause form's fields, mode and until.
func pauseForm(r *http.Request) (accounting.PauseForm, error) {
	if err := parseForm(r); err != nil {
		return accounting.PauseForm{}, err
	}
	return accounting.PauseForm{Mode: r.PostForm.Get("mode"), Until: r.PostForm.Get("until")}, nil
}

// ComputerPause winds down, pauses or resumes one of the volunteer's
// computers (POST /computers/{id}/pause, fields mode = wind_down | pause |
// resume and until, YYYY-MM-DD). A bad field re-shows the page with 422;
// another volunteer's computer is not found.
func (a *Volunteer) ComputerPause(w http.ResponseWriter, r *http.Request) error {
	return a.saveComputer(w, r, "pause", func(id int64) error {
		f, err := pauseForm(r)
		if err != nil {
			return err
		}
		u := currentUser(r)
		return a.computers.SetPause(r.Context(), u.ID, id, f, a.now(), u.TimeZone)
	})
}

// PauseAll winds down, pauses or resumes all of the volunteer's computers
// (POST /computers/pause, the fields of ComputerPause). A bad field
// re-shows the list of computers with 422.
func (a *Volunteer) PauseAll(w http.ResponseWriter, r *http.Request) error {
	f, err := pauseForm(r)
	u := currentUser(r)
	if err == nil {
		err = a.computers.SetPause(r.Context(), u.ID, 0, f, a.now(), u.TimeZone)
	}
	var invalid *accounting.ValidationError
	if !errors.As(err, &invalid) {
		if err != nil {
			return err
		}
		http.Redirect(w, r, "/computers?saved=pause", http.StatusSeeOther)
		return nil
	}
	d, err := a.computersPage(r)
	if err != nil {
		return err
	}
	d.Errors = views.Fields(invalid.Fields)
	a.render(w, r, http.StatusUnprocessableEntity, views.Computers(a.volunteerPage(r, tr(r, "computers.title"), "computers"), d))
	return nil
}

package handlers

import (
	"net/http"
	"strconv"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// The founder's part of a team: editing it, handing it over and deleting
// it. The domain refuses anyone but the team's founder
// (accounting.ErrNotFounder); these handlers only read the forms.

// EditForm is the founder's form that changes the team (GET
// /teams/{id}/edit), filled with what it holds.
func (a *Teams) EditForm(w http.ResponseWriter, r *http.Request) error {
	tm, err := visibleTeam(r, a.teams)
	if err != nil {
		return err
	}
	mine, err := a.mine(r)
	if err != nil {
		return err
	}
	if mine == nil || mine.Team.ID != tm.ID || !mine.Founder {
		return accounting.ErrNotFounder
	}
	f := views.TeamForm{ID: tm.ID, Team: accounting.NewTeam{Name: tm.Name, Type: tm.Type, Country: tm.Country,
		URL: tm.URL, Description: tm.Description, Open: tm.Open}}
	a.render(w, r, http.StatusOK, views.TeamFormPage(a.page(r, tr(r, "teams.edit_title")), f))
	return nil
}

// Edit changes the team (POST /teams/{id}/edit, the fields of POST
// /teams) and redirects to its page; bad input is the form again with
// 422 and each field's message.
func (a *Teams) Edit(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	nt, err := teamForm(r)
	if err == nil {
		err = a.teams.EditTeam(r.Context(), currentUser(r).ID, id, nt)
	}
	if fields := formErrors(err); fields != nil {
		f := views.TeamForm{ID: id, Team: nt, Errors: fields}
		a.render(w, r, http.StatusUnprocessableEntity, views.TeamFormPage(a.page(r, tr(r, "teams.edit_title")), f))
		return nil
	}
	if err != nil {
		return err
	}
	return a.done(w, r, teamPath(id), "team_saved")
}

// HandOver makes another member the team's founder (POST
// /teams/{id}/hand-over, to = the member's user id).
func (a *Teams) HandOver(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := parseForm(r); err != nil {
		return err
	}
	to, err := strconv.ParseInt(r.PostForm.Get("to"), 10, 64)
	if err != nil || to <= 0 {
		return &accounting.ValidationError{Fields: map[string]locale.Msg{"to": locale.M("teams.hand_over_none")}}
	}
	if err := a.teams.HandOver(r.Context(), currentUser(r).ID, id, to); err != nil {
		return err
	}
	return a.done(w, r, teamPath(id), "team_handed_over")
}

// Delete deletes the team (POST /teams/{id}/delete, confirm ticked) and
// redirects to /teams.
func (a *Teams) Delete(w http.ResponseWriter, r *http.Request) error {
	id, err := confirmedTeamDelete(r)
	if err != nil {
		return err
	}
	if err := a.teams.DeleteTeam(r.Context(), currentUser(r).ID, id); err != nil {
		return err
	}
	return a.done(w, r, "/teams", "team_deleted")
}

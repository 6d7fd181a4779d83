package handlers

import (
	"net/http"
	"strings"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// adminTeamsShown is how many teams /admin/teams lists for a search.
const adminTeamsShown = 100

// adminTeamNotices are what /admin/teams confirms after a change.
var adminTeamNotices = map[string]string{
	"renamed": "The team is renamed.", "hidden": "The team is hidden from every public page.",
	"shown": "The team is public again.", "deleted": "The team is deleted.",
}

// AdminTeams is /admin/teams (?q= a part of the name): teams, hidden ones
// too, to rename, hide or delete.
func (a *Admin) AdminTeams(w http.ResponseWriter, r *http.Request) error {
	d := views.AdminTeamsPage{Search: teamSearch(r.URL.Query().Get("q")),
		Notice: adminTeamNotices[r.URL.Query().Get("done")]}
	return a.adminTeamsPage(w, r, http.StatusOK, d)
}

// adminTeamsPage renders /admin/teams with d's search, and status.
func (a *Admin) adminTeamsPage(w http.ResponseWriter, r *http.Request, status int, d views.AdminTeamsPage) error {
	var err error
	if d.Teams, err = a.admin.AdminTeams(r.Context(), d.Search, adminTeamsShown); err != nil {
		return err
	}
	a.render(w, r, status, views.AdminTeams(a.page(r, "Teams"), d))
	return nil
}

// AdminRenameTeam renames a team (POST /admin/teams/{id}/rename, name),
// audited; a name refused is the page again with 422 and the reason.
func (a *Admin) AdminRenameTeam(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err = parseForm(r); err == nil {
		err = a.admin.AdminRenameTeam(r.Context(), actor(r), id, strings.TrimSpace(r.PostForm.Get("name")))
	}
	if fields := formErrors(err); fields != nil {
		d := views.AdminTeamsPage{ProblemID: id, Problem: fieldMessages(locale.English(), fields)}
		return a.adminTeamsPage(w, r, http.StatusUnprocessableEntity, d)
	}
	return adminTeamsDone(w, r, err, "renamed")
}

// AdminHideTeam hides a team from every public page, or shows it again
// (POST /admin/teams/{id}/hide, hidden = on or off), audited.
func (a *Admin) AdminHideTeam(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := parseForm(r); err != nil {
		return err
	}
	hide := r.PostForm.Get("hidden") == "on"
	done := map[bool]string{true: "hidden", false: "shown"}[hide]
	return adminTeamsDone(w, r, a.admin.AdminHideTeam(r.Context(), actor(r), id, hide), done)
}

// AdminDeleteTeam deletes a team and its history (POST
// /admin/teams/{id}/delete, confirm ticked), audited.
func (a *Admin) AdminDeleteTeam(w http.ResponseWriter, r *http.Request) error {
	id, err := confirmedTeamDelete(r)
	if err != nil {
		return err
	}
	return adminTeamsDone(w, r, a.admin.AdminDeleteTeam(r.Context(), actor(r), id), "deleted")
}

// adminTeamsDone ends an admin's team change: err, or a 303 back to
// /admin/teams confirming done.
func adminTeamsDone(w http.ResponseWriter, r *http.Request, err error, done string) error {
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/teams?done="+done, http.StatusSeeOther)
	return nil
}

// confirmedTeamDelete reads a team's deletion form: the path's {id}, or a
// ValidationError naming confirm when its box is not ticked.
func confirmedTeamDelete(r *http.Request) (int64, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return 0, err
	}
	if err := parseForm(r); err != nil {
		return 0, err
	}
	if !r.PostForm.Has("confirm") {
		return 0, &accounting.ValidationError{Fields: map[string]locale.Msg{"confirm": locale.M("teams.confirm_delete")}}
	}
	return id, nil
}

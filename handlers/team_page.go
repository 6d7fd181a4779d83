package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// teamMembersShown is how many handles of public members a team page
// lists; the others are counted.
const teamMembersShown = 50

// visibleTeam is the team the path's {id} names, or ErrNotFound when there
// is none or an admin hid it: a hidden team is on no public page.
func visibleTeam(r *http.Request, teams teamsStore) (accounting.Team, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return accounting.Team{}, err
	}
	tm, err := teams.Team(r.Context(), id)
	if err == nil && tm.Hidden {
		err = accounting.ErrNotFound
	}
	return tm, err
}

// Team is a team's public page (GET /teams/{id}, ?days=30|90|365 for its
// chart): facts, totals, the chart, its members who show a public
// profile; join or leave; for its founder, the invitation link and the
// founder's forms. A hidden or unknown team is 404.
func (a *Teams) Team(w http.ResponseWriter, r *http.Request) error {
	tm, err := visibleTeam(r, a.teams)
	if err != nil {
		return err
	}
	ctx := r.Context()
	d := views.TeamPage{Team: tm, Days: historyRange(r), BaseURL: a.cfg.BaseURL, LoggedIn: currentUser(r) != nil}
	if d.Through, err = a.ledger.RolledThrough(ctx); err != nil {
		return err
	}
	if !d.Through.IsZero() {
		if d.History, err = a.teams.TeamHistory(ctx, tm.ID, d.Through.AddDate(0, 0, 1-d.Days), d.Through); err != nil {
			return err
		}
	}
	if d.Members, err = a.teams.TeamMembers(ctx, tm.ID, teamMembersShown); err != nil {
		return err
	}
	if d.Mine, err = a.mine(r); err != nil {
		return err
	}
	if d.Founder() {
		if err := a.founderPart(r, &d); err != nil {
			return err
		}
	}
	p := a.page(r, tm.Name)
	p.Notice = a.teamNotice(r)
	a.render(w, r, http.StatusOK, views.TeamView(p, d))
	return nil
}

// founderPart fills what only the founder sees: the invitation link and
// the members to hand the team to.
func (a *Teams) founderPart(r *http.Request, d *views.TeamPage) error {
	u := currentUser(r)
	code, err := a.teams.Invite(r.Context(), u.ID, d.Team.ID)
	if err != nil {
		return err
	}
	d.InviteURL = a.cfg.BaseURL + "teams/join/" + code
	d.MemberList, err = a.teams.TeamMemberList(r.Context(), u.ID, d.Team.ID)
	return err
}

// Join puts the volunteer in an open team (POST /teams/{id}/join) and
// redirects to its page; a closed team wants its invitation link.
func (a *Teams) Join(w http.ResponseWriter, r *http.Request) error {
	tm, err := visibleTeam(r, a.teams)
	if err != nil {
		return err
	}
	if err := a.teams.Join(r.Context(), currentUser(r).ID, tm.ID, a.now()); err != nil {
		return err
	}
	return a.done(w, r, teamPath(tm.ID), "team_joined")
}

// Leave takes the volunteer out of their team (POST /teams/{id}/leave)
// and redirects to its page, or to /teams when the team went with them.
func (a *Teams) Leave(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := a.teams.Leave(r.Context(), currentUser(r).ID, id, a.now()); err != nil {
		return err
	}
	if _, err := visibleTeam(r, a.teams); err != nil {
		return a.done(w, r, "/teams", "team_left")
	}
	return a.done(w, r, teamPath(id), "team_left")
}

// JoinForm is an invitation link's page (GET /teams/join/{code}): the
// team and a button that joins it. No state changes on GET. An unknown
// or renewed code is 404.
func (a *Teams) JoinForm(w http.ResponseWriter, r *http.Request) error {
	tm, err := a.invited(r)
	if err != nil {
		return err
	}
	d := views.TeamJoinPage{Team: tm, Code: r.PathValue("code"), LoggedIn: currentUser(r) != nil}
	if d.Mine, err = a.mine(r); err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.TeamJoin(a.page(r, tr(r, "teams.join_title")), d))
	return nil
}

// JoinByCode joins the team of an invitation link (POST
// /teams/join/{code}), open or closed, and redirects to its page.
func (a *Teams) JoinByCode(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.invited(r); err != nil {
		return err
	}
	tm, err := a.teams.JoinByCode(r.Context(), currentUser(r).ID, r.PathValue("code"), a.now())
	if err != nil {
		return err
	}
	return a.done(w, r, teamPath(tm.ID), "team_joined")
}

// invited is the team of the path's invitation {code}: ErrNotFound for an
// unknown or renewed code, or a hidden team.
func (a *Teams) invited(r *http.Request) (accounting.Team, error) {
	tm, err := a.teams.TeamByCode(r.Context(), r.PathValue("code"))
	if err == nil && tm.Hidden {
		err = accounting.ErrNotFound
	}
	return tm, err
}

// Invite renews the team's invitation link (POST /teams/{id}/invite),
// founder only: the old link stops working.
func (a *Teams) Invite(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := a.teams.RenewInvite(r.Context(), currentUser(r).ID, id); err != nil {
		return err
	}
	return a.done(w, r, teamPath(id)+"#team-founder", "team_renewed")
}

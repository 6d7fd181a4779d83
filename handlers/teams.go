package handlers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// The notices a team page confirms after a redirect (sessionNotice), and
// their words.
var teamNotices = map[string]locale.Msg{
	"team_created":     locale.M("teams.created"),
	"team_saved":       locale.M("teams.saved"),
	"team_joined":      locale.M("teams.joined"),
	"team_left":        locale.M("teams.left"),
	"team_renewed":     locale.M("teams.invite_renewed"),
	"team_handed_over": locale.M("teams.handed_over"),
	"team_deleted":     locale.M("teams.deleted"),
}

// maxTeamOffset is the furthest /teams pages: no one reads further, and a
// deeper offset only costs the database.
const maxTeamOffset = 100_000

// List is /teams (GET): the teams whose name contains ?q=, in the order
// ?sort= names (credit, recent, members or name; credit by default), from
// ?offset=. Hidden teams are never listed.
func (a *Teams) List(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	d := views.TeamsPage{Search: teamSearch(q.Get("q")), Sort: q.Get("sort")}
	if !slices.Contains(views.TeamSorts, d.Sort) {
		d.Sort = views.TeamSorts[0]
	}
	d.Offset, _ = strconv.Atoi(q.Get("offset"))
	d.Offset = min(max(d.Offset, 0), maxTeamOffset)
	var err error
	if d.Teams, d.Total, err = a.teams.Teams(r.Context(), d.Search, d.Sort, views.TeamsPerPage, d.Offset); err != nil {
		return err
	}
	if d.Mine, err = a.mine(r); err != nil {
		return err
	}
	d.LoggedIn = currentUser(r) != nil
	p := a.page(r, tr(r, "teams.title"))
	p.Notice = a.teamNotice(r)
	a.render(w, r, http.StatusOK, views.Teams(p, d))
	return nil
}

// teamSearch is the name searched for: printable text, trimmed, at most
// 64 characters (a team name's most); anything else searches for nothing.
func teamSearch(s string) string {
	s = strings.TrimSpace(textOnly(s))
	for utf8.RuneCountInString(s) > 64 {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// mine is the signed-in volunteer's team, or nil when they are in none or
// no one is signed in.
func (a *Teams) mine(r *http.Request) (*accounting.MyTeam, error) {
	u := currentUser(r)
	if u == nil {
		return nil, nil
	}
	return myTeam(r.Context(), a.teams, u.ID)
}

// myTeam is volunteer userID's team, or nil when they are in none.
func myTeam(ctx context.Context, teams teamsStore, userID int64) (*accounting.MyTeam, error) {
	m, ok, err := teams.Mine(ctx, userID)
	if err != nil || !ok {
		return nil, err
	}
	return &m, nil
}

// teamNotice pops the notice a team action left for the page it
// redirected to, in the reader's language; "" when there is none.
func (a *Teams) teamNotice(r *http.Request) string {
	if currentUser(r) == nil {
		return ""
	}
	if m, ok := teamNotices[a.sessions.PopString(r.Context(), sessionNotice)]; ok {
		return m.In(locale.From(r.Context()))
	}
	return ""
}

// done leaves notice for the next page and redirects there with 303.
func (a *Teams) done(w http.ResponseWriter, r *http.Request, path, notice string) error {
	a.sessions.Put(r.Context(), sessionNotice, notice)
	http.Redirect(w, r, path, http.StatusSeeOther)
	return nil
}

// New is the form that creates a team (GET /teams/new): an open club by
// default.
func (a *Teams) New(w http.ResponseWriter, r *http.Request) error {
	ms, err := a.mail.MailState(r.Context(), currentUser(r).ID)
	if err != nil {
		return err
	}
	f := views.TeamForm{Team: accounting.NewTeam{Type: 1, Open: true}, Unconfirmed: !ms.Confirmed}
	a.render(w, r, http.StatusOK, views.TeamFormPage(a.page(r, tr(r, "teams.new_title")), f))
	return nil
}

// Create creates a team (POST /teams: name, type 1–7, country, url,
// description, open = "on" for an open team), founded by the volunteer,
// and redirects to its page with 303; bad input is the form again with
// 422 and each field's message; an unconfirmed address (403) or too many
// teams founded in a day (429) is the form again with the reason.
func (a *Teams) Create(w http.ResponseWriter, r *http.Request) error {
	nt, err := teamForm(r)
	var tm accounting.Team
	if err == nil {
		tm, err = a.teams.CreateTeam(r.Context(), currentUser(r).ID, nt, a.now())
	}
	f := views.TeamForm{Team: nt, Errors: formErrors(err)}
	status := http.StatusUnprocessableEntity
	if errors.Is(err, accounting.ErrEmailUnconfirmed) || errors.Is(err, accounting.ErrTooManyTeams) {
		// Refused as a whole: the form again, as typed, with the reason.
		var title, msg locale.Msg
		status, title, msg = errorWords(err)
		f.Problem = title.In(locale.From(r.Context())) + ". " + msg.In(locale.From(r.Context()))
	} else if f.Errors == nil && err != nil {
		return err
	}
	if err != nil {
		a.render(w, r, status, views.TeamFormPage(a.page(r, tr(r, "teams.new_title")), f))
		return nil
	}
	return a.done(w, r, teamPath(tm.ID), "team_created")
}

// teamForm reads a team's form: text fields trimmed (the description may
// hold line breaks), the type a number (0 when it is none, which the
// domain refuses), open when "open" is "on". A field that is not
// printable text is a *accounting.ValidationError naming it, the form
// read so far alongside.
func teamForm(r *http.Request) (accounting.NewTeam, error) {
	err := parseForm(r, "description")
	if errors.Is(err, errBadForm) || errors.Is(err, errFormTooLarge) {
		return accounting.NewTeam{}, err
	}
	f := r.PostForm
	typ, convErr := strconv.Atoi(strings.TrimSpace(f.Get("type")))
	if convErr != nil {
		typ = 0
	}
	nt := accounting.NewTeam{Name: strings.TrimSpace(textOnly(f.Get("name"))), Type: typ,
		Country: strings.TrimSpace(textOnly(f.Get("country"))), URL: strings.TrimSpace(textOnly(f.Get("url"))),
		Description: strings.TrimSpace(linesOnly(f.Get("description"))), Open: f.Get("open") == "on"}
	return nt, err
}

// linesOnly is textOnly for text of several lines.
func linesOnly(s string) string {
	if !checkText(s, true).IsZero() {
		return ""
	}
	return s
}

// teamPath is a team's page.
func teamPath(id int64) string { return "/teams/" + strconv.FormatInt(id, 10) }

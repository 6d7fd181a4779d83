package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// The page sizes of the API's lists: the default and the most.
const (
	defaultPage = 100
	maxPage     = 500
)

// APIMe answers GET /api/v1/me: the volunteer's name, time zone, lifetime
// totals, the day up to which confirmed credit is known, and their team.
func (a *API) APIMe(r *http.Request, u *accounting.User) (any, error) {
	ctx := r.Context()
	s, err := a.ledger.Summary(ctx, u.ID, a.ledger.Today(a.now(), u.TimeZone))
	if err != nil {
		return nil, err
	}
	through, err := a.confirmedThrough(r, u)
	if err != nil {
		return nil, err
	}
	team, err := a.myTeam(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return jsonMe{ID: u.ID, Name: u.Name, TimeZone: u.TimeZone, ConfirmedThrough: through, Team: team,
		Totals: jsonTotals{Estimated: s.AllTime.Estimated, Confirmed: s.AllTime.Confirmed}}, nil
}

// confirmedThrough is the earliest of the latest export days of the
// volunteer's projects that have been reconciled, as YYYY-MM-DD; nil when
// none has been.
func (a *API) confirmedThrough(r *http.Request, u *accounting.User) (*string, error) {
	exports, err := a.ledger.ExportDays(r.Context(), u.TimeZone)
	if err != nil {
		return nil, err
	}
	projects, err := a.computers.VolunteerProjects(r.Context(), u.ID)
	if err != nil {
		return nil, err
	}
	var through time.Time
	for _, p := range projects {
		if d, ok := exports[p.ID]; ok && (through.IsZero() || d.Before(through)) {
			through = d
		}
	}
	if through.IsZero() {
		return nil, nil
	}
	s := through.Format(time.DateOnly)
	return &s, nil
}

// APIComputers answers GET /api/v1/computers: the volunteer's computers
// by id, a page at a time.
func (a *API) APIComputers(r *http.Request, u *accounting.User) (any, error) {
	limit, err := pageLimit(r, defaultPage, maxPage)
	if err != nil {
		return nil, err
	}
	after, err := idCursor(r, "c")
	if err != nil {
		return nil, err
	}
	cs, err := a.api.APIComputers(r.Context(), u.ID, after, limit+1)
	if err != nil {
		return nil, err
	}
	out := jsonComputers{Computers: []jsonComputer{}}
	for i, c := range cs {
		if i == limit {
			out.NextCursor = orNull(makeCursor("c", strconv.FormatInt(cs[i-1].ID, 10)))
			break
		}
		out.Computers = append(out.Computers, toJSONComputer(c))
	}
	return out, nil
}

// APIComputer answers GET /api/v1/computers/{id}: one of the volunteer's
// computers. Another volunteer's, or none, is 404.
func (a *API) APIComputer(r *http.Request, u *accounting.User) (any, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, accounting.ErrNotFound
	}
	c, err := a.api.APIComputer(r.Context(), u.ID, id)
	if err != nil {
		return nil, err
	}
	return toJSONComputer(c), nil
}

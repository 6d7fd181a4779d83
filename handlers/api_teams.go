package handlers

import (
	"context"
	"net/http"

	"github.com/cobble-am/cobble/accounting"
)

// jsonTeam is GET /api/v1/teams/{id}: a team's public facts. Credit is
// confirmed credit, as in Cobble's statistics export.
type jsonTeam struct {
	ID           int64   `json:"id"`
	Name         string  `json:"name"`
	Type         int     `json:"type"`
	Country      string  `json:"country"`
	Members      int     `json:"members"`
	TotalCredit  float64 `json:"total_credit"`
	ExpavgCredit float64 `json:"expavg_credit"`
}

// jsonMyTeam is the volunteer's team in GET /api/v1/me.
type jsonMyTeam struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Founder bool   `json:"founder"`
}

// APITeam answers GET /api/v1/teams/{id}: a team's public facts. A hidden
// or unknown team is 404.
func (a *API) APITeam(r *http.Request, u *accounting.User) (any, error) {
	tm, err := visibleTeam(r, a.teams)
	if err != nil {
		return nil, err
	}
	return jsonTeam{ID: tm.ID, Name: tm.Name, Type: tm.Type, Country: tm.Country, Members: tm.Members,
		TotalCredit: tm.Confirmed, ExpavgCredit: tm.RecentAverage}, nil
}

// myTeam is the volunteer's team for GET /api/v1/me, or nil when they are
// in none.
func (a *API) myTeam(ctx context.Context, userID int64) (*jsonMyTeam, error) {
	m, ok, err := a.teams.Mine(ctx, userID)
	if err != nil || !ok {
		return nil, err
	}
	return &jsonMyTeam{ID: m.Team.ID, Name: m.Team.Name, Founder: m.Founder}, nil
}

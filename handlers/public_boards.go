package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// Leaderboards are the opt-in leaderboards (GET /leaderboards, ?area= a
// science area's keyword id for its boards), and overall the teams'.
func (a *Public) Leaderboards(w http.ResponseWriter, r *http.Request) error {
	b, err := a.public.Leaderboards(r.Context())
	if errors.Is(err, accounting.ErrComputing) {
		w.Header().Set("Retry-After", strconv.Itoa(boardsRetry))
	}
	if err != nil {
		return err
	}
	d := views.LeaderboardsPage{Boards: b, Area: boardArea(r.URL.Query().Get("area"))}
	if d.Area == 0 { // teams have boards of their own overall, not by area
		if d.Teams, err = a.teams.TeamBoards(r.Context()); err != nil {
			return err
		}
	}
	a.render(w, r, http.StatusOK, views.Leaderboards(a.page(r, tr(r, "boards.title")), d))
	return nil
}

// boardsRetry is the Retry-After, in seconds, of the page that says the
// leaderboards are being computed (after an instance started).
const boardsRetry = 30

// boardArea reads the ?area= of the leaderboards: a top-level science
// keyword's id, or 0 (overall) for anything else.
func boardArea(s string) int {
	id, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	if k, ok := accounting.KeywordByID(id); ok && k.Category == accounting.CategoryScience && k.Level == 0 {
		return id
	}
	return 0
}

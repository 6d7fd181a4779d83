package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// BadgeSVG is a team's badge as SVG (GET /teams/{id}/badge.svg), in the
// reader's language (so it varies with the language cookie and
// Accept-Language), cached for a while with an ETag; a hidden team has
// none (404).
func (a *Teams) BadgeSVG(w http.ResponseWriter, r *http.Request) error {
	tm, err := visibleTeam(r, a.teams)
	if err != nil {
		return err
	}
	w.Header().Set("Vary", "Accept-Language, Cookie")
	serveBadge(w, r, "image/svg+xml; charset=utf-8", views.TeamBadgeSVG(locale.From(r.Context()), tm, a.cfg.Name))
	return nil
}

// BadgePNG is the same badge as a PNG (GET /teams/{id}/badge.png), for
// forums that refuse SVG.
func (a *Teams) BadgePNG(w http.ResponseWriter, r *http.Request) error {
	tm, err := visibleTeam(r, a.teams)
	if err != nil {
		return err
	}
	img, err := views.TeamBadgePNG(locale.From(r.Context()), tm, a.cfg.Name)
	if err != nil {
		return err
	}
	w.Header().Set("Vary", "Accept-Language, Cookie")
	serveBadge(w, r, "image/png", img)
	return nil
}

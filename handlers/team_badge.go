package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// BadgeSVG is a team's badge as SVG (GET /teams/{id}/badge.svg), in the
// language ?lang= names (the team page's links name the page's), else
// the reader's; cached for a while with an ETag. A hidden team has none
// (404).
func (a *Teams) BadgeSVG(w http.ResponseWriter, r *http.Request) error {
	tm, err := visibleTeam(r, a.teams)
	if err != nil {
		return err
	}
	serveBadge(w, r, "image/svg+xml; charset=utf-8", views.TeamBadgeSVG(badgeLang(w, r), tm, a.cfg.Name))
	return nil
}

// badgeLang is the language of a team's badge: ?lang=, or the reader's
// (the language cookie's or Accept-Language's), which the answer then
// varies with.
func badgeLang(w http.ResponseWriter, r *http.Request) *locale.Lang {
	if l := locale.Default().Get(r.URL.Query().Get("lang")); l != nil {
		return l
	}
	w.Header().Set("Vary", "Accept-Language, Cookie")
	return locale.From(r.Context())
}

// BadgePNG is the same badge as a PNG (GET /teams/{id}/badge.png), for
// forums that refuse SVG.
func (a *Teams) BadgePNG(w http.ResponseWriter, r *http.Request) error {
	tm, err := visibleTeam(r, a.teams)
	if err != nil {
		return err
	}
	img, err := views.TeamBadgePNG(badgeLang(w, r), tm, a.cfg.Name)
	if err != nil {
		return err
	}
	serveBadge(w, r, "image/png", img)
	return nil
}

package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// badgeMaxAge is how long a browser or a forum's proxy may keep a badge
// without asking again: turning the profile off takes the badge away
// within this time.
const badgeMaxAge = "max-age=300"

// BadgeSVG is a volunteer's badge as SVG (GET /v/{handle}/badge.svg), in
// their language, served only while the profile is public.
func (a *Public) BadgeSVG(w http.ResponseWriter, r *http.Request) error {
	b, err := a.public.Badge(r.Context(), r.PathValue("handle"))
	if err != nil {
		return err
	}
	b.Site = a.cfg.Name
	serveBadge(w, r, "image/svg+xml; charset=utf-8", views.BadgeSVG(locale.Default().Lookup(b.Language), b))
	return nil
}

// BadgePNG is the same badge as a PNG (GET /v/{handle}/badge.png), for
// forums that refuse SVG, drawn in Go.
func (a *Public) BadgePNG(w http.ResponseWriter, r *http.Request) error {
	b, err := a.public.Badge(r.Context(), r.PathValue("handle"))
	if err != nil {
		return err
	}
	b.Site = a.cfg.Name
	img, err := views.BadgePNG(locale.Default().Lookup(b.Language), b)
	if err != nil {
		return err
	}
	serveBadge(w, r, "image/png", img)
	return nil
}

// serveBadge writes a badge with its ETag, cached publicly for a while;
// a request that holds the same ETag gets 304.
func serveBadge(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	h := w.Header()
	h.Set("Cache-Control", "public, "+badgeMaxAge)
	if notModified(w, r, body) {
		return
	}
	h.Set("Content-Type", contentType)
	w.Write(body)
}

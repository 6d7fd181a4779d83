package handlers

import (
	"bytes"
	"context"
	"net/http"

	"github.com/a-h/templ"

	"github.com/cobble-am/cobble/views"
)

// render writes c with status, rendering into a buffer first so that a
// failure half-way never sends half a page. Rendering needs no database,
// so it goes on past the request's deadline: the page that says the
// deadline passed is rendered too.
func (a *base) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(context.WithoutCancel(r.Context()), &buf); err != nil {
		a.log.ErrorContext(r.Context(), "render failed", "path", LogPath(r.Pattern, r.URL.Path), "err", err)
		http.Error(w, "Cobble could not render this page."+quote(r), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// page returns the layout data for a request.
func (a *base) page(r *http.Request, title string) views.Page {
	p := views.Page{Title: title, SiteName: a.cfg.Name, User: currentUser(r), CSS: a.cfg.CSS,
		RequestID: RequestID(r.Context()), Contact: a.cfg.Contact}
	if r.Method == http.MethodGet {
		p.Path = r.URL.RequestURI()
	}
	return p
}

// quote asks, on a plain-text error, that a report quote the request's id.
func quote(r *http.Request) string {
	if id := RequestID(r.Context()); id != "" {
		return " If you report this, quote: " + id
	}
	return ""
}

// volunteerPage is the layout data of a page in a volunteer section.
func (a *base) volunteerPage(r *http.Request, title, nav string) views.Page {
	p := a.page(r, title)
	p.Nav = nav
	return p
}

package handlers

import (
	"errors"
	"github.com/cobble-am/cobble/internal/locale"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// HandlerFunc is a page handler that returns its failure instead of writing it.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

var (
	// errForbidden means the visitor may not see the page.
	errForbidden = errors.New("forbidden")
	// errCrossOrigin means a form was posted from another site.
	errCrossOrigin = errors.New("cross-origin request")
	// errBusy means the work asked for is under way already.
	errBusy = errors.New("busy")
	// errBadForm means a posted form could not be read.
	errBadForm = errors.New("unreadable form")
	// errFormTooLarge means a posted form was over the size limit.
	errFormTooLarge = errors.New("form too large")
)

// Handle adapts h to http.Handler: a returned error becomes a page with the
// right status, logged once when it is the server's fault, and never shows
// the error's text to the visitor.
func (a *App) Handle(h HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			a.serveError(w, r, err)
		}
	}
}

// errorPages maps errors to what a visitor sees: the first entry whose
// error matches (errors.Is) wins; anything else is a 500, the server's own
// fault.
var errorPages = []struct {
	err        error
	status     int
	title, msg string
}{
	{accounting.ErrNotFound, http.StatusNotFound, "Not found", "There is nothing at this address."},
	{errFormTooLarge, http.StatusRequestEntityTooLarge, "Too much data", "The form sent more data than Cobble accepts."},
	{errBadForm, http.StatusBadRequest, "Unreadable form", "Cobble could not read the form. Please try again."},
	{accounting.ErrConflict, http.StatusConflict, "Already changed",
		"What you sent clashes with what Cobble holds, which may have changed meanwhile. Please reload the page and try again."},
	{errCrossOrigin, http.StatusForbidden, "Refused", "Cobble accepts forms only from its own pages."},
	{errBusy, http.StatusConflict, "Busy", "That work is under way already; try again in a moment."},
	{errForbidden, http.StatusForbidden, "Not allowed", "This page is for Cobble's administrators."},
	{accounting.ErrLinkInvalid, http.StatusGone, "This link does not work any more",
		"Links in Cobble's messages work once, and for a limited time. Ask for a new one: " +
			"a new password at /password/forgot, a new confirmation link on your settings page."},
	{accounting.ErrLimited, http.StatusTooManyRequests, "Too many messages",
		"Cobble sent this account several messages of this kind in the last hour. Please use the newest, or try again later."},
	{accounting.ErrUnavailable, http.StatusServiceUnavailable, "Cobble is unavailable",
		"Cobble's database is not answering right now. Please try again in a minute."},
}

// errorPage returns the status, title and message a visitor gets for err:
// from errorPages, 422 for a *accounting.ValidationError, else 500.
func errorPage(l *locale.Lang, err error) (status int, title, msg string) {
	for _, p := range errorPages {
		if errors.Is(err, p.err) {
			return p.status, p.title, p.msg
		}
	}
	if fields := formErrors(err); fields != nil {
		return http.StatusUnprocessableEntity, "Please check the form", fieldMessages(l, fields)
	}
	return http.StatusInternalServerError, "Something went wrong",
		"Cobble could not show this page. The problem has been logged; please try again in a little while."
}

func (a *App) serveError(w http.ResponseWriter, r *http.Request, err error) {
	status, title, msg := errorPage(locale.From(r.Context()), err)
	if status >= 500 {
		a.log.ErrorContext(r.Context(), "page failed", "path", r.URL.Path, "err", err)
	}
	a.render(w, r, status, views.ErrorPage(a.page(r, title), status, msg))
}

// fieldMessages joins field messages into one sentence per field, in a
// stable order, for pages without a form of their own to show them on.
func fieldMessages(l *locale.Lang, fields map[string]locale.Msg) string {
	names := slices.Sorted(maps.Keys(fields))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ": " + fields[n].In(l)
	}
	return strings.Join(parts, " ")
}

// SessionError is the page for a request whose session could not be loaded
// or saved: 503 when the database is not answering, else 500.
func (a *App) SessionError(w http.ResponseWriter, r *http.Request, err error) {
	a.serveError(w, r, accounting.Classify(err))
}

// NotFound is the page for addresses Cobble does not serve.
func (a *App) NotFound(w http.ResponseWriter, r *http.Request) error {
	return accounting.ErrNotFound
}

// CrossOrigin is the page for a form posted from another site.
func (a *App) CrossOrigin(w http.ResponseWriter, r *http.Request) error {
	return errCrossOrigin
}

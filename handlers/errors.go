package handlers

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

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

func (a *App) serveError(w http.ResponseWriter, r *http.Request, err error) {
	status, title, msg := http.StatusInternalServerError, "Something went wrong",
		"Cobble could not show this page. The problem has been logged; please try again in a little while."
	switch {
	case errors.Is(err, accounting.ErrNotFound):
		status, title, msg = http.StatusNotFound, "Not found", "There is nothing at this address."
	case errors.Is(err, errFormTooLarge):
		status, title, msg = http.StatusRequestEntityTooLarge, "Too much data", "The form sent more data than Cobble accepts."
	case errors.Is(err, errBadForm):
		status, title, msg = http.StatusBadRequest, "Unreadable form", "Cobble could not read the form. Please try again."
	case errors.Is(err, errCrossOrigin):
		status, title, msg = http.StatusForbidden, "Refused", "Cobble accepts forms only from its own pages."
	case errors.Is(err, errBusy):
		status, title, msg = http.StatusConflict, "Busy", "That work is under way already; try again in a moment."
	case formErrors(err) != nil:
		status, title, msg = http.StatusUnprocessableEntity, "Please check the form", fieldMessages(formErrors(err))
	case errors.Is(err, errForbidden):
		status, title, msg = http.StatusForbidden, "Not allowed", "This page is for Cobble's administrators."
	case unavailable(err):
		status, title, msg = http.StatusServiceUnavailable, "Cobble is unavailable",
			"Cobble's database is not answering right now. Please try again in a minute."
	}
	if status >= 500 {
		a.log.ErrorContext(r.Context(), "page failed", "path", r.URL.Path, "err", err)
	}
	a.render(w, r, status, views.ErrorPage(a.page(r, title), status, msg))
}

// fieldMessages joins field messages into one sentence per field, in a
// stable order, for pages without a form of their own to show them on.
func fieldMessages(fields map[string]string) string {
	names := slices.Sorted(maps.Keys(fields))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ": " + fields[n]
	}
	return strings.Join(parts, " ")
}

// unavailable says whether err means the database could not be reached.
func unavailable(err error) bool {
	var connErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connErr) || errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)
}

// NotFound is the page for addresses Cobble does not serve.
func (a *App) NotFound(w http.ResponseWriter, r *http.Request) error {
	return accounting.ErrNotFound
}

// CrossOrigin is the page for a form posted from another site.
func (a *App) CrossOrigin(w http.ResponseWriter, r *http.Request) error {
	return errCrossOrigin
}

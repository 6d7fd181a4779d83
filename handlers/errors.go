package handlers

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
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
// right status, logged once when it is the server's fault (not for a page
// that is still being computed), and never shows
// the error's text to the visitor.
func (a *base) Handle(h HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			a.serveError(w, r, err)
		}
	}
}

// errorTable is the one table of errors: every surface derives its answer
// from the row of the first error that matches (errors.Is). A row gives
// the page's status, title and text; the API answers a problem of the
// same status (api_problem.go: the row's own words, or the status's name
// and the row's text in English); an RPC that fails with the error answers
// the row's BOINC error code (rpc.go; 0 where an RPC cannot meet the
// error, which then answers a generic failure). Anything not in the table
// is a 500, the server's own fault.
var errorTable = []errorRow{
	{accounting.ErrNotFound, http.StatusNotFound, locale.M("errors.not_found"), locale.M("errors.not_found_text"), 0, problemNotFound},
	{errFormTooLarge, http.StatusRequestEntityTooLarge, locale.M("errors.too_large"), locale.M("errors.too_large_text"), 0, nil},
	{errBadForm, http.StatusBadRequest, locale.M("errors.bad_form"), locale.M("errors.bad_form_text"), 0, nil},
	{accounting.ErrConflict, http.StatusConflict, locale.M("errors.conflict"), locale.M("errors.conflict_text"), 0, nil},
	{errCrossOrigin, http.StatusForbidden, locale.M("errors.cross_origin"), locale.M("errors.cross_origin_text"), 0, nil},
	{errBusy, http.StatusConflict, locale.M("errors.busy"), locale.M("errors.busy_text"), 0, nil},
	{errForbidden, http.StatusForbidden, locale.M("errors.forbidden"), locale.M("errors.forbidden_text"), 0, nil},
	{accounting.ErrNotFounder, http.StatusForbidden, locale.M("teams.not_founder"), locale.M("teams.not_founder_text"), 0, nil},
	{accounting.ErrTeamClosed, http.StatusForbidden, locale.M("teams.closed_title"), locale.M("teams.closed"), 0, nil},
	{accounting.ErrTooManyTeams, http.StatusTooManyRequests, locale.M("teams.too_many"), locale.M("teams.too_many_text"), 0, nil},
	{accounting.ErrEmailUnconfirmed, http.StatusForbidden, locale.M("teams.unconfirmed"), locale.M("teams.unconfirmed_text"), 0, nil},
	{accounting.ErrLinkInvalid, http.StatusGone, locale.M("errors.link_invalid"), locale.M("errors.link_invalid_text"), 0, nil},
	{accounting.ErrWithdrawn, http.StatusGone, locale.M("errors.withdrawn"), locale.M("errors.withdrawn_text"), 0, nil},
	{accounting.ErrLimited, http.StatusTooManyRequests, locale.M("errors.limited"), locale.M("errors.limited_text"), 0, nil},
	{accounting.ErrUnavailable, http.StatusServiceUnavailable, locale.M("errors.unavailable"), locale.M("errors.unavailable_text"), boinc.CodeProjectDown, problemUnavailable},
	{accounting.ErrComputing, http.StatusServiceUnavailable, locale.M("errors.computing"), locale.M("errors.computing_text"), boinc.CodeProjectDown, nil},
	// The same words for an unknown account and a wrong password, so that
	// no page tells which emails have accounts.
	{accounting.ErrUnknownAccount, http.StatusForbidden, locale.M("errors.domain.bad_credentials"), locale.M("errors.domain.bad_credentials_text"), boinc.CodeBadPassword, nil},
	{accounting.ErrBadPassword, http.StatusForbidden, locale.M("errors.domain.bad_credentials"), locale.M("errors.domain.bad_credentials_text"), boinc.CodeBadPassword, nil},
	{accounting.ErrDisabled, http.StatusForbidden, locale.M("errors.domain.disabled"), locale.M("errors.domain.disabled_text"), boinc.CodeBadPassword, nil},
	{accounting.ErrBadCode, http.StatusUnprocessableEntity, locale.M("errors.domain.bad_code"), locale.M("errors.domain.bad_code_text"), 0, nil},
	{accounting.ErrCodeUsed, http.StatusUnprocessableEntity, locale.M("errors.domain.code_used"), locale.M("errors.domain.code_used_text"), 0, nil},
	{reconcile.ErrRunBusy, http.StatusConflict, locale.M("errors.domain.run_busy"), locale.M("errors.domain.run_busy_text"), 0, nil},
	// The server's fault (so logged), but one the volunteer is told about.
	{accounting.ErrUnreadablePrefs, http.StatusInternalServerError, locale.M("errors.domain.unreadable_prefs"), locale.M("errors.domain.unreadable_prefs_text"), 0, nil},
}

// errorRow is one row of errorTable.
type errorRow struct {
	err        error
	status     int         // the HTTP status of the page and of the API's problem
	title, msg locale.Msg  // the page's words
	rpc        int         // the BOINC error code of an RPC that fails with err; 0: none
	problem    *apiProblem // the API's own words for err; nil: derived
}

// errorRowOf returns the row of the first error of errorTable that err
// matches, or false.
func errorRowOf(err error) (errorRow, bool) {
	for _, row := range errorTable {
		if errors.Is(err, row.err) {
			return row, true
		}
	}
	return errorRow{}, false
}

// errorWords returns the status, title and message of err: from
// errorTable, 422 for a *accounting.ValidationError (whose message is its
// fields'), else 500.
func errorWords(err error) (status int, title, msg locale.Msg) {
	if row, ok := errorRowOf(err); ok {
		return row.status, row.title, row.msg
	}
	if formErrors(err) != nil {
		return http.StatusUnprocessableEntity, locale.M("errors.check_form"), locale.Msg{}
	}
	return http.StatusInternalServerError, locale.M("errors.internal"), locale.M("errors.internal_text")
}

// errorPage returns the status, title and message a visitor gets for err,
// in l (errorWords).
func errorPage(l *locale.Lang, err error) (status int, title, msg string) {
	status, t, m := errorWords(err)
	if fields := formErrors(err); fields != nil {
		return status, t.In(l), fieldMessages(l, fields)
	}
	return status, t.In(l), m.In(l)
}

func (a *base) serveError(w http.ResponseWriter, r *http.Request, err error) {
	status, title, msg := errorPage(locale.From(r.Context()), err)
	if status >= 500 && !errors.Is(err, accounting.ErrComputing) {
		a.log.ErrorContext(r.Context(), "page failed", "path", LogPath(r.Pattern, r.URL.Path), "err", err)
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
func (a *base) SessionError(w http.ResponseWriter, r *http.Request, err error) {
	a.serveError(w, r, accounting.Classify(err))
}

// NotFound is the page for addresses Cobble does not serve.
func (a *base) NotFound(w http.ResponseWriter, r *http.Request) error {
	return accounting.ErrNotFound
}

// CrossOrigin is the page for a form posted from another site.
func (a *base) CrossOrigin(w http.ResponseWriter, r *http.Request) error {
	return errCrossOrigin
}

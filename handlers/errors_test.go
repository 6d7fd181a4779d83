package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/internal/locale"
)

// TestServeError checks what a visitor gets for each error a handler
// returns, wrapped as the layers below wrap it: the status, the page's
// title and message, never the error's own text, and a log line only for
// the server's own failures.
func TestServeError(t *testing.T) {
	t.Parallel()
	const secret = "relation users_secret does not exist at 10.0.0.5"
	type errorCase struct {
		name   string
		err    error
		status int
		title  string
		msg    string // on the page, besides the title
		logged bool   // whether the failure is logged
	}
	tests := []errorCase{
		{"not found", fmt.Errorf("host 7: %w", accounting.ErrNotFound),
			http.StatusNotFound, "Not found", "There is nothing at this address.", false},
		{"form too large", errFormTooLarge,
			http.StatusRequestEntityTooLarge, "Too much data", "The form sent more data than Cobble accepts.", false},
		{"unreadable form", errBadForm,
			http.StatusBadRequest, "Unreadable form", "Cobble could not read the form.", false},
		{"conflict", fmt.Errorf("update project: %w", accounting.ErrConflict),
			http.StatusConflict, "Already changed", "Please reload the page and try again.", false},
		{"cross-origin", errCrossOrigin,
			http.StatusForbidden, "Refused", "Cobble accepts forms only from its own pages.", false},
		{"busy", fmt.Errorf("reconcile project 3: %w", errBusy),
			http.StatusConflict, "Busy", "That work is under way already", false},
		{"forbidden", errForbidden,
			http.StatusForbidden, "Not allowed", "This page is for Cobble's administrators.", false},
		{"link invalid", fmt.Errorf("reset password: %w", accounting.ErrLinkInvalid),
			http.StatusGone, "This link does not work any more", "Ask for a new one", false},
		{"withdrawn", fmt.Errorf("certificate: %w", accounting.ErrWithdrawn),
			http.StatusGone, "This certificate was withdrawn", "the volunteer withdrew it", false},
		{"limited", fmt.Errorf("send reset: %w", accounting.ErrLimited),
			http.StatusTooManyRequests, "Too many messages", "Please use the newest, or try again later.", false},
		// As the store marks a database that does not answer.
		{"unavailable", fmt.Errorf("login: %w: %w", accounting.ErrUnavailable, syscall.ECONNREFUSED),
			http.StatusServiceUnavailable, "Cobble is unavailable", "Cobble's database is not answering right now.", true},
		// A page computed in the background, not ready yet: no failure to log.
		{"computing", fmt.Errorf("leaderboards: %w", accounting.ErrComputing),
			http.StatusServiceUnavailable, "Being computed", "Please try again shortly.", false},
		{"validation", fmt.Errorf("set time zone: %w", &accounting.ValidationError{Fields: map[string]locale.Msg{
			"time_zone": locale.Text("Choose a time zone from the list."), "email": locale.Text("Enter an email address.")}}),
			http.StatusUnprocessableEntity, "Please check the form",
			"email: Enter an email address. time_zone: Choose a time zone from the list.", false},
		{"unknown account", fmt.Errorf("login: %w", accounting.ErrUnknownAccount),
			http.StatusForbidden, "Email and password do not match", "Check both and try again.", false},
		{"wrong password", fmt.Errorf("confirm password: %w", accounting.ErrBadPassword),
			http.StatusForbidden, "Email and password do not match", "Check both and try again.", false},
		{"disabled", fmt.Errorf("login: %w", accounting.ErrDisabled),
			http.StatusForbidden, "Account disabled", "This Cobble account is disabled.", false},
		{"wrong code", fmt.Errorf("check code: %w", accounting.ErrBadCode),
			http.StatusUnprocessableEntity, "Wrong code", "The code does not match.", false},
		{"code used", fmt.Errorf("use recovery code: %w", accounting.ErrCodeUsed),
			http.StatusUnprocessableEntity, "Code used already", "This code was used already.", false},
		{"team closed", fmt.Errorf("join team: %w", accounting.ErrTeamClosed),
			http.StatusForbidden, "This team is closed", "only those with its invitation link", false},
		{"not founder", fmt.Errorf("edit team: %w", accounting.ErrNotFounder),
			http.StatusForbidden, "Only the team's founder may do this", "only they can edit it", false},
		{"too many teams", fmt.Errorf("create team: %w: at most 3 a day", accounting.ErrTooManyTeams),
			http.StatusTooManyRequests, "Too many new teams", "Please try again tomorrow.", false},
		{"email unconfirmed", fmt.Errorf("create team: %w", accounting.ErrEmailUnconfirmed),
			http.StatusForbidden, "Confirm your email address first", "asks for a confirmed email address", false},
		{"run busy", fmt.Errorf("start: %w", reconcile.ErrRunBusy),
			http.StatusConflict, "Reconciliation under way", "Another reconciliation of this project is running.", false},
		{"unreadable preferences", fmt.Errorf("preferences: %w: out of range", accounting.ErrUnreadablePrefs),
			http.StatusInternalServerError, "Your settings could not be read", "The problem has been logged", true},
		{"unknown", fmt.Errorf("overview: %w", errors.New(secret)),
			http.StatusInternalServerError, "Something went wrong", "The problem has been logged", true},
	}
	for _, p := range errorTable {
		if !slices.ContainsFunc(tests, func(tt errorCase) bool { return errors.Is(tt.err, p.err) }) {
			t.Errorf("errorTable maps %q, which no case here checks", p.err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logged bytes.Buffer
			a := &base{log: slog.New(slog.NewTextHandler(&logged, nil)), cfg: Config{Site: Site{Name: "Cobble Test"}, CSS: "/static/test.css"}}
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, "/some/page", nil)
			r.Pattern = "/some/page" // as the router sets it; the log names no path without a route
			a.serveError(w, r, tt.err)
			page := w.Body.String()
			if w.Code != tt.status {
				t.Errorf("status %d, want %d", w.Code, tt.status)
			}
			if ct := w.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			for _, want := range []string{"<title>" + html.EscapeString(tt.title) + " · Cobble Test</title>",
				"<h1>" + html.EscapeString(tt.title) + "</h1>", html.EscapeString(tt.msg)} {
				if !strings.Contains(page, want) {
					t.Errorf("page lacks %q:\n%s", want, page)
				}
			}
			if strings.Contains(page, tt.err.Error()) || strings.Contains(page, secret) {
				t.Errorf("page shows the error's text %q:\n%s", tt.err, page)
			}
			lines := strings.Count(logged.String(), "\n")
			switch {
			case tt.logged && (lines != 1 || !strings.Contains(logged.String(), "/some/page") ||
				!strings.Contains(logged.String(), tt.err.Error())):
				t.Errorf("want one log line with the path and the error, got:\n%s", logged.String())
			case !tt.logged && lines != 0:
				t.Errorf("a visitor's error was logged:\n%s", logged.String())
			}
		})
	}
}

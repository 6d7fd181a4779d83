package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/cobble-am/cobble/accounting"
)

// Session keys: the logged-in volunteer's id, and the id of the session's
// row in user_sessions (accounting.Store.StartSession).
const (
	sessionUserID = "user_id"
	sessionRowID  = "session_id"
)

type userKey struct{}

// currentUser returns the volunteer LoadUser found, or nil.
func currentUser(r *http.Request) *accounting.User {
	u, _ := r.Context().Value(userKey{}).(*accounting.User)
	return u
}

// LoadUser puts the logged-in volunteer, if any, in the request's context.
// A session whose user is gone or disabled, or whose row is gone (ended
// from another session, by a password change or reset, or expired), is
// logged out.
func (a *App) LoadUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := a.sessions.GetInt64(r.Context(), sessionUserID)
		if id == 0 {
			next.ServeHTTP(w, r)
			return
		}
		u, err := a.store.SessionUser(r.Context(), id, a.sessions.GetInt64(r.Context(), sessionRowID),
			a.clientAddrText(r))
		switch {
		case errors.Is(err, accounting.ErrNotFound), errors.Is(err, accounting.ErrDisabled):
			a.forgetUser(r)
		case err != nil:
			a.serveError(w, r, err)
			return
		default:
			r = r.WithContext(context.WithValue(r.Context(), userKey{}, &u))
		}
		next.ServeHTTP(w, r)
	})
}

// RequireUser sends visitors who are not logged in to the log-in page.
func (a *App) RequireUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if currentUser(r) == nil {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// RequireAdmin lets only administrators through.
func (a *App) RequireAdmin(next http.Handler) http.Handler {
	return a.RequireUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !currentUser(r).IsAdmin {
			a.serveError(w, r, errForbidden)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

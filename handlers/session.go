package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/cobble-am/cobble/accounting"
)

// Session keys: the logged-in volunteer's id, and the generation of the
// account's sessions it was started in (accounting.Store.SessionUser);
// when the password or a code was last entered (Unix seconds, see
// RecentAuth); and a log-in waiting for its second factor (the account's
// id and until when, Unix seconds), which is not a logged-in volunteer.
const (
	sessionUserID       = "user_id"
	sessionGen          = "session_gen"
	sessionAuthAt       = "auth_at"
	sessionPendingUser  = "pending_user_id"
	sessionPendingUntil = "pending_until"
)

type userKey struct{}

// currentUser returns the volunteer LoadUser found, or nil.
func currentUser(r *http.Request) *accounting.User {
	u, _ := r.Context().Value(userKey{}).(*accounting.User)
	return u
}

// LoadUser puts the logged-in volunteer, if any, in the request's context.
// A session whose user is gone or disabled, or that a password reset
// ended, is logged out.
func (a *App) LoadUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := a.sessions.GetInt64(r.Context(), sessionUserID)
		if id == 0 {
			next.ServeHTTP(w, r)
			return
		}
		u, gen, err := a.store.SessionUser(r.Context(), id)
		switch {
		case errors.Is(err, accounting.ErrNotFound), errors.Is(err, accounting.ErrDisabled),
			err == nil && gen != a.sessions.GetInt64(r.Context(), sessionGen):
			a.sessions.Remove(r.Context(), sessionUserID)
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

// RequireAdmin lets only administrators through; when the configuration
// requires two factors of admins, an admin without them is sent to enrol.
func (a *App) RequireAdmin(next http.Handler) http.Handler {
	return a.RequireUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !currentUser(r).IsAdmin {
			a.serveError(w, r, errForbidden)
			return
		}
		if a.cfg.AdminTwoFactor {
			on, err := a.store.TwoFactorOn(r.Context(), currentUser(r).ID)
			if err != nil {
				a.serveError(w, r, err)
				return
			}
			if !on {
				http.Redirect(w, r, "/settings/two-factor?for=admin", http.StatusSeeOther)
				return
			}
		}
		next.ServeHTTP(w, r)
	}))
}

// renewSession starts the session anew (a new token) as userID, in the
// account's current generation of sessions: after a log-in, and after a
// change that ended the account's other sessions.
func (a *App) renewSession(ctx context.Context, userID int64) error {
	_, gen, err := a.store.SessionUser(ctx, userID)
	if err != nil {
		return err
	}
	if err := a.sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.sessions.Remove(ctx, sessionPendingUser)
	a.sessions.Remove(ctx, sessionPendingUntil)
	a.sessions.Put(ctx, sessionUserID, userID)
	a.sessions.Put(ctx, sessionGen, gen)
	return nil
}

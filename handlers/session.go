package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/cobble-am/cobble/accounting"
)

// Session keys: the logged-in volunteer's id, and the id of the session's
// row in user_sessions (accounting.AccessStore.StartSession); when the password
// or a code was last entered (Unix seconds, see RecentAuth); and a log-in
// waiting for its second factor (the account's id and until when, Unix
// seconds), which is not a logged-in volunteer.
const (
	sessionUserID       = "user_id"
	sessionRowID        = "session_id"
	sessionAuthAt       = "auth_at"
	sessionPendingUser  = "pending_user_id"
	sessionPendingUntil = "pending_until"
	// sessionNotice holds what the next page confirms (noticeLoggedOut).
	sessionNotice = "notice"
	// sessionRecoveryLeft is how many recovery codes a log-in with one
	// left (noticeRecoveryLeft).
	sessionRecoveryLeft = "recovery_left"
	// sessionNewToken and sessionNewTokenName carry an API token just made
	// from its POST to the one page that shows its secret.
	sessionNewToken     = "new_api_token"
	sessionNewTokenName = "new_api_token_name"
)

// The notices a page can confirm after a redirect (sessionNotice).
const (
	noticeLoggedOut = "logged_out"
	// noticeRecoveryLeft: logged in with a recovery code; the dashboard
	// says how many are left.
	noticeRecoveryLeft = "recovery_left"
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
func (a *base) LoadUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := a.sessions.GetInt64(r.Context(), sessionUserID)
		if id == 0 {
			next.ServeHTTP(w, withLang(r, nil))
			return
		}
		u, err := a.access.SessionUser(r.Context(), id, a.sessions.GetInt64(r.Context(), sessionRowID),
			a.clientAddrText(r))
		switch {
		case errors.Is(err, accounting.ErrNotFound), errors.Is(err, accounting.ErrDisabled):
			a.forgetUser(r)
			r = withLang(r, nil)
		case err != nil:
			a.serveError(w, withLang(r, nil), err)
			return
		default:
			r = withLang(r.WithContext(context.WithValue(r.Context(), userKey{}, &u)), &u)
		}
		next.ServeHTTP(w, r)
	})
}

// RequireUser sends visitors who are not logged in to the log-in page.
func (a *base) RequireUser(next http.Handler) http.Handler {
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
func (a *base) RequireAdmin(next http.Handler) http.Handler {
	return a.RequireUser(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !currentUser(r).IsAdmin {
			a.serveError(w, r, errForbidden)
			return
		}
		if a.cfg.AdminTwoFactor {
			on, err := a.access.TwoFactorOn(r.Context(), currentUser(r).ID)
			if err != nil {
				a.serveError(w, r, err)
				return
			}
			if !on {
				http.Redirect(w, r, "/settings/two-factor?for=admin", http.StatusSeeOther)
				return
			}
		}
		next.ServeHTTP(w, inEnglish(r))
	}))
}

// renewSession starts the session anew (a new token) as userID, keeping its
// row in user_sessions: after a log-in (logIn), and after a change that
// ended the account's other sessions.
func (a *base) renewSession(ctx context.Context, userID int64) error {
	if err := a.sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.sessions.Remove(ctx, sessionPendingUser)
	a.sessions.Remove(ctx, sessionPendingUntil)
	a.sessions.Put(ctx, sessionUserID, userID)
	return nil
}

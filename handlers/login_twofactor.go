package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// startPending answers a right password for an account with two factors:
// the session holds a log-in waiting for its second factor, for
// pendingLogin, and no logged-in volunteer.
func (a *Account) startPending(w http.ResponseWriter, r *http.Request, userID int64) error {
	if err := a.endThisSession(r); err != nil {
		return err
	}
	if err := a.sessions.RenewToken(r.Context()); err != nil {
		return err
	}
	a.sessions.Put(r.Context(), sessionPendingUser, userID)
	a.sessions.Put(r.Context(), sessionPendingUntil, a.now().Add(pendingLogin).Unix())
	http.Redirect(w, r, "/login/two-factor", http.StatusSeeOther)
	return nil
}

// pendingUser returns the account whose log-in waits for its second
// factor, or nil when none waits (or it expired, or the account is gone or
// disabled).
func (a *Account) pendingUser(r *http.Request) (*accounting.User, error) {
	id := a.sessions.GetInt64(r.Context(), sessionPendingUser)
	until := a.sessions.GetInt64(r.Context(), sessionPendingUntil)
	if id == 0 || a.now().After(time.Unix(until, 0)) {
		return nil, nil
	}
	u, err := a.accounts.User(r.Context(), id)
	if errors.Is(err, accounting.ErrNotFound) || errors.Is(err, accounting.ErrDisabled) {
		return nil, nil
	}
	return &u, err
}

// LoginTwoFactorForm asks for the second factor of a log-in under way.
func (a *Account) LoginTwoFactorForm(w http.ResponseWriter, r *http.Request) error {
	u, err := a.pendingUser(r)
	if err != nil || u == nil {
		return a.restartLogin(w, r, err)
	}
	a.render(w, r, http.StatusOK, views.LoginTwoFactorPage(a.page(r, tr(r, "two_factor.title")), views.LoginTwoFactorForm{}))
	return nil
}

// restartLogin sends a visitor with no log-in waiting back to log in.
func (a *Account) restartLogin(w http.ResponseWriter, r *http.Request, err error) error {
	if err != nil {
		return err
	}
	a.forgetUser(r)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}

// LoginTwoFactor completes a log-in with a code (field "code") or a
// recovery code (field "recovery_code"). Wrong codes count towards the
// limits on wrong passwords.
func (a *Account) LoginTwoFactor(w http.ResponseWriter, r *http.Request) error {
	u, err := a.pendingUser(r)
	if err != nil || u == nil {
		return a.restartLogin(w, r, err)
	}
	if err := parseForm(r); err != nil && formErrors(err) == nil {
		return err
	}
	code, recovery := strings.TrimSpace(r.PostFormValue("code")), strings.TrimSpace(r.PostFormValue("recovery_code"))
	f := views.LoginTwoFactorForm{Recovery: code == "" && recovery != ""}
	l := locale.From(r.Context())
	p := a.page(r, l.T("two_factor.title"))
	left := -1 // recovery codes left after this one, if one is used
	refused, err := a.guard.attempt(r.Context(), a.clientAddr(r), u.Email, a.now(), func() error {
		switch {
		case code != "":
			return a.access.CheckCode(r.Context(), u.ID, code, a.now())
		case recovery != "":
			var err error
			left, err = a.access.UseRecoveryCode(r.Context(), u.ID, recovery)
			return err
		}
		return &accounting.ValidationError{Fields: map[string]locale.Msg{"code": locale.M("two_factor.enter_code")}}
	})
	if refused != nil {
		f.Error = refused.why.In(l)
		a.render(w, r, http.StatusTooManyRequests, views.LoginTwoFactorPage(p, f))
		return nil
	}
	if errors.Is(err, accounting.ErrNotFound) { // an operator removed the second factor meanwhile
		return a.restartLogin(w, r, nil)
	}
	if f.Error = codeError(l, err); f.Error == "" && err != nil {
		return err
	}
	if f.Error != "" {
		a.render(w, r, http.StatusUnprocessableEntity, views.LoginTwoFactorPage(p, f))
		return nil
	}
	if left >= 0 { // the dashboard says how many are left
		a.sessions.Put(r.Context(), sessionNotice, noticeRecoveryLeft)
		a.sessions.Put(r.Context(), sessionRecoveryLeft, left)
	}
	return a.startSession(w, r, u.ID)
}

// codeMsg is the message for a wrong or used code, or none for any other
// error.
func codeMsg(err error) locale.Msg {
	switch {
	case errors.Is(err, accounting.ErrBadCode):
		return locale.M("two_factor.bad_code")
	case errors.Is(err, accounting.ErrCodeUsed):
		return locale.M("two_factor.code_used")
	}
	return locale.Msg{}
}

// codeError is the message for a refused code, or "" for any other error.
func codeError(l *locale.Lang, err error) string {
	if m := codeMsg(err); !m.IsZero() {
		return m.In(l)
	}
	if fields := formErrors(err); fields != nil {
		return fieldMessages(l, fields)
	}
	return ""
}

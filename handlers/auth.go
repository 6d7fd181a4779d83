package handlers

import (
	"errors"
	"net/http"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// LoginForm shows the log-in page (after a password reset, with a word
// that the new password is set).
func (a *Account) LoginForm(w http.ResponseWriter, r *http.Request) error {
	l := locale.From(r.Context())
	var f views.LoginForm
	if r.URL.Query().Get("reset") == "done" {
		f.Notice = l.T("login.reset_done")
	}
	a.render(w, r, http.StatusOK, views.LoginPage(a.page(r, l.T("login.title")), f))
	return nil
}

// Login checks the credentials and starts a session.
func (a *Account) Login(w http.ResponseWriter, r *http.Request) error {
	l := locale.From(r.Context())
	if err := parseForm(r); formErrors(err) != nil {
		form := views.LoginForm{Error: loginFieldError(l, formErrors(err))}
		a.render(w, r, http.StatusUnprocessableEntity, views.LoginPage(a.page(r, l.T("login.title")), form))
		return nil
	} else if err != nil {
		return err
	}
	email, password := r.PostFormValue("email"), r.PostFormValue("password")
	var u accounting.User
	refused, err := a.guard.attempt(r.Context(), a.clientAddr(r), email, a.now(), func() (err error) {
		u, err = a.accounts.Login(r.Context(), email, password)
		return err
	})
	if refused != nil {
		form := views.LoginForm{Email: email, Error: refused.why.In(l)}
		a.render(w, r, http.StatusTooManyRequests, views.LoginPage(a.page(r, l.T("login.title")), form))
		return nil
	}
	if errors.Is(err, accounting.ErrUnknownAccount) || errors.Is(err, accounting.ErrBadPassword) {
		form := views.LoginForm{Email: email, Error: l.T("login.no_match")}
		a.render(w, r, http.StatusUnprocessableEntity, views.LoginPage(a.page(r, l.T("login.title")), form))
		return nil
	}
	if errors.Is(err, accounting.ErrDisabled) {
		form := views.LoginForm{Email: email, Error: l.T("login.disabled")}
		a.render(w, r, http.StatusForbidden, views.LoginPage(a.page(r, l.T("login.title")), form))
		return nil
	}
	if err != nil {
		return err
	}
	twoFactor, err := a.access.TwoFactorOn(r.Context(), u.ID)
	if err != nil {
		return err
	}
	if twoFactor {
		return a.startPending(w, r, u.ID)
	}
	return a.startSession(w, r, u.ID)
}

// loginFieldError is the log-in page's one message for a field that is
// not text.
func loginFieldError(l *locale.Lang, fields map[string]locale.Msg) string {
	if msg, ok := fields["email"]; ok {
		return l.T("login.field_email", "Message", msg.In(l))
	}
	if msg, ok := fields["password"]; ok {
		return l.T("login.field_password", "Message", msg.In(l))
	}
	return fieldMessages(l, fields)
}

// Logout ends the session.
func (a *Account) Logout(w http.ResponseWriter, r *http.Request) error {
	if err := a.endThisSession(r); err != nil {
		return err
	}
	if err := a.sessions.RenewToken(r.Context()); err != nil {
		return err
	}
	a.sessions.Put(r.Context(), sessionNotice, noticeLoggedOut)
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// SignupForm shows the sign-up page.
func (a *Account) SignupForm(w http.ResponseWriter, r *http.Request) error {
	a.render(w, r, http.StatusOK, views.SignupPage(a.page(r, tr(r, "signup.title")), views.SignupForm{}))
	return nil
}

// Signup asks for an account (RequestSignUp). Whether or not the address
// has one, the answer is the same, a 303 to /signup/sent with nobody
// logged in: the new address gets the link that makes the account, a taken
// one's owner a note.
func (a *Account) Signup(w http.ResponseWriter, r *http.Request) error {
	l := locale.From(r.Context())
	err := parseForm(r)
	if err != nil && formErrors(err) == nil {
		return err
	}
	nu := accounting.NewUser{Email: r.PostFormValue("email"), Name: r.PostFormValue("name"),
		Password: r.PostFormValue("password")}
	form := views.SignupForm{Email: nu.Email, Name: nu.Name}
	addr := a.clientAddr(r)
	allowed := true
	if err == nil {
		var gerr error
		if allowed, gerr = a.guard.signupAllowed(r.Context(), addr, a.now()); gerr != nil {
			return gerr
		}
	}
	if !allowed {
		form.Errors = views.Fields{"email": locale.M("signup.too_many")}
		a.render(w, r, http.StatusTooManyRequests, views.SignupPage(a.page(r, l.T("signup.title")), form))
		return nil
	}
	if err == nil {
		err = a.accounts.RequestSignUp(r.Context(), nu)
	}
	if err == nil {
		if gerr := a.guard.signedUp(r.Context(), addr, a.now()); gerr != nil {
			a.log.WarnContext(r.Context(), "counting a sign-up failed", "err", gerr)
		}
	}
	if fields := formErrors(err); fields != nil {
		form.Email, form.Name, form.Errors = textOnly(form.Email), textOnly(form.Name), fields
		a.render(w, r, http.StatusUnprocessableEntity, views.SignupPage(a.page(r, l.T("signup.title")), form))
		return nil
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/signup/sent", http.StatusSeeOther)
	return nil
}

// startSession logs userID in, the password or code just entered.
func (a *Account) startSession(w http.ResponseWriter, r *http.Request, userID int64) error {
	if err := a.logIn(r, userID); err != nil {
		return err
	}
	a.markAuthenticated(r)
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

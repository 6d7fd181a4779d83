package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// ForgotForm asks for the address to mail a password reset link to.
func (a *Account) ForgotForm(w http.ResponseWriter, r *http.Request) error {
	a.render(w, r, http.StatusOK, views.ForgotPage(a.page(r, tr(r, "password.forgot_title")), views.ForgotForm{}))
	return nil
}

// Forgot mails a reset link when an account has the address. The answer,
// and the work behind it, are the same whether one has or not.
func (a *Account) Forgot(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r)
	if err != nil && formErrors(err) == nil {
		return err
	}
	email := r.PostFormValue("email")
	form := views.ForgotForm{Email: textOnly(email)}
	allowed := true
	if err == nil {
		var gerr error
		if allowed, gerr = a.guard.mailAllowed(r.Context(), a.clientAddr(r), a.now()); gerr != nil {
			return gerr
		}
	}
	if !allowed {
		form.Errors = views.Fields{"email": locale.M("password.too_many")}
		a.render(w, r, http.StatusTooManyRequests, views.ForgotPage(a.page(r, tr(r, "password.forgot_title")), form))
		return nil
	}
	if err == nil {
		err = a.accounts.RequestPasswordReset(r.Context(), email)
	}
	if fields := formErrors(err); fields != nil {
		form.Errors = fields
		a.render(w, r, http.StatusUnprocessableEntity, views.ForgotPage(a.page(r, tr(r, "password.forgot_title")), form))
		return nil
	}
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ForgotPage(a.page(r, tr(r, "password.forgot_title")), views.ForgotForm{Sent: true}))
	return nil
}

// ResetForm asks for a new password, when the link still works.
func (a *Account) ResetForm(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	if err := a.accounts.CheckPasswordReset(r.Context(), token); err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ResetPage(a.page(r, tr(r, "password.reset_title")), token, nil))
	return nil
}

// Reset sets the new password; the volunteer then logs in with it. Every
// session of the account has ended, this browser's too.
func (a *Account) Reset(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	err := parseForm(r)
	if err == nil {
		err = a.accounts.ResetPassword(r.Context(), token, r.PostFormValue("password"))
	}
	if fields := formErrors(err); fields != nil {
		a.render(w, r, http.StatusUnprocessableEntity, views.ResetPage(a.page(r, tr(r, "password.reset_title")), token, fields))
		return nil
	}
	if err != nil {
		return err
	}
	if err := a.sessions.RenewToken(r.Context()); err != nil {
		return err
	}
	a.forgetUser(r)
	http.Redirect(w, r, "/login?reset=done", http.StatusSeeOther)
	return nil
}

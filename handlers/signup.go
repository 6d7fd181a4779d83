package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// SignupSent is the page every sign-up leads to: check your email.
func (a *Account) SignupSent(w http.ResponseWriter, r *http.Request) error {
	a.render(w, r, http.StatusOK, views.SignupSentPage(a.page(r, tr(r, "signup.sent_title"))))
	return nil
}

// SignupFinishForm is the page a sign-up's link opens: it asks for the
// password chosen at sign-up. A link that does not work is 410.
func (a *Account) SignupFinishForm(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	su, err := a.accounts.CheckSignUp(r.Context(), token)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.SignupFinishPage(a.page(r, tr(r, "signup.finish_title")), token, su.Email, nil))
	return nil
}

// SignupFinish makes the account with the password chosen at sign-up,
// logs the volunteer in and opens their dashboard. A wrong password
// re-shows the page with 422.
func (a *Account) SignupFinish(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	err := parseForm(r)
	if err == nil {
		var u accounting.User
		u, err = a.accounts.FinishSignUp(r.Context(), token, r.PostFormValue("password"))
		if err == nil {
			return a.startSession(w, r, u.ID)
		}
	}
	if fields := formErrors(err); fields != nil {
		su, err := a.accounts.CheckSignUp(r.Context(), token)
		if err != nil {
			return err
		}
		a.render(w, r, http.StatusUnprocessableEntity,
			views.SignupFinishPage(a.page(r, tr(r, "signup.finish_title")), token, su.Email, fields))
		return nil
	}
	return err
}

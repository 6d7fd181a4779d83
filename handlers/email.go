package handlers

import (
	"errors"
	"net/http"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// ConfirmEmailForm shows the button that follows a confirmation link,
// when the link still works.
func (a *Account) ConfirmEmailForm(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	if err := a.accounts.CheckConfirmLink(r.Context(), token); err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ConfirmEmailPage(a.page(r, tr(r, "email_pages.confirm_title")), token))
	return nil
}

// ConfirmEmail follows a confirmation link: the address is confirmed, or
// an email change takes effect.
func (a *Account) ConfirmEmail(w http.ResponseWriter, r *http.Request) error {
	l := locale.From(r.Context())
	c, err := a.accounts.ConfirmEmail(r.Context(), r.PathValue("token"))
	if errors.Is(err, accounting.ErrConflict) {
		a.render(w, r, http.StatusConflict, views.ErrorPage(a.page(r, l.T("email_pages.taken_title")), http.StatusConflict,
			l.T("email_pages.taken")))
		return nil
	}
	if err != nil {
		return err
	}
	if u := currentUser(r); u != nil && u.ID == c.UserID && c.Changed {
		u.Email = c.Email // the page's header shows the new address
	}
	a.render(w, r, http.StatusOK, views.ConfirmedPage(a.page(r, l.T("email_pages.thanks_title")), c))
	return nil
}

// ResendConfirmation mails the volunteer a new confirmation link.
func (a *Account) ResendConfirmation(w http.ResponseWriter, r *http.Request) error {
	err := a.accounts.SendConfirmation(r.Context(), currentUser(r).ID)
	if errors.Is(err, accounting.ErrConflict) { // confirmed meanwhile
		err = nil
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/settings?saved=confirmation", http.StatusSeeOther)
	return nil
}

// Unsubscribe turns off the alert of an unsubscribe link, without logging
// in: from the page's button, or posted by a mail program (RFC 8058).
func (a *Account) Unsubscribe(w http.ResponseWriter, r *http.Request) error {
	return a.unsubscribe(w, r, true)
}

// UnsubscribeForm shows the button that turns an alert off.
func (a *Account) UnsubscribeForm(w http.ResponseWriter, r *http.Request) error {
	return a.unsubscribe(w, r, false)
}

// unsubscribe checks an unsubscribe link, uses it when apply is set, and
// says so.
func (a *Account) unsubscribe(w http.ResponseWriter, r *http.Request, apply bool) error {
	token := r.PathValue("token")
	alert, err := a.mail.Unsubscribe(r.Context(), token, apply)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.UnsubscribePage(a.page(r, tr(r, "email_pages.stop_title")), token, alert, apply))
	return nil
}

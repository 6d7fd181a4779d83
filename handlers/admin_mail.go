package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// DevMailbox reports whether this instance serves the development mailbox.
func (a *Admin) DevMailbox() bool { return a.cfg.DevMailbox }

// AdminMail lists the outbox for admins (GET /admin/mail?status=…): its
// counts by status and the newest messages, never their links.
func (a *Admin) AdminMail(w http.ResponseWriter, r *http.Request) error {
	d := views.AdminMailPage{Status: mailStatus(r.URL.Query().Get("status")), Mode: a.cfg.Mail}
	var err error
	if d.Queue, err = a.mail.MailQueueState(r.Context()); err != nil {
		return err
	}
	if d.Mails, err = a.mail.MailList(r.Context(), accounting.MailFilter{Status: d.Status}); err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.AdminMail(a.page(r, "Mail"), d))
	return nil
}

// mailStatus reads the mail page's filter: one status, or "" for all.
func mailStatus(s string) accounting.MailStatus {
	st := accounting.MailStatus(s)
	if slices.Contains([]accounting.MailStatus{accounting.MailQueued, accounting.MailSent, accounting.MailFailed}, st) {
		return st
	}
	return ""
}

// AdminSendReset mails a volunteer a password reset link on an admin's
// request (POST /admin/users/{id}/password-reset), then shows the
// volunteer's page again. A disabled account gets no link: its page says
// so, with 422.
func (a *Admin) AdminSendReset(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	err = a.accounts.AdminSendPasswordReset(r.Context(), actor(r), id)
	if errors.Is(err, accounting.ErrDisabled) {
		return a.adminUserPage(w, r, id, http.StatusUnprocessableEntity,
			views.AdminUserMail{Problem: "This account is disabled; enable it first."})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/users/"+strconv.FormatInt(id, 10)+"?sent=reset", http.StatusSeeOther)
	return nil
}

// DevMail is the development mailbox (GET /dev/mail, 'cobble dev' only):
// the messages delivered to it, newest first, with their links.
func (a *Admin) DevMail(w http.ResponseWriter, r *http.Request) error {
	if !a.cfg.DevMailbox {
		return accounting.ErrNotFound
	}
	ms, err := a.mail.MailList(r.Context(), accounting.MailFilter{Transport: "mailbox", Limit: 50})
	if err != nil {
		return err
	}
	q, err := a.mail.MailQueueState(r.Context())
	if err != nil {
		return err
	}
	d := views.NewDevMailPage(views.MailSite{Name: a.cfg.Name, BaseURL: a.cfg.BaseURL}, ms, q.Queued)
	a.render(w, r, http.StatusOK, views.DevMail(a.page(r, "Development mailbox"), d))
	return nil
}

package handlers

import (
	"net/http"
	"strconv"

	"github.com/cobble-am/cobble/views"
)

// Overview is the admin home: the system at a glance.
func (a *Admin) Overview(w http.ResponseWriter, r *http.Request) error {
	sys, err := a.admin.Overview(r.Context(), a.now())
	if err != nil {
		return err
	}
	recon, err := a.reconciler.States(r.Context())
	if err != nil {
		return err
	}
	mail, err := a.mail.MailQueueState(r.Context())
	if err != nil {
		return err
	}
	jobs, err := a.jobs.JobHealth(r.Context(), a.now(), a.cfg.JobTimeouts)
	if err != nil {
		return err
	}
	d := views.OverviewPage{System: sys, Recon: recon, Mail: mail, MailMode: a.cfg.Mail, Version: a.cfg.Version,
		Replica: a.instance.ReplicaStatus(), Jobs: jobs}
	if a.cfg.Primary != nil {
		d.Primary = a.cfg.Primary()
	}
	a.render(w, r, http.StatusOK, views.Overview(a.page(r, "Overview"), d))
	return nil
}

// Lookup finds volunteers and hosts.
func (a *Admin) Lookup(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query().Get("q")
	res, err := a.admin.Lookup(r.Context(), q)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.Lookup(a.page(r, "Find"), q, res))
	return nil
}

// AdminUser shows one volunteer to admins.
func (a *Admin) AdminUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	sent := r.URL.Query().Get("sent") == "reset"
	return a.adminUserPage(w, r, id, http.StatusOK, views.AdminUserMail{ResetSent: sent, NoSMTP: sent && a.cfg.Mail == ""})
}

// adminUserPage renders volunteer id's page for admins with status, and
// with what m says about email, completed with the address's state.
func (a *Admin) adminUserPage(w http.ResponseWriter, r *http.Request, id int64, status int, m views.AdminUserMail) error {
	d, err := a.admin.UserForAdmin(r.Context(), id)
	if err != nil {
		return err
	}
	ms, err := a.mail.MailState(r.Context(), id)
	if err != nil {
		return err
	}
	m.Confirmed = ms.Confirmed
	a.render(w, r, status, views.AdminUser(a.page(r, d.Email), d, m))
	return nil
}

// DisableUser disables an account (POST …/disable); EnableUser enables it.
// Disabling one's own account, or the last enabled admin, is refused on the
// volunteer's page with 422 and the reason.
func (a *Admin) DisableUser(w http.ResponseWriter, r *http.Request) error {
	return a.setDisabled(w, r, true)
}

// EnableUser enables a disabled account again.
func (a *Admin) EnableUser(w http.ResponseWriter, r *http.Request) error {
	return a.setDisabled(w, r, false)
}

func (a *Admin) setDisabled(w http.ResponseWriter, r *http.Request, disable bool) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	err = a.admin.SetUserDisabled(r.Context(), actor(r), id, disable)
	if fields := formErrors(err); fields != nil {
		return a.adminUserPage(w, r, id, http.StatusUnprocessableEntity, views.AdminUserMail{Problem: fields["account"].String()})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/users/"+strconv.FormatInt(id, 10), http.StatusSeeOther)
	return nil
}

package handlers

import (
	"errors"
	"net/http"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/views"
)

// reportsShown is how many open and how many closed reports the admin's
// queue lists.
const reportsShown = 50

// AdminReports lists the volunteers' reports about a day (GET
// /admin/reports): the open ones first, each with its day's evidence.
func (a *Admin) AdminReports(w http.ResponseWriter, r *http.Request) error {
	return a.adminReportsPage(w, r, http.StatusOK, 0, nil)
}

// adminReportsPage renders the queue; failed and errs are the report
// whose answer was refused and the form's messages.
func (a *Admin) adminReportsPage(w http.ResponseWriter, r *http.Request, status int, failed int64, errs views.Fields) error {
	reports, err := a.reports.Queue(r.Context(), reportsShown)
	if err != nil {
		return err
	}
	d := views.AdminReportsPage{Failed: failed, Errors: errs, Saved: r.URL.Query().Get("saved") == "1"}
	for _, rep := range reports {
		ev, err := a.ledger.DayEvidence(r.Context(), rep.UserID, rep.HostID, rep.Day, rep.UserTimeZone)
		if err != nil && !errors.Is(err, accounting.ErrNotFound) {
			return err
		}
		d.Items = append(d.Items, views.AdminReport{Report: rep, Evidence: ev})
	}
	a.render(w, r, status, views.AdminReports(a.page(r, "Reports"), d))
	return nil
}

// AnswerReport stores an admin's answer to a report (POST
// /admin/reports/{id}, fields answer and close: present closes it). A bad
// answer re-shows the queue with 422; no such report is not found.
func (a *Admin) AnswerReport(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if err := parseForm(r, "answer"); err != nil && formErrors(err) == nil {
		return err
	}
	_, close := r.PostForm["close"]
	err = a.reports.AnswerReport(r.Context(), actor(r), id, r.PostForm.Get("answer"), close, a.now())
	if fields := formErrors(err); fields != nil {
		return a.adminReportsPage(w, r, http.StatusUnprocessableEntity, id, views.Fields(fields))
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/reports?saved=1", http.StatusSeeOther)
	return nil
}

package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// ComputerDay shows where one day's numbers of one of the volunteer's
// computers came from (GET /computers/{id}/days/{day}, day YYYY-MM-DD).
// Another volunteer's computer, or a day that is not one, is not found.
func (a *Volunteer) ComputerDay(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	day, err := time.Parse(time.DateOnly, r.PathValue("day"))
	if err != nil {
		return accounting.ErrNotFound
	}
	d, err := a.computerDayPage(r, id, day)
	if err != nil {
		return err
	}
	d.Sent = r.URL.Query().Get("sent") == "1"
	a.render(w, r, http.StatusOK, views.ComputerDay(a.volunteerPage(r, d.Computer.Label(), "computers"), d))
	return nil
}

// OpenDay answers the computer page's "open a day" form (GET
// /computers/{id}/days?day=YYYY-MM-DD) with a redirect to that day's page;
// a day that is not one is not found.
func (a *Volunteer) OpenDay(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	day, err := time.Parse(time.DateOnly, r.URL.Query().Get("day"))
	if err != nil {
		return accounting.ErrNotFound
	}
	http.Redirect(w, r, "/computers/"+strconv.FormatInt(id, 10)+"/days/"+day.Format(time.DateOnly), http.StatusSeeOther)
	return nil
}

// computerDayPage loads a day of one of the volunteer's computers.
func (a *Volunteer) computerDayPage(r *http.Request, id int64, day time.Time) (views.ComputerDayPage, error) {
	ctx, u := r.Context(), currentUser(r)
	var d views.ComputerDayPage
	var err error
	d.Today = a.ledger.Today(a.now(), u.TimeZone)
	if d.Computer, err = a.computers.Computer(ctx, u.ID, id, d.Today); err != nil {
		return d, err
	}
	if d.Evidence, err = a.ledger.DayEvidence(ctx, u.ID, id, day, u.TimeZone); err != nil {
		return d, err
	}
	if d.Projects, err = a.computers.ComputerProjects(ctx, u.ID, id); err != nil {
		return d, err
	}
	reports, err := a.reports.ComputerReports(ctx, u.ID, id)
	for _, rep := range reports {
		if rep.Day.Equal(day) {
			d.Reports = append(d.Reports, rep)
		}
	}
	return d, err
}

// SendReport sends the volunteer's report that something is wrong with a
// day (POST /computers/{id}/reports, fields day, project, text and
// mail_answer). A bad field, or a form too large, re-shows the day with
// 422 and the field's message; too many reports a minute is 429; another
// volunteer's computer is not found.
func (a *Volunteer) SendReport(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	u := currentUser(r)
	nr, err := reportForm(r)
	if err == nil {
		_, err = a.reports.SendReport(r.Context(), u.ID, id, nr, a.ledger.Today(a.now(), u.TimeZone), a.now())
	}
	var invalid *accounting.ValidationError
	if !errors.As(err, &invalid) {
		if err != nil {
			return err
		}
		http.Redirect(w, r, "/computers/"+strconv.FormatInt(id, 10)+"/days/"+nr.Day+"?sent=1#report", http.StatusSeeOther)
		return nil
	}
	day, derr := time.Parse(time.DateOnly, nr.Day)
	if derr != nil {
		day = a.ledger.Today(a.now(), u.TimeZone)
	}
	d, err := a.computerDayPage(r, id, day)
	if err != nil {
		return err
	}
	d.Errors, d.Text, d.Project = views.Fields(invalid.Fields), textOnly(nr.Text), nr.ProjectID
	a.render(w, r, http.StatusUnprocessableEntity, views.ComputerDay(a.volunteerPage(r, d.Computer.Label(), "computers"), d))
	return nil
}

// reportForm reads the report form. A form over the size limit is a
// report too long.
func reportForm(r *http.Request) (accounting.NewDayReport, error) {
	err := parseForm(r, "text")
	if errors.Is(err, errFormTooLarge) {
		return accounting.NewDayReport{}, &accounting.ValidationError{Fields: map[string]locale.Msg{
			"text": locale.M("reports.text_long", "Max", accounting.MaxReportText)}}
	}
	nr := accounting.NewDayReport{Day: r.PostForm.Get("day"), Text: r.PostForm.Get("text"),
		MailAnswer: r.PostForm.Get("mail_answer") == "on"}
	nr.ProjectID, _ = strconv.ParseInt(r.PostForm.Get("project"), 10, 64)
	if err != nil {
		return nr, err
	}
	return nr, nil
}

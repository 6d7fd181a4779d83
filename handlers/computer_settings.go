package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// computerSaved confirm a change on a computer's page (?saved=KEY).
var computerSaved = map[string]locale.Msg{
	"location": locale.M("computer.saved_location"),
	"projects": locale.M("computer.saved_projects"),
	"name":     locale.M("computer.saved_name"),
	"pause":    locale.M("pause.saved"),
}

// computerPage loads what a computer's page shows; another volunteer's
// computer is accounting.ErrNotFound.
func (a *Volunteer) computerPage(r *http.Request, id int64) (views.ComputerPage, error) {
	ctx, u := r.Context(), currentUser(r)
	today := a.ledger.Today(a.now(), u.TimeZone)
	d := views.ComputerPage{Now: a.now(), Today: today, Disconnected: r.URL.Query().Get("disconnected") == "1",
		Saved: computerSaved[r.URL.Query().Get("saved")].In(locale.From(ctx))}
	var err error
	if d.Computer, err = a.computers.Computer(ctx, u.ID, id, today); err != nil {
		return d, err
	}
	if d.Settings, err = a.computers.ComputerSettings(ctx, u.ID, id); err != nil {
		return d, err
	}
	if d.Projects, err = a.computers.ComputerProjects(ctx, u.ID, id); err != nil {
		return d, err
	}
	if d.Catalog, err = a.catalog.Projects(ctx); err != nil {
		return d, err
	}
	d.Catalog = slices.DeleteFunc(d.Catalog, func(p accounting.Project) bool { return !p.Choosable() })
	if d.VolunteerChoice, err = a.volunteerChoices(r); err != nil {
		return d, err
	}
	if d.Events, err = a.computers.ComputerEvents(ctx, u.ID, id, eventsShown); err != nil {
		return d, err
	}
	if d.Failures, err = a.computers.Failures(ctx, u.ID, id); err != nil {
		return d, err
	}
	if d.Reports, err = a.reports.ComputerReports(ctx, u.ID, id); err != nil {
		return d, err
	}
	d.History, err = a.history(r, u, id, today, "/computers/"+strconv.FormatInt(id, 10))
	d.History.DayPath = "/computers/" + strconv.FormatInt(id, 10) + "/days/"
	return d, err
}

// volunteerChoices are the volunteer's choices for all their computers.
func (a *Volunteer) volunteerChoices(r *http.Request) (map[int64]accounting.ProjectChoice, error) {
	prefs, err := a.computers.Preferences(r.Context(), currentUser(r).ID)
	return prefs.Projects, err
}

// saveComputer ends a POST to one of a computer's forms: a validation
// error re-shows the page with 422 and the message on the form; another
// volunteer's computer is not found; success redirects (303) to the page.
func (a *Volunteer) saveComputer(w http.ResponseWriter, r *http.Request, form string, save func(id int64) error) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	err = save(id)
	var invalid *accounting.ValidationError
	if !errors.As(err, &invalid) {
		if err != nil {
			return err
		}
		http.Redirect(w, r, "/computers/"+strconv.FormatInt(id, 10)+"?saved="+form, http.StatusSeeOther)
		return nil
	}
	d, err := a.computerPage(r, id)
	if err != nil {
		return err
	}
	d.Form, d.Errors = form, views.Fields(invalid.Fields)
	if form == "name" {
		d.NewName = r.PostForm.Get("name")
	}
	a.render(w, r, http.StatusUnprocessableEntity, views.Computer(a.volunteerPage(r, d.Computer.Label(), "computers"), d))
	return nil
}

// textField reads one posted text field; a field that is not text is a
// *accounting.ValidationError under field.
func textField(r *http.Request, name string) (string, error) {
	if err := parseForm(r); err != nil {
		if formErrors(err) == nil {
			return "", err
		}
		return "", &accounting.ValidationError{Fields: map[string]locale.Msg{name: locale.M("computer.enter_text")}}
	}
	return r.PostForm.Get(name), nil
}

// ComputerLocation moves the computer to one of the volunteer's locations
// (POST /computers/{id}/location, field "location": a location's name,
// or Default).
func (a *Volunteer) ComputerLocation(w http.ResponseWriter, r *http.Request) error {
	return a.saveComputer(w, r, "location", func(id int64) error {
		loc, err := textField(r, "location")
		if err != nil {
			return err
		}
		return a.computers.SetComputerLocation(r.Context(), currentUser(r).ID, id, loc)
	})
}

// ComputerName sets the computer's nickname (POST /computers/{id}/name,
// field "name"; empty clears it).
func (a *Volunteer) ComputerName(w http.ResponseWriter, r *http.Request) error {
	return a.saveComputer(w, r, "name", func(id int64) error {
		name, err := textField(r, "name")
		if err != nil {
			return err
		}
		return a.computers.SetComputerName(r.Context(), currentUser(r).ID, id, name)
	})
}

// ComputerProjectChoices saves the computer's own project choices (POST
// /computers/{id}/projects, fields "project-ID" = follow | always |
// never; projects left out follow the volunteer's settings).
func (a *Volunteer) ComputerProjectChoices(w http.ResponseWriter, r *http.Request) error {
	return a.saveComputer(w, r, "projects", func(id int64) error {
		if _, err := textField(r, "project"); err != nil {
			return err
		}
		choices, bad := formChoices[int64, string](r, "project-", func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) })
		if bad {
			return &accounting.ValidationError{Fields: map[string]locale.Msg{"project": locale.M("computer.choose_listed")}}
		}
		return a.computers.SetComputerChoices(r.Context(), currentUser(r).ID, id, choices)
	})
}

package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/views"
)

// eventsShown is how many of a computer's latest events its page lists.
const eventsShown = 50

// Computers lists the volunteer's computers.
func (a *Volunteer) Computers(w http.ResponseWriter, r *http.Request) error {
	d, err := a.computersPage(r)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.Computers(a.volunteerPage(r, tr(r, "computers.title"), "computers"), d))
	return nil
}

// computersPage loads the list of the volunteer's computers.
func (a *Volunteer) computersPage(r *http.Request) (views.ComputersPage, error) {
	u := currentUser(r)
	today := a.ledger.Today(a.now(), u.TimeZone)
	cs, err := a.computers.Computers(r.Context(), u.ID, today)
	d := views.ComputersPage{Computers: cs, Now: a.now(), Today: today,
		Connect: views.Connect{AMURL: a.cfg.BaseURL, Email: u.Email}}
	if r.URL.Query().Get("saved") == "pause" {
		d.Saved = tr(r, "pause.saved_all")
	}
	return d, err
}

// Computer shows one of the volunteer's computers, its control panel;
// another's is not found.
func (a *Volunteer) Computer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	d, err := a.computerPage(r, id)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.Computer(a.volunteerPage(r, d.Computer.Label(), "computers"), d))
	return nil
}

// Disconnect revokes one of the volunteer's computers' authenticator once
// the form says confirm=yes; without it, it asks first. Another
// volunteer's computer is not found.
func (a *Volunteer) Disconnect(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if r.PostFormValue("confirm") != "yes" {
		u := currentUser(r)
		c, err := a.computers.Computer(r.Context(), u.ID, id, a.ledger.Today(a.now(), u.TimeZone))
		if err != nil {
			return err
		}
		a.render(w, r, http.StatusOK, views.DisconnectConfirm(a.volunteerPage(r, tr(r, "computer.disconnect_heading"), "computers"), c))
		return nil
	}
	if err := a.computers.Disconnect(r.Context(), currentUser(r).ID, id); err != nil {
		return err
	}
	http.Redirect(w, r, "/computers/"+r.PathValue("id")+"?disconnected=1", http.StatusSeeOther)
	return nil
}

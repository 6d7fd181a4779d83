package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/views"
)

// SettingsLocation adds a location, or renames one (POST
// /settings/locations, fields "name" and, to rename, "rename_from").
func (a *Settings) SettingsLocation(w http.ResponseWriter, r *http.Request) error {
	name, err := textField(r, "name")
	from := r.PostForm.Get("rename_from")
	if err == nil {
		err = a.computers.SaveLocation(r.Context(), currentUser(r).ID, name, from)
	}
	form := "location-add"
	if from != "" {
		form = "location-rename"
	}
	s := views.SettingsPage{Locations: views.LocationsForm{Typed: name, RenameFrom: from}}
	return a.settingsResult(w, r, err, form, s, nil)
}

// SettingsLocationDelete deletes a location; its computers move to Default
// (POST /settings/locations/delete, field "name").
func (a *Settings) SettingsLocationDelete(w http.ResponseWriter, r *http.Request) error {
	name, err := textField(r, "name")
	if err == nil {
		err = a.computers.DeleteLocation(r.Context(), currentUser(r).ID, name)
	}
	s := views.SettingsPage{Locations: views.LocationsForm{RenameFrom: name}}
	return a.settingsResult(w, r, err, "location-delete", s, nil)
}

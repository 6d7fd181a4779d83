package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// savedMessages confirm a change after the redirect (?saved=KEY).
var savedMessages = map[string]locale.Msg{
	"password":        locale.M("settings.saved_password"),
	"email":           locale.M("settings.saved_email"),
	"confirmation":    locale.M("settings.saved_confirmation"),
	"alerts":          locale.M("alerts.saved"),
	"time_zone":       locale.M("settings.saved_time_zone"),
	"language":        locale.M("settings.saved_language"),
	"science":         locale.M("science.saved"),
	"projects":        locale.M("settings.saved_projects"),
	"compute":         locale.M("compute.saved"),
	"location-add":    locale.M("locations.saved_add"),
	"location-rename": locale.M("locations.saved_rename"),
	"location-delete": locale.M("locations.saved_delete"),
}

// savedMessage is the confirmation of key in the reader's language, or ""
// when key names no change.
func savedMessage(r *http.Request, key string) string {
	m, ok := savedMessages[key]
	if !ok {
		return ""
	}
	return m.In(locale.From(r.Context()))
}

// Settings shows the volunteer's settings.
func (a *Settings) Settings(w http.ResponseWriter, r *http.Request) error {
	return a.renderSettings(w, r, http.StatusOK, views.SettingsPage{Saved: savedMessage(r, r.URL.Query().Get("saved"))})
}

// renderSettings fills the page's account data and renders it.
func (a *Settings) renderSettings(w http.ResponseWriter, r *http.Request, status int, s views.SettingsPage) error {
	u := currentUser(r)
	token, err := a.accounts.FeedToken(r.Context(), u.ID)
	if err != nil {
		return err
	}
	s.Email, s.TimeZone, s.TimeZones, s.FeedURL = u.Email, u.TimeZone, views.TimeZones, a.feedURL(token)
	if s.Form != "language" {
		s.Language = u.Language
	}
	if s.Mail, err = a.mail.MailState(r.Context(), u.ID); err != nil {
		return err
	}
	if s.Public, err = a.public.PublicProfile(r.Context(), u.ID); err != nil {
		return err
	}
	if s.Team, err = myTeam(r.Context(), a.teams, u.ID); err != nil {
		return err
	}
	if s.Form == "alerts" {
		s.Mail.Alerts = s.NewAlerts
	}
	if strings.HasPrefix(s.Form, "location-") {
		s.Locations.Form, s.Locations.Errors = s.Form, s.Errors
	}
	if s.Prefs.Keywords == nil { // the form and the locations, read once
		if s.Prefs, s.Locations.Locations, err = a.prefsForm(r); err != nil {
			return err
		}
	} else if s.Locations.Locations, err = a.computers.Locations(r.Context(), u.ID); err != nil {
		return err
	}
	a.render(w, r, status, views.Settings(a.volunteerPage(r, tr(r, "settings.title"), "settings"), s))
	return nil
}

// settingsResult ends a settings POST: a validation error re-shows the page
// with 422 and the messages on form's fields (renamed by rename); success
// redirects with a confirmation.
func (a *Settings) settingsResult(w http.ResponseWriter, r *http.Request, err error, form string,
	s views.SettingsPage, rename map[string]string) error {
	status, err := refusedAsField(err)
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		s.Form, s.Errors = form, views.Fields{}
		for k, msg := range invalid.Fields {
			if to, ok := rename[k]; ok {
				k = to
			}
			s.Errors[k] = msg
		}
		return a.renderSettings(w, r, status, s)
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/settings?saved="+form, http.StatusSeeOther)
	return nil
}

// SetPassword changes the volunteer's password, ends their other web
// sessions and renews this one.
func (a *Settings) SetPassword(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r) // a field that is not text is the field's error
	if err == nil {
		err = a.guessing(r, "current_password", func() error {
			return a.accounts.ChangePassword(r.Context(), currentUser(r).ID, a.sessions.GetInt64(r.Context(), sessionRowID),
				r.PostFormValue("current_password"), r.PostFormValue("password"))
		})
	}
	if err == nil {
		err = a.renewSession(r.Context(), currentUser(r).ID)
	}
	return a.settingsResult(w, r, err, "password", views.SettingsPage{}, nil)
}

// SetEmail asks to change the volunteer's email, the password confirming
// it: a link goes to the new address, and the change takes effect when it
// is followed.
func (a *Settings) SetEmail(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r)
	email := r.PostFormValue("email")
	if err == nil {
		err = a.guessing(r, "password", func() error {
			return a.accounts.RequestEmailChange(r.Context(), currentUser(r).ID, r.PostFormValue("email_password"), email)
		})
	}
	return a.settingsResult(w, r, err, "email", views.SettingsPage{NewEmail: textOnly(email)},
		map[string]string{"password": "email_password"})
}

// SetAlerts saves the email alerts the volunteer chooses.
func (a *Settings) SetAlerts(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r)
	var alerts accounting.Alerts
	if err == nil {
		alerts, err = alertsFromForm(r)
	}
	if err == nil {
		err = a.mail.SetAlerts(r.Context(), currentUser(r).ID, alerts)
	}
	return a.settingsResult(w, r, err, "alerts", views.SettingsPage{NewAlerts: alerts}, nil)
}

// alertsFromForm reads the alerts form: the silence alert's days count
// only when its box is ticked; alert_failing turns the failing alert on
// when present.
func alertsFromForm(r *http.Request) (accounting.Alerts, error) {
	_, failing := r.PostForm["alert_failing"]
	a := accounting.Alerts{Weekly: r.PostFormValue("weekly") == "on", Failing: failing}
	if r.PostFormValue("silence") != "on" {
		return a, nil
	}
	days, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("silence_days")))
	if err != nil || days < 1 || days > 60 {
		a.SilenceDays = accounting.DefaultSilenceDays
		return a, &accounting.ValidationError{Fields: map[string]locale.Msg{"silence_days": locale.M("alerts.silence_days_range")}}
	}
	a.SilenceDays = days
	return a, nil
}

// SetTimeZone sets the time zone of the volunteer's days from now on.
func (a *Settings) SetTimeZone(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r)
	zone := r.PostFormValue("time_zone")
	if err == nil {
		err = a.accounts.SetTimeZone(r.Context(), currentUser(r).ID, zone)
	}
	return a.settingsResult(w, r, err, "time_zone", views.SettingsPage{NewZone: textOnly(zone)}, nil)
}

// SetUserLanguage sets the language the volunteer reads Cobble in (POST
// /settings/language, field "language": a catalog's code, or "" to follow
// the browser). The next page is in it.
func (a *Settings) SetUserLanguage(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r)
	code := r.PostFormValue("language")
	if err == nil {
		err = a.accounts.SetLanguage(r.Context(), currentUser(r).ID, code)
	}
	if err == nil {
		a.keepLanguage(w, code)
	}
	return a.settingsResult(w, r, err, "language", views.SettingsPage{Language: textOnly(code)}, nil)
}

// DeleteAccount asks for confirmation (a POST without confirm=yes), then
// with the password deletes the account and ends the session.
func (a *Settings) DeleteAccount(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r)
	if err != nil && formErrors(err) == nil {
		return err
	}
	p := a.volunteerPage(r, tr(r, "settings.delete"), "settings")
	if err == nil && r.PostFormValue("confirm") != "yes" {
		a.render(w, r, http.StatusOK, views.DeleteConfirmPage(p, nil))
		return nil
	}
	if err == nil {
		err = a.guessing(r, "password", func() error {
			return a.accounts.DeleteUser(r.Context(), currentUser(r).ID, r.PostFormValue("password"))
		})
	}
	status, err := refusedAsField(err)
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		a.render(w, r, status, views.DeleteConfirmPage(p, invalid.Fields))
		return nil
	}
	if err != nil {
		return err
	}
	if err := a.sessions.Destroy(r.Context()); err != nil {
		return err
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

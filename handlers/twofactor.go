package handlers

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image/png"
	"net/http"
	"time"

	"github.com/pquerna/otp"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// Session keys of an enrolment under way: the new secret and its URI, kept
// until a first code confirms them.
const (
	sessionEnrolSecret = "enrol_secret"
	sessionEnrolURI    = "enrol_uri"
)

// pendingLogin is how long a log-in may wait for its second factor.
const pendingLogin = 5 * time.Minute

// TwoFactorSettings shows two-factor sign-in: enrolment when it is off
// (the key stays in the session until a code confirms it, so a reload
// shows the same one), turning it off when it is on.
func (a *Account) TwoFactorSettings(w http.ResponseWriter, r *http.Request) error {
	d := views.TwoFactorPage{ForAdmin: r.URL.Query().Get("for") == "admin"}
	if r.URL.Query().Get("off") == "1" {
		d.Notice = tr(r, "two_factor.off_done")
	}
	return a.renderTwoFactor(w, r, http.StatusOK, d)
}

// renderTwoFactor fills in the state and the key to enrol and renders the
// two-factor page.
func (a *Account) renderTwoFactor(w http.ResponseWriter, r *http.Request, status int, d views.TwoFactorPage) error {
	u := currentUser(r)
	on, err := a.access.TwoFactorOn(r.Context(), u.ID)
	if err != nil {
		return err
	}
	d.On, d.Stale = on, !a.fresh(r)
	if !on {
		if d.Secret, d.URI, d.QR, err = a.enrolKey(r, u); err != nil {
			return err
		}
	}
	w.Header().Set("Cache-Control", "no-store") // the page shows the secret
	a.render(w, r, status, views.TwoFactor(a.volunteerPage(r, tr(r, "two_factor.title"), "settings"), d))
	return nil
}

// enrolKey returns the session's key to enrol, making one when there is
// none, with its URI and QR code as a PNG data: URI.
func (a *Account) enrolKey(r *http.Request, u *accounting.User) (secret, uri, qr string, err error) {
	secret, uri = a.sessions.GetString(r.Context(), sessionEnrolSecret), a.sessions.GetString(r.Context(), sessionEnrolURI)
	if !accounting.ValidSecret(secret) || uri == "" {
		k, err := accounting.NewTwoFactorKey(a.cfg.Name, u.Email)
		if err != nil {
			return "", "", "", err
		}
		secret, uri = k.Secret, k.URI
		a.sessions.Put(r.Context(), sessionEnrolSecret, secret)
		a.sessions.Put(r.Context(), sessionEnrolURI, uri)
	}
	key, err := otp.NewKeyFromURL(uri)
	if err != nil {
		return "", "", "", err
	}
	img, err := key.Image(200, 200)
	if err != nil {
		return "", "", "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", "", "", err
	}
	return secret, uri, "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// TwoFactorEnable turns two-factor sign-in on with the session's key once
// a code (field "code") confirms it, ends the account's other sessions,
// and shows the recovery codes, once.
func (a *Account) TwoFactorEnable(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r)
	u := currentUser(r)
	secret := a.sessions.GetString(r.Context(), sessionEnrolSecret)
	if err == nil && secret == "" { // no key shown in this session yet
		http.Redirect(w, r, "/settings/two-factor", http.StatusSeeOther)
		return nil
	}
	var codes []string
	if err == nil {
		codes, err = a.access.EnableTwoFactor(r.Context(), u.ID, a.sessions.GetInt64(r.Context(), sessionRowID), secret, r.PostFormValue("code"), a.now())
	}
	switch {
	case formErrors(err) != nil:
		return a.renderTwoFactor(w, r, http.StatusUnprocessableEntity, views.TwoFactorPage{Errors: formErrors(err)})
	case errors.Is(err, accounting.ErrConflict): // on already, from another page
		http.Redirect(w, r, "/settings/two-factor", http.StatusSeeOther)
		return nil
	case err != nil:
		return err
	}
	a.sessions.Remove(r.Context(), sessionEnrolSecret)
	a.sessions.Remove(r.Context(), sessionEnrolURI)
	if err := a.renewSession(r.Context(), u.ID); err != nil {
		return err
	}
	a.markAuthenticated(r)
	w.Header().Set("Cache-Control", "no-store")
	a.render(w, r, http.StatusOK, views.RecoveryCodes(a.volunteerPage(r, tr(r, "two_factor.codes_page"), "settings"), codes))
	return nil
}

// TwoFactorDisable turns two-factor sign-in off, with the password (field
// "password") and a code or a recovery code (field "code"). Wrong ones
// count towards the limits on wrong passwords.
func (a *Account) TwoFactorDisable(w http.ResponseWriter, r *http.Request) error {
	err := parseForm(r)
	u := currentUser(r)
	if err == nil {
		var refused *refusal
		refused, err = a.guard.attempt(r.Context(), a.clientAddr(r), u.Email, a.now(), func() error {
			return a.access.DisableTwoFactor(r.Context(), u.ID, r.PostFormValue("password"), r.PostFormValue("code"), a.now())
		})
		if refused != nil {
			err = &accounting.ValidationError{Fields: map[string]locale.Msg{"password": refused.why}}
		}
	}
	if errors.Is(err, accounting.ErrBadCode) || errors.Is(err, accounting.ErrCodeUsed) {
		err = &accounting.ValidationError{Fields: map[string]locale.Msg{"code": codeMsg(err)}}
	}
	if fields := formErrors(err); fields != nil {
		return a.renderTwoFactor(w, r, http.StatusUnprocessableEntity, views.TwoFactorPage{Errors: fields})
	}
	if err != nil {
		return err
	}
	a.markAuthenticated(r)
	http.Redirect(w, r, "/settings/two-factor?off=1", http.StatusSeeOther)
	return nil
}

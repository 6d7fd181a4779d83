package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// RecentAuth is how long after the password or a code was last entered a
// session may make sensitive changes (email, password, two factors,
// deleting the account; an admin's changes of a project's keys, disabling
// accounts, imports) without entering one again.
const RecentAuth = 10 * time.Minute

// markAuthenticated records in the session that the password or a code
// was entered now.
func (a *base) markAuthenticated(r *http.Request) {
	a.sessions.Put(r.Context(), sessionAuthAt, a.now().Unix())
}

// fresh reports whether the session's password or code was entered within
// RecentAuth.
func (a *base) fresh(r *http.Request) bool {
	at := a.sessions.GetInt64(r.Context(), sessionAuthAt)
	return at > 0 && a.now().Sub(time.Unix(at, 0)) <= RecentAuth
}

// RequireRecentAuth lets a sensitive POST through when the session is
// fresh. Otherwise it answers the confirmation page, which carries the
// fields sent and posts them back to the same address with the password
// (field reauth_password) or a code (reauth_code): once that is right, the
// request goes through as first sent. A refused request changes nothing.
func (a *base) RequireRecentAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, err := a.recentAuth(w, r)
		if err != nil {
			a.serveError(w, r, err)
			return
		}
		if ok {
			next.ServeHTTP(w, r)
		}
	})
}

// recentAuth reports whether r may go on; when it may not, it has
// answered with the confirmation page.
func (a *base) recentAuth(w http.ResponseWriter, r *http.Request) (bool, error) {
	if a.fresh(r) {
		return true, nil
	}
	u := currentUser(r)
	twoFactor, err := a.access.TwoFactorOn(r.Context(), u.ID)
	if err != nil {
		return false, err
	}
	password, code := r.FormValue("reauth_password"), r.FormValue("reauth_code") // parses the form, multipart too
	f := views.ReauthForm{Action: r.URL.Path, TwoFactor: twoFactor}
	f.Fields, f.Files = carried(r)
	status := http.StatusForbidden
	if password != "" || code != "" {
		status, f.Error, err = a.confirm(r, u, password, code)
		if err != nil {
			return false, err
		}
		if f.Error == "" {
			a.markAuthenticated(r)
			return true, nil
		}
	}
	w.Header().Set("Cache-Control", "no-store") // the page carries what was typed
	a.render(w, r, status, views.ReauthPage(a.page(r, tr(r, "reauth.title")), f))
	return false, nil
}

// confirm checks a password or code entered again, within the limits on
// wrong passwords, and returns the status and message of a refusal ("" when
// it is right).
func (a *base) confirm(r *http.Request, u *accounting.User, password, code string) (int, string, error) {
	l := locale.From(r.Context())
	refused, err := a.guard.attempt(r.Context(), a.clientAddr(r), u.Email, a.now(), func() error {
		if password != "" {
			return a.access.ConfirmPassword(r.Context(), u.ID, password)
		}
		return a.access.CheckCode(r.Context(), u.ID, code, a.now())
	})
	if refused != nil {
		return http.StatusTooManyRequests, refused.why.In(l), nil
	}
	switch {
	case err == nil:
		return 0, "", nil
	case errors.Is(err, accounting.ErrBadPassword), errors.Is(err, accounting.ErrBadCode):
		if code != "" {
			return http.StatusUnprocessableEntity, l.T("reauth.wrong_code"), nil
		}
		return http.StatusUnprocessableEntity, l.T("reauth.wrong"), nil
	case errors.Is(err, accounting.ErrCodeUsed):
		return http.StatusUnprocessableEntity, codeError(l, err), nil
	case formErrors(err) != nil, errors.Is(err, accounting.ErrNotFound):
		return http.StatusUnprocessableEntity, l.T("reauth.enter"), nil
	}
	return 0, "", err
}

// carried returns the posted fields to carry through the confirmation
// page (never the confirmation's own), and the names of file fields, which
// a page cannot carry.
func carried(r *http.Request) ([]views.Carried, []string) {
	values, files := r.PostForm, []string(nil)
	if r.MultipartForm != nil {
		values = r.MultipartForm.Value
		for name := range r.MultipartForm.File {
			files = append(files, name)
		}
	}
	var fields []views.Carried
	for name, vs := range values {
		if strings.HasPrefix(name, "reauth_") || !checkText(name, false).IsZero() {
			continue
		}
		for _, v := range vs {
			fields = append(fields, views.Carried{Name: name, Value: v})
		}
	}
	slices.SortStableFunc(fields, func(a, b views.Carried) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(files)
	return fields, files
}

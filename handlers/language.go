package handlers

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// langCookie keeps the language a visitor chose with the switcher.
const langCookie = "lang"

// readerLang is the language a request is answered in: the volunteer's
// own choice, else the switcher's cookie, else the browser's
// Accept-Language, else English.
func readerLang(r *http.Request, u *accounting.User) *locale.Lang {
	c := locale.Default()
	if u != nil && u.Language != "" {
		if l := c.Get(u.Language); l != nil {
			return l
		}
	}
	if ck, err := r.Cookie(langCookie); err == nil {
		if l := c.Get(ck.Value); l != nil {
			return l
		}
	}
	return c.Match(r.Header.Get("Accept-Language"))
}

// withLang puts the language of r (and of u, the volunteer logged in, or
// nil) in its context, for the pages and messages rendered for it.
func withLang(r *http.Request, u *accounting.User) *http.Request {
	return r.WithContext(locale.With(r.Context(), readerLang(r, u)))
}

// userLang is the language of what Cobble writes to a volunteer outside a
// page (the notices feed, RPC messages): their choice, or English. (Mail
// picks its language where it is queued: accounting.queueMail.)
func userLang(u accounting.User) *locale.Lang {
	return locale.Default().Lookup(u.Language)
}

// inEnglish puts English in the request's context: the admin pages are in
// English.
func inEnglish(r *http.Request) *http.Request {
	return r.WithContext(locale.With(r.Context(), locale.English()))
}

// SetLanguage is the language switcher (POST /language, field lang, and
// next, the page to go back to): it keeps the choice in a cookie for a
// year and, for a volunteer logged in, in their account.
func (a *Account) SetLanguage(w http.ResponseWriter, r *http.Request) error {
	if err := parseForm(r); err != nil {
		return err
	}
	l := locale.Default().Get(r.PostForm.Get("lang"))
	if l == nil {
		return &accounting.ValidationError{Fields: map[string]locale.Msg{"lang": locale.M("language.unknown")}}
	}
	if u := currentUser(r); u != nil {
		if err := a.accounts.SetLanguage(r.Context(), u.ID, l.Code); err != nil {
			return err
		}
	}
	a.keepLanguage(w, l.Code)
	http.Redirect(w, r, localPath(r.PostForm.Get("next")), http.StatusSeeOther)
	return nil
}

// keepLanguage keeps the language chosen (a catalog's code) in the
// browser's cookie for a year, like the session cookie; "" forgets it, so
// that the browser's own language counts again.
func (a *base) keepLanguage(w http.ResponseWriter, code string) {
	c := &http.Cookie{Name: langCookie, Value: code, Path: "/", MaxAge: int(365 * 24 * time.Hour / time.Second),
		HttpOnly: true, Secure: a.sessions.Cookie.Secure, SameSite: a.sessions.Cookie.SameSite}
	if code == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// localPath returns p when it is a path on this site, else "/": no scheme
// or host, no "//" or backslash that a browser would read as another
// host, no control character that a browser would drop.
func localPath(p string) string {
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") ||
		strings.ContainsFunc(p, func(r rune) bool { return r == '\\' || r < 0x20 || r == 0x7f }) {
		return "/"
	}
	return p
}

// VisitorLang puts the visitor's language (the switcher's cookie, else the
// browser's) in the context of requests that load no session: the
// unsubscribe pages and the page for an unknown path.
func (a *base) VisitorLang(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, withLang(r, nil))
	})
}

// tr writes catalog message id in the language of r (locale.Lang.T).
func tr(r *http.Request, id string, pairs ...any) string {
	return locale.From(r.Context()).T(id, pairs...)
}

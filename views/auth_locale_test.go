package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// renderIn renders c with l in the context.
func renderIn(t *testing.T, l *locale.Lang, c templ.Component) string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(locale.With(context.Background(), l), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The frame, the log-in and two-factor pages, the sessions page and the
// field errors speak the reader's language; English stays as it was.
func TestAuthPagesInGerman(t *testing.T) {
	de, en := locale.Default().Get("de"), locale.Default().Get("en")
	p := Page{Title: "x", SiteName: "Cobble"}
	u := &accounting.User{ID: 1, Email: "v@example.org"}
	at := time.Date(2026, time.November, 25, 14, 5, 0, 0, time.UTC)
	sessions := SessionsPage{Current: 1, Sessions: []accounting.WebSession{
		{ID: 1, StartedAt: at, LastSeenAt: at},
		{ID: 2, UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", StartedAt: at, LastSeenAt: at}}}
	signup := SignupForm{Errors: Fields{"password": locale.M("errors.field.password_too_short")}}
	for _, c := range []struct {
		name string
		page templ.Component
		de   []string
		en   []string
	}{
		{"welcome", Welcome(p, nil), []string{`lang="de"`, "Zum Inhalt springen", "Registrieren", "So funktioniert es",
			"Kontoverwaltung benutzen", "ist ein BOINC-Kontoverwalter"},
			[]string{"Skip to content", "How it works", "Cobble is a BOINC account manager"}},
		{"login", LoginPage(p, LoginForm{}), []string{"Passwort vergessen?", "Noch kein Konto?"},
			[]string{"Forgot your password?", "No account yet?"}},
		{"signup", SignupPage(p, signup), []string{"Konto anlegen", "Verwende mindestens 8 Zeichen."},
			[]string{"Create account", "Use at least 8 characters."}},
		{"nav", Layout(Page{SiteName: "Cobble", User: u, Nav: "settings"}), []string{">Übersicht<", ">Einstellungen<", "Abmelden"},
			[]string{">Dashboard<", ">Settings<", "Log out"}},
		{"sessions", Sessions(p, sessions), []string{"Unbekannter Browser unter einem unbekannten System", "Firefox 128 unter Linux",
			"diese Sitzung", "25. Nov. 2026, 14:05 UTC", "Alle anderen Sitzungen abmelden"},
			[]string{"Unknown browser on Unknown system", "Firefox 128 on Linux", "25 Nov 2026, 14:05 UTC"}},
		{"reauth", ReauthPage(p, ReauthForm{TwoFactor: true}), []string{"Bestätige, dass du es bist", "Authenticator-App"},
			[]string{"Enter it (or a code from your authenticator app) and your change"}},
		{"unsubscribe", UnsubscribePage(p, "t", accounting.AlertWeekly, true), []string{"keine Wochenübersichten mehr"},
			[]string{"Done: Cobble sends you no more weekly summaries."}},
	} {
		for _, l := range []struct {
			lang *locale.Lang
			want []string
		}{{de, c.de}, {en, c.en}} {
			got := renderIn(t, l.lang, c.page)
			if strings.Contains(got, "⟦") {
				t.Errorf("%s in %s: a message is missing:\n%s", c.name, l.lang.Code, got)
			}
			for _, w := range l.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s in %s: no %q in\n%s", c.name, l.lang.Code, w, got)
				}
			}
		}
	}
}

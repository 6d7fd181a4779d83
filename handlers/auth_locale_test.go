package handlers

import (
	"errors"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// The error pages and the guard's refusals are in the reader's language;
// the refusal's English words stay for the AM RPC.
func TestErrorsAndRefusalsInGerman(t *testing.T) {
	de := locale.Default().Get("de")
	if _, title, msg := errorPage(de, accounting.ErrNotFound); title != "Nicht gefunden" || msg != "Unter dieser Adresse gibt es nichts." {
		t.Errorf("not found in German: %q, %q", title, msg)
	}
	if _, title, _ := errorPage(de, errors.New("a bug")); title != "Etwas ist schiefgegangen" {
		t.Errorf("a bug in German: %q", title)
	}
	for _, c := range []struct {
		r      *refusal
		en, de string
	}{
		{refuse(locale.M("login.too_many_from_address", "Count", 1)),
			"Too many wrong passwords from your address. Wait a minute, then try again.",
			"Zu viele falsche Passwörter von deiner Adresse. Warte eine Minute und versuch es dann noch einmal."},
		{refuse(locale.M("login.too_many_for_account", "Count", 12)),
			"Too many wrong passwords for this account. Wait 12 minutes, then try again.",
			"Zu viele falsche Passwörter für dieses Konto. Warte 12 Minuten und versuch es dann noch einmal."},
	} {
		if got := c.r.why.String(); got != c.en {
			t.Errorf("English refusal %q, want %q", got, c.en)
		}
		if got := c.r.why.In(de); got != c.de {
			t.Errorf("German refusal %q, want %q", got, c.de)
		}
	}
}

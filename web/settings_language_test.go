package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A volunteer's language, chosen on /settings, is kept in their account:
// the next page is in it, and an unknown code changes nothing.
func TestSettingsLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	vol := e.user("vol@example.org", "long-enough")
	c := e.session(t, "vol@example.org", "long-enough")
	base := e.http.URL
	user := func() string {
		t.Helper()
		u, err := e.store.Accounts.User(context.Background(), vol.ID)
		if err != nil {
			t.Fatal(err)
		}
		return u.Language
	}

	if _, page, _ := do(t, c, "GET", base+"/settings", nil, nil); !strings.Contains(page, "<h1>Settings</h1>") ||
		!strings.Contains(page, `<option value="" selected>As my browser says</option>`) ||
		!strings.Contains(page, `<option value="de" lang="de">Deutsch</option>`) {
		t.Fatalf("settings page without the language form, or not in English:\n%s", page)
	}

	status, page, _ := do(t, c, "POST", base+"/settings/language", url.Values{"language": {"xx"}}, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, `id="language-error"`) ||
		!strings.Contains(page, "Choose one of the languages listed.") {
		t.Errorf("unknown language: status %d, want 422 with the field's error", status)
	}
	if got := user(); got != "" {
		t.Errorf("an unknown code changed the language to %q", got)
	}

	status, _, h := do(t, c, "POST", base+"/settings/language", url.Values{"language": {"de"}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/settings?saved=language" {
		t.Fatalf("language=de: status %d location %q, want 303 to /settings", status, h.Get("Location"))
	}
	if got := user(); got != "de" {
		t.Errorf("language is %q, want de", got)
	}
	_, page, _ = do(t, c, "GET", base+"/settings?saved=language", nil, nil)
	for _, want := range []string{"<h1>Einstellungen</h1>", "Deine Sprache ist festgelegt.", "Wissenschaft und Rechnen",
		"Passwort ändern", `<option value="de" lang="de" selected>Deutsch</option>`, "Wie im Browser eingestellt"} {
		if !strings.Contains(page, want) {
			t.Errorf("settings page after choosing German lacks %q", want)
		}
	}
	if _, page, _ = do(t, c, "GET", base+"/settings/science", nil, nil); !strings.Contains(page, "Proteinforschung") ||
		strings.Contains(page, "Protein research") {
		t.Error("the science page does not name the areas in German")
	}

	// Following the browser again.
	if status, _, _ := do(t, c, "POST", base+"/settings/language", url.Values{"language": {""}}, nil); status != http.StatusSeeOther {
		t.Fatalf("language='': status %d", status)
	}
	if _, page, _ = do(t, c, "GET", base+"/settings", nil, nil); user() != "" || !strings.Contains(page, "<h1>Settings</h1>") {
		t.Error("choosing the browser's language did not go back to English")
	}
}

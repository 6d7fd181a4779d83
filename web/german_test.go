package web_test

import (
	"bufio"
	"context"
	"html"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// germanPages are the pages TestGermanPages reads besides the visitor's
// and volunteer's pages of axePages, with the forms some of them answer.
var germanPages = []struct {
	as, method, path string
	form             url.Values
}{
	{"visitor", "POST", "/login", url.Values{"email": {"ada@example.org"}, "password": {"wrong"}}},
	{"visitor", "POST", "/signup", url.Values{"email": {"not an address"}, "password": {"short"}}},
	{"visitor", "GET", "/signup/sent", nil},
	{"visitor", "POST", "/password/forgot", url.Values{"email": {"nobody@example.org"}}},
	{"volunteer", "POST", "/settings/compute", url.Values{"preset": {"custom"}, "max_ncpus_pct": {"500"}}},
	{"volunteer", "POST", "/settings/password", url.Values{"current_password": {"wrong"}, "new_password": {"x"}}},
	{"volunteer", "POST", "/settings/time-zone", url.Values{"time_zone": {"Mars/Olympus"}}},
	{"volunteer", "POST", "/settings/locations", url.Values{"name": {""}}},
	// Computers a volunteer can trust (issue 32).
	{"volunteer", "POST", "/computers/{host}/pause", url.Values{"mode": {"pause"}, "until": {"2001-01-01"}}},
	{"volunteer", "POST", "/computers/pause", url.Values{"mode": {"nap"}}},
	{"volunteer", "POST", "/computers/{host}/reports", url.Values{"day": {""}, "project": {""}, "text": {"<b>"}}},
}

// englishSentences are what no German page may say: the sentences of the
// volunteer pages before they were translated, and every part between
// placeholders, of three words or more, of an English catalog message
// that German says otherwise.
func englishSentences(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/english-sentences.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	for s := bufio.NewScanner(f); s.Scan(); {
		if line := strings.TrimSpace(s.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	en, de := locale.Default().Get("en").Texts(), locale.Default().Get("de").Texts()
	placeholder := regexp.MustCompile(`{{[^}]*}}`)
	for id, text := range en {
		if de[id] == text || strings.HasPrefix(id, "format.") {
			continue
		}
		for _, part := range placeholder.Split(text, -1) {
			if part = strings.TrimSpace(part); len(strings.Fields(part)) >= 3 && !strings.Contains(de[id], part) {
				out = append(out, part)
			}
		}
	}
	return out
}

// Every volunteer page, as a visitor whose browser asks for German and as
// a volunteer who chose German, is in German: it says none of the English
// sentences, misses no message, and names its language.
func TestGermanPages(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	if err := e.store.Accounts.SetLanguage(context.Background(), e.ada.ID, "de"); err != nil {
		t.Fatal(err)
	}
	english := englishSentences(t)
	day := seedTrust(t, e)
	ids := strings.NewReplacer("{host2}", strconv.FormatInt(e.adaHosts[1].ID, 10), "{day}", day,
		"{host}", strconv.FormatInt(e.adaHosts[0].ID, 10))
	german := http.Header{"Accept-Language": {"de-DE,de;q=0.9"}}
	clients := map[string]*http.Client{"visitor": e.browser(), "volunteer": e.adaClient}
	type page struct {
		as, method, path string
		form             url.Values
	}
	var pages []page
	for _, p := range axePages {
		if p.as != "admin" {
			pages = append(pages, page{p.as, "GET", ids.Replace(p.path), nil})
		}
	}
	for _, p := range germanPages {
		p.path, p.form = ids.Replace(p.path), maps.Clone(p.form)
		if p.form.Has("day") { // a report about the seeded day, on the first project
			p.form.Set("day", day)
			p.form.Set("project", strconv.FormatInt(e.projects[0].ID, 10))
		}
		pages = append(pages, page(p))
	}
	for _, p := range pages {
		status, body, _ := do(t, clients[p.as], p.method, e.http.URL+p.path, p.form, german)
		name := p.method + " " + p.path + " as " + p.as
		if status >= 500 || status == http.StatusSeeOther {
			t.Errorf("%s: status %d", name, status)
			continue
		}
		if !strings.Contains(body, `<html lang="de">`) {
			t.Errorf("%s: not marked as German", name)
		}
		text := html.UnescapeString(body)
		if i := strings.Index(text, "⟦"); i >= 0 {
			t.Errorf("%s: a message is missing: %.60s", name, text[i:])
		}
		for _, s := range english {
			if strings.Contains(text, s) {
				t.Errorf("%s says in English: %q", name, s)
			}
		}
	}
}

// A visitor's browser language, the switcher's cookie and a volunteer's
// own choice pick the language, in that order of strength; the admin pages
// stay English and say so.
func TestLanguageChoice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	adaUser := e.user("ada@example.org", "ada-password")
	if _, err := e.store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "admin@example.org", Password: "long-enough", IsAdmin: true}); err != nil {
		t.Fatal(err)
	}
	lang := func(c *http.Client, path string, header http.Header) string {
		t.Helper()
		_, body, _ := do(t, c, "GET", e.http.URL+path, nil, header)
		m := regexp.MustCompile(`<html lang="([^"]*)"`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("GET %s: no <html lang>", path)
		}
		return m[1]
	}
	german, french := http.Header{"Accept-Language": {"de-AT,de;q=0.8"}}, http.Header{"Accept-Language": {"fr-FR"}}

	visitor := e.browser()
	if got := lang(visitor, "/login", german); got != "de" {
		t.Errorf("browser asks for German: page in %q", got)
	}
	if got := lang(visitor, "/login", french); got != "en" {
		t.Errorf("browser asks for French: page in %q, want English", got)
	}
	status, _, h := do(t, visitor, "POST", e.http.URL+"/language", url.Values{"lang": {"de"}, "next": {"/signup"}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/signup" {
		t.Errorf("switcher: %d to %q", status, h.Get("Location"))
	}
	if got := lang(visitor, "/login", french); got != "de" {
		t.Errorf("after switching to German, a French browser gets %q", got)
	}
	// Another site, or what a browser reads as one, is never where the
	// switcher goes; a control character is refused with the form.
	for _, next := range []string{"https://evil.example/", "//evil.example/", "/\\evil.example", "/./\\evil.example", "/\t/evil.example"} {
		status, _, h := do(t, visitor, "POST", e.http.URL+"/language", url.Values{"lang": {"de"}, "next": {next}}, nil)
		if status != http.StatusUnprocessableEntity && h.Get("Location") != "/" {
			t.Errorf("switcher with next %q: %d to %q", next, status, h.Get("Location"))
		}
	}
	if status, _, _ := do(t, visitor, "POST", e.http.URL+"/language", url.Values{"lang": {"xx"}}, nil); status != http.StatusUnprocessableEntity {
		t.Errorf("unknown language: status %d", status)
	}

	ada := e.session(t, "ada@example.org", "ada-password")
	if got := lang(ada, "/settings", german); got != "de" {
		t.Errorf("volunteer without a choice, German browser: %q", got)
	}
	do(t, ada, "POST", e.http.URL+"/language", url.Values{"lang": {"de"}}, nil)
	u, err := e.store.Accounts.User(ctx, adaUser.ID)
	if err != nil || u.Language != "de" {
		t.Fatalf("the switcher did not keep Ada's choice: %q, %v", u.Language, err)
	}
	if got := lang(e.session(t, "ada@example.org", "ada-password"), "/settings", french); got != "de" {
		t.Errorf("a volunteer who chose German, on another browser: %q", got)
	}
	// "As my browser says" forgets the switcher's cookie too.
	if status, _, _ := do(t, ada, "POST", e.http.URL+"/settings/language", url.Values{"language": {""}}, nil); status != http.StatusSeeOther {
		t.Fatalf("settings language \"\": status %d", status)
	}
	if got := lang(ada, "/settings", french); got != "en" {
		t.Errorf("after \"As my browser says\", a French browser that had switched to German gets %q", got)
	}

	admin := e.session(t, "admin@example.org", "long-enough")
	do(t, admin, "POST", e.http.URL+"/language", url.Values{"lang": {"de"}}, nil)
	status, body, _ := do(t, admin, "GET", e.http.URL+"/admin/overview", nil, german)
	if status != http.StatusOK || !strings.Contains(body, `<html lang="en">`) || !strings.Contains(body, "The admin pages are in English") {
		t.Errorf("admin overview for an admin who chose German: %d, not English or not saying so", status)
	}
}

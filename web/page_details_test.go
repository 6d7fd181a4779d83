package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/web"
)

// The computers page's form for all computers asks what all of them should do,
// in either language, not what "this computer" should do (issue 45, item 15).
func TestAllComputersPauseFormSaysAll(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	for _, c := range []struct{ lang, want, never string }{
		{"en", "What should all your computers do?", "this computer"},
		{"de", "Was sollen alle deine Computer tun?", "dieser Computer"},
	} {
		page := adaPage(t, e, c.lang, "/computers")
		form := html.UnescapeString(regexp.MustCompile(`(?s)<form method="post" action="/computers/pause">.*?</form>`).FindString(page))
		if !strings.Contains(form, c.want) || strings.Contains(form, c.never) {
			t.Errorf("%s: the form for all computers does not ask %q: %s", c.lang, c.want, form)
		}
	}
}

// adaPage is Ada's page at path in lang (her language set to it), with its
// entities unescaped; it fails the test unless the page answers 200.
func adaPage(t *testing.T, e *volunteerEnv, lang, path string) string {
	t.Helper()
	if err := e.store.Accounts.SetLanguage(context.Background(), e.ada.ID, lang); err != nil {
		t.Fatal(err)
	}
	status, body, _ := do(t, e.adaClient, "GET", e.http.URL+path, nil, nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s (%s): status %d", path, lang, status)
	}
	return body
}

// Last month's left-overs (issue 45, item 25): a settings section's page
// names its section once; a refused location says "Nothing was saved."
// without a capital after a colon; the second step of a log-in says how
// to reach the operators; a log-in with a recovery code says how many are
// left.
func TestSettingsAndTwoFactorLeftOvers(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, func(c *web.Config) { c.Mail.From = "Cobble <operators@example.org>" })
	e.user("ada@example.org", "long-enough")
	c := e.session(t, "ada@example.org", "long-enough")
	_, page, _ := do(t, c, "GET", e.http.URL+"/settings/compute", nil, nil)
	if n := len(regexp.MustCompile(`<h[12][^>]*>How hard your computers work</h[12]>`).FindAllString(page, -1)); n != 1 {
		t.Errorf("/settings/compute has %d headings \"How hard your computers work\", want 1", n)
	}
	_, page, _ = do(t, c, "POST", e.http.URL+"/settings/locations", url.Values{"name": {strings.Repeat("x", 33)}}, nil)
	if text := html.UnescapeString(page); !strings.Contains(text, "Nothing was saved. ") || strings.Contains(text, "Nothing was saved: ") {
		t.Errorf("a refused location does not say \"Nothing was saved. \":\n%s", page)
	}

	_, codes := enrol(t, c, e.http.URL, clk)
	clk.advance(time.Minute)
	d := e.browser()
	passwordStep(t, e, d)
	_, page, _ = do(t, d, "GET", e.http.URL+"/login/two-factor", nil, nil)
	if !strings.Contains(page, `href="mailto:operators@example.org"`) {
		t.Errorf("the second step gives no way to reach the operators:\n%s", page)
	}
	if status, to, _ := secondStep(t, e, d, url.Values{"recovery_code": {codes[0]}}); status != http.StatusSeeOther || to != "/" {
		t.Fatalf("recovery code: status %d to %q", status, to)
	}
	_, page, _ = do(t, d, "GET", e.http.URL+"/", nil, nil)
	if !strings.Contains(page, "9 are left") {
		t.Errorf("the dashboard after a recovery code does not say 9 are left:\n%s", page)
	}
	if _, page, _ = do(t, d, "GET", e.http.URL+"/", nil, nil); strings.Contains(page, "are left") {
		t.Error("the dashboard says the codes left twice")
	}
}

// German says "Meldungen" only for a volunteer's reports about a day (the
// computer's contacts are "Kontakte"), and "bestätigt" only for credit the
// projects confirmed (a computer's match is "geprüft"): issue 45, item 23.
func TestGermanWordsOneMeaning(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	day := e.store.Ledger.Today(time.Now(), "UTC").AddDate(0, 0, -1).Format(time.DateOnly)
	page := html.UnescapeString(adaPage(t, e, "de", "/computers/"+strconv.FormatInt(e.adaHosts[0].ID, 10)+"/days/"+day))
	if strings.Contains(page, "Meldungen des Computers") || !strings.Contains(page, "Kontakte des Computers") {
		t.Errorf("the German day page calls the computer's contacts Meldungen:\n%s", page)
	}
	_, credit, _ := do(t, e.browser(), "GET", e.http.URL+"/credit", nil, http.Header{"Accept-Language": {"de"}})
	if credit = html.UnescapeString(credit); strings.Contains(credit, "bestätigt wurde") || !strings.Contains(credit, "geprüft wurde") {
		t.Errorf("the German /credit page says bestätigt for verified:\n%s", credit)
	}
}

// A day's page links the day before and, unless the day is today, the day
// after (issue 45, item 21; the stylesheet sets the two apart).
func TestDayPageLinksNoFutureDay(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	today := e.store.Ledger.Today(time.Now(), "UTC")
	base := "/computers/" + strconv.FormatInt(e.adaHosts[0].ID, 10) + "/days/"
	nav := regexp.MustCompile(`(?s)<nav class="day-nav".*?</nav>`)
	page := nav.FindString(adaPage(t, e, "en", base+today.Format(time.DateOnly)))
	if strings.Contains(page, base+today.AddDate(0, 0, 1).Format(time.DateOnly)) || !strings.Contains(page, base+today.AddDate(0, 0, -1).Format(time.DateOnly)) {
		t.Errorf("today's page links tomorrow, or not yesterday: %s", page)
	}
	page = nav.FindString(adaPage(t, e, "en", base+today.AddDate(0, 0, -1).Format(time.DateOnly)))
	if !strings.Contains(page, base+today.Format(time.DateOnly)) {
		t.Errorf("yesterday's page does not link today: %s", page)
	}
}

// A disconnected computer's page shows no pause section (it takes no
// pause) and no failing warning, and the dashboard drops its warning too
// (issue 45, item 24).
func TestDisconnectedComputerWarnsOfNothing(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	h := e.adaHosts[0]
	if _, err := e.pool.Exec(context.Background(), `
		INSERT INTO host_failures (user_id, host_id, project_id, kind, detail, started_at)
		VALUES ($1, $2, $3, 'jobs_failing', '{"failed": 6, "jobs": 7}', now())`, e.ada.ID, h.ID, e.projects[0].ID); err != nil {
		t.Fatal(err)
	}
	path := "/computers/" + strconv.FormatInt(h.ID, 10)
	if page := html.UnescapeString(adaPage(t, e, "en", path)); !strings.Contains(page, "6 of its last 7 tasks") {
		t.Fatalf("the connected computer's page does not warn of its failing tasks:\n%s", page)
	}
	if err := e.store.Computers.Disconnect(context.Background(), e.ada.ID, h.ID); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, "/"} {
		page := html.UnescapeString(adaPage(t, e, "en", p))
		if strings.Contains(page, "6 of its last 7 tasks") {
			t.Errorf("%s still warns of the disconnected computer's failing tasks", p)
		}
		if p == path && strings.Contains(page, `id="pause-h"`) {
			t.Errorf("the disconnected computer's page keeps its pause heading")
		}
	}
}

// With the public profile on, the settings say so (not "off unless you
// turn it on"); the badge's code comes as BBCode too; the profile's areas
// say why they add up to more than the total (issue 45, item 20).
func TestPublicProfileWordsMatchIt(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	if err := e.store.Public.SetPublicProfile(context.Background(), e.ada.ID,
		accounting.PublicProfile{Handle: "ada-l", Public: true, ShowAreas: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ lang, on, off string }{{"en", "on, as “ada-l”", "off unless"}, {"de", "an, als „ada-l“", "aus, bis"}} {
		page := html.UnescapeString(adaPage(t, e, c.lang, "/settings"))
		if line := regexp.MustCompile(`(?s)<p id="public-settings-link">.*?</p>`).FindString(page); !strings.Contains(line, c.on) || strings.Contains(line, c.off) {
			t.Errorf("%s: the settings' public profile line: %s", c.lang, line)
		}
	}
	page := html.UnescapeString(adaPage(t, e, "en", "/settings/public"))
	if want := "[url=http://127.0.0.1:1/v/ada-l][img]http://127.0.0.1:1/v/ada-l/badge.png[/img][/url]"; !strings.Contains(page, want) {
		t.Errorf("/settings/public has no BBCode %s", want)
	}
	_, profile, _ := do(t, e.browser(), "GET", e.http.URL+"/v/ada-l", nil, nil)
	if !strings.Contains(html.UnescapeString(profile), "add up to more than the total") {
		t.Errorf("the profile's areas do not say why they add up to more than the total:\n%s", profile)
	}
}

// Making an API token redirects, and the page shows its secret once: a
// reload neither makes a second token nor shows the secret again.
// Revoking asks first, and the page says that "last used" can lag by a
// minute (issue 45, item 19).
func TestAPITokenShownOnceAfterRedirect(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	status, page, h := do(t, e.adaClient, "POST", e.http.URL+"/settings/api", url.Values{"name": {"laptop"}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/settings/api" || strings.Contains(page, `id="new-token"`) {
		t.Fatalf("POST /settings/api: status %d to %q, want 303 to /settings/api without the secret", status, h.Get("Location"))
	}
	shownToken(t, e.adaClient, e.http.URL)
	page = adaPage(t, e, "en", "/settings/api")
	if strings.Contains(page, `id="new-token"`) || e.countTokens(e.ada.ID) != 1 {
		t.Errorf("a reload shows the secret again, or made another token (%d)", e.countTokens(e.ada.ID))
	}
	if !regexp.MustCompile(`(?s)<details class="revoke"><summary>Revoke</summary><form method="post" action="/settings/api/\d+/revoke"><p>Scripts that use it stop`).MatchString(page) {
		t.Errorf("revoking does not ask first:\n%s", page)
	}
	if !strings.Contains(html.UnescapeString(page), "can lag by up to a minute") {
		t.Errorf("the page does not say that last use can lag")
	}
}

// The API's page shows how to keep the token in COBBLE_TOKEN, a sample
// answer with its fields described, and how to page through a list, in
// either language (issue 45, item 18).
func TestAPIPageShowsAnswerAndPaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct{ lang, field string }{{"en", "The last day whose confirmed credit is known"}, {"de", "Der letzte Tag, bis zu dem bestätigte Credits bekannt sind"}} {
		_, page, _ := do(t, e.browser(), "GET", e.http.URL+"/api", nil, http.Header{"Accept-Language": {c.lang}})
		page = html.UnescapeString(page)
		for _, want := range []string{"export COBBLE_TOKEN=", `"confirmed_through": "2026-12-04"`, c.field,
			"/api/v1/events?cursor=", `"next_cursor"`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: /api does not show %q", c.lang, want)
			}
		}
	}
}

// A certificate names its issuer, says what Cobblestones are, links its
// check address, and in German sets the dates apart from the figure; its
// PDF says the same (issue 45, item 17).
func TestCertificateNamesIssuer(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	today := e.store.Ledger.Today(time.Now(), "UTC")
	cert := e.issue(t, today.AddDate(0, 0, -6).Format(time.DateOnly), today.Format(time.DateOnly))
	for _, c := range []struct{ lang, issuer, unit, sentence string }{
		{"en", "Cobble Test, a BOINC account manager (http://127.0.0.1:1/)", "Cobblestones are BOINC's unit of credit", "Ada Lovelace contributed"},
		{"de", "Cobble Test, ein Kontoverwalter für BOINC (http://127.0.0.1:1/)", "Cobblestones sind BOINCs Einheit", "beigetragen: "},
	} {
		_, page, _ := do(t, e.browser(), "GET", e.http.URL+cert, nil, http.Header{"Accept-Language": {c.lang}})
		page = html.UnescapeString(page)
		for _, want := range []string{c.issuer, c.unit, c.sentence, `<a href="http://127.0.0.1:1` + cert + `" id="verify">`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the certificate's page lacks %q", c.lang, want)
			}
		}
	}
	_, pdf, _ := do(t, e.browser(), "GET", e.http.URL+cert+".pdf", nil, nil)
	text := strings.Join(strings.Fields(pdfText(t, []byte(pdf))), " ")
	for _, want := range []string{"Issued by", "Cobble Test, a BOINC account manager", "Cobblestones are BOINC's unit of credit"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF lacks %q:\n%s", want, text)
		}
	}
}

package web_test

import (
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// In Chromium, a volunteer opens API tokens from the settings, makes a
// token (its secret shown once), revokes one, and reads the API's page, in
// English and in German, at 1280 and 390 pixels, without sideways
// scrolling. The screenshots are api-tokens-en-1280.png, api-docs-de-390.png
// and so on (COBBLE_SCREENSHOT_DIR keeps them).
func TestBrowserAPITokens(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("Chromium")
	}
	e := newVolunteerEnv(t)
	b := browsertest.New(t)
	base := e.http.URL
	b.Open(t, base+"/login")
	b.Fill(t, "#email", "ada@example.org")
	b.Fill(t, "#password", "ada-password")
	b.Click(t, "main form button[type=submit]")
	for _, lang := range []string{"en", "de"} {
		if lang == "de" {
			b.Click(t, `form.languages button[value=de]`)
		}
		for _, w := range []int{1280, 390} {
			b.SetWidth(t, w)
			b.Open(t, base+"/settings")
			b.Click(t, "#api-link a")
			b.Fill(t, "#name", "spreadsheet "+lang+" "+itoa(int64(w)))
			b.Click(t, "main form.card button[type=submit]")
			if secret := b.Text(t, "#new-token"); !accounting.WellFormedAPISecret(secret) {
				t.Fatalf("%s at %d px: the new token reads %q", lang, w, secret)
			}
			apiShot(t, b, "api-tokens-"+lang, w)
			b.Open(t, base+"/api")
			if !strings.Contains(b.Text(t, "#curl-me"), "Authorization: Bearer") {
				t.Errorf("%s at %d px: the API page shows no curl example", lang, w)
			}
			apiShot(t, b, "api-docs-"+lang, w)
		}
	}
	b.Open(t, base+"/settings/api")
	before := b.Count(t, "#tokens > li")
	b.Click(t, "#tokens > li:first-child details summary") // revoking asks first
	b.Click(t, "#tokens > li:first-child form button")
	if b.Count(t, "#tokens > li") != before-1 || b.Count(t, "[role=status]") != 1 || b.Count(t, "#new-token") != 0 {
		t.Errorf("after revoking: %d tokens of %d", b.Count(t, "#tokens > li"), before)
	}
	b.SetWidth(t, 1280)
}

// apiShot saves a screenshot of the page at width w and checks that it
// does not scroll sideways.
func apiShot(t *testing.T, b *browsertest.Browser, name string, w int) {
	t.Helper()
	shot := screenshotPath(t, name+"-"+itoa(int64(w))+".png")
	b.Screenshot(t, shot)
	checkScreenshotWidth(t, shot, w, 600)
	if overflow := b.Eval(t, "document.documentElement.scrollWidth > window.innerWidth"); overflow != "false" {
		t.Errorf("%s at %d px scrolls sideways", name, w)
	}
}

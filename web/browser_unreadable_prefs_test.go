package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/browsertest"
)

// The page for stored preferences that cannot be read, in Chromium at
// desktop and phone widths: it says what happened, breaks none of
// axe-core's rules and does not scroll sideways.
func TestBrowserUnreadablePrefsPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user("ada@example.org", "long-enough")
	e.exec(t, `INSERT INTO compute_prefs (user_id, preset, prefs) VALUES ($1, 'custom', '"not an object"')`, u.ID)
	b := browsertest.New(t)
	b.Open(t, e.http.URL+"/login")
	b.Fill(t, "#email", "ada@example.org")
	b.Fill(t, "#password", "long-enough")
	b.Click(t, "main form button[type=submit]")
	for _, w := range []int{1280, 390} {
		b.SetWidth(t, w)
		b.Open(t, e.http.URL+"/settings/compute")
		if b.Status() != http.StatusInternalServerError || !strings.Contains(b.Text(t, "main"), "could not be read") {
			t.Errorf("at %d px: status %d, %q", w, b.Status(), b.Text(t, "main"))
		}
		for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
			t.Errorf("at %d px: %s (%s): %v", w, v.ID, v.Help, v.Nodes)
		}
		if overflow := b.Eval(t, "document.documentElement.scrollWidth > window.innerWidth"); overflow != "false" {
			t.Errorf("at %d px the page scrolls sideways", w)
		}
		shot := screenshotPath(t, "unreadable-prefs-"+itoa(int64(w))+".png")
		b.Screenshot(t, shot)
		checkScreenshotWidth(t, shot, w, 300)
	}
}

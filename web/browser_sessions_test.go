package web_test

import (
	"bytes"
	"image/png"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/browsertest"
)

// TestBrowserSessions opens the sessions page from the settings in
// Chromium, at desktop and phone widths (screenshots kept), and logs out
// the other session.
func TestBrowserSessions(t *testing.T) {
	t.Parallel()
	e := newProxiedEnv(t)
	e.user("ada@example.org", "long-enough")
	phoneH := as(safariPhone, "2001:db8:1:2::7")
	phone := e.logInAs("ada@example.org", "long-enough", phoneH)
	b := browsertest.New(t)
	base := e.http.URL
	b.Open(t, base+"/login")
	b.Fill(t, "#email", "ada@example.org")
	b.Fill(t, "#password", "long-enough")
	b.Click(t, "main form button[type=submit]")
	b.Open(t, base+"/settings")
	b.Click(t, "#sessions-link a")
	if b.Status() != http.StatusOK || b.Count(t, "#sessions > li") != 2 {
		t.Fatalf("sessions page: status %d, %d sessions", b.Status(), b.Count(t, "#sessions > li"))
	}
	if mine := b.Text(t, "#sessions li:has(#current) h2"); !strings.Contains(mine, "Chrome") {
		t.Errorf("the current session reads %q, want Chromium's", mine)
	}
	for _, w := range []int{1280, 390} {
		b.SetWidth(t, w)
		b.Open(t, base+"/settings/sessions")
		shot := screenshotPath(t, "sessions-"+itoa(int64(w))+".png")
		b.Screenshot(t, shot)
		if data, err := os.ReadFile(shot); err != nil {
			t.Fatal(err)
		} else if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != w || cfg.Height < 600 {
			t.Errorf("screenshot at %d px: %d×%d (%v)", w, cfg.Width, cfg.Height, err)
		}
		if overflow := b.Eval(t, "document.documentElement.scrollWidth > window.innerWidth"); overflow != "false" {
			t.Errorf("at %d px the page scrolls sideways", w)
		}
	}
	b.Click(t, "#end-others")
	if !strings.Contains(b.Text(t, "[role=status]"), "other sessions are logged out") || b.Count(t, "#sessions > li") != 1 {
		t.Errorf("after logging out the others: %q", b.Text(t, "main"))
	}
	if e.loggedIn(phone, phoneH) {
		t.Error("the phone's session still works")
	}
}

package web_test

import (
	"bytes"
	"image/png"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"

	"github.com/cobble-am/cobble/internal/browsertest"
)

// TestBrowserTwoFactorJourney runs, in Chromium at 1280 and at 390 pixels
// wide, a volunteer's two-factor journey: enrol (the test reads the key
// from the page's otpauth:// URI and computes the codes), log out, log in
// with a code, see the same code refused, and log in with a recovery code.
// It keeps screenshots of the enrolment and the second-step pages.
func TestBrowserTwoFactorJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	t.Parallel()
	e, clk := newClockEnv(t, nil)
	b := browsertest.New(t)
	for _, width := range []int{1280, 390} {
		email := "ada" + strconv.Itoa(width) + "@example.org"
		e.user(email, "long-enough")
		b.SetWidth(t, width)
		twoFactorJourney(t, e, clk, b, email, width)
	}
}

func twoFactorJourney(t *testing.T, e *env, clk *clock, b *browsertest.Browser, email string, width int) {
	t.Helper()
	base, suffix := e.http.URL, "-"+strconv.Itoa(width)
	browserLogin(t, b, base, email)
	if b.URL(t) != base+"/" {
		t.Fatalf("log-in without two factors led to %s", b.URL(t))
	}
	b.Open(t, base+"/settings")
	b.Click(t, "a[href='/settings/two-factor']")
	key, err := otp.NewKeyFromURL(b.Text(t, "#otpauth-uri"))
	if err != nil || key.AccountName() != email {
		t.Fatalf("the page's otpauth URI %q: %v", b.Text(t, "#otpauth-uri"), err)
	}
	if got := b.Eval(t, "document.querySelector('img.qr').naturalWidth"); got != "200" {
		t.Errorf("the QR code image is %s pixels wide, want 200", got)
	}
	pageShot(t, b, "twofactor-enrol"+suffix, width)
	b.Fill(t, "#code", clk.code(t, key.Secret()))
	b.Click(t, "main form button[type=submit]")
	codes := strings.Fields(b.Text(t, "#recovery-codes"))
	if b.Status() != http.StatusOK || len(codes) != 10 {
		t.Fatalf("after enabling: status %d, recovery codes %q", b.Status(), codes)
	}
	logOut(t, b, base)
	clk.advance(time.Minute) // past the enrolment's code

	browserLogin(t, b, base, email)
	if b.URL(t) != base+"/login/two-factor" {
		t.Fatalf("the password led to %s, want the second step", b.URL(t))
	}
	pageShot(t, b, "twofactor-login"+suffix, width)
	code := clk.code(t, key.Secret())
	b.Fill(t, "#code", code)
	b.Click(t, "main form.card button[type=submit]")
	if b.URL(t) != base+"/" || !strings.HasPrefix(b.Text(t, "h1"), "Welcome") {
		t.Fatalf("log-in with a code led to %s, %q", b.URL(t), b.Text(t, "h1"))
	}
	logOut(t, b, base)

	browserLogin(t, b, base, email)
	b.Fill(t, "#code", code)
	b.Click(t, "main form.card button[type=submit]")
	if b.Status() != http.StatusUnprocessableEntity || !strings.Contains(b.Text(t, "[role=alert]"), "used already") {
		t.Fatalf("replayed code: status %d, %q", b.Status(), b.Text(t, "main"))
	}
	pageShot(t, b, "twofactor-replayed"+suffix, width)
	b.Eval(t, "document.querySelector('details').open = true")
	b.Fill(t, "#recovery_code", codes[0])
	b.Click(t, "details form button[type=submit]")
	if b.URL(t) != base+"/" || !strings.HasPrefix(b.Text(t, "h1"), "Welcome") {
		t.Fatalf("log-in with a recovery code led to %s, %q", b.URL(t), b.Text(t, "h1"))
	}
	logOut(t, b, base)
}

func browserLogin(t *testing.T, b *browsertest.Browser, base, email string) {
	t.Helper()
	b.Open(t, base+"/login")
	b.Fill(t, "#email", email)
	b.Fill(t, "#password", "long-enough")
	b.Click(t, "main form button[type=submit]")
}

func logOut(t *testing.T, b *browsertest.Browser, base string) {
	t.Helper()
	b.Click(t, "header.site form button")
	if b.URL(t) != base+"/" {
		t.Fatalf("logging out led to %s", b.URL(t))
	}
}

// pageShot saves the tab as name.png and checks it is width pixels wide
// and does not scroll sideways.
func pageShot(t *testing.T, b *browsertest.Browser, name string, width int) {
	t.Helper()
	shot := screenshotPath(t, name+".png")
	b.Screenshot(t, shot)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != width {
		t.Errorf("%s: %d pixels wide (%v), want %d", shot, cfg.Width, err, width)
	}
	if got := b.Eval(t, "document.documentElement.scrollWidth"); got != strconv.Itoa(width) {
		t.Errorf("%s scrolls sideways: %s pixels wide, want %d", name, got, width)
	}
}

package web_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/browsertest"
)

// In Chromium, the switcher at the foot of the log-in page turns the pages
// German; the volunteer's dashboard and settings then read in German at
// 1280 and 390 pixels, with German numbers and dates, and without sideways
// scrolling. The screenshots are de-dashboard-1280.png and so on
// (COBBLE_SCREENSHOT_DIR keeps them).
func TestBrowserGerman(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("Chromium")
	}
	e := newVolunteerEnv(t)
	b := browsertest.New(t)
	base := e.http.URL
	b.Open(t, base+"/login")
	if lang := b.Eval(t, "document.documentElement.lang"); lang != "en" {
		t.Fatalf("log-in page before switching: lang %q", lang)
	}
	b.Click(t, `form.languages button[value=de]`)
	if lang := b.Eval(t, "document.documentElement.lang"); lang != "de" || !strings.HasSuffix(b.URL(t), "/login") {
		t.Fatalf("after the switcher: lang %q at %s", lang, b.URL(t))
	}
	b.Fill(t, "#email", "ada@example.org")
	b.Fill(t, "#password", "ada-password")
	b.Click(t, "main form button[type=submit]")
	english := englishSentences(t)
	for _, w := range []int{1280, 390} {
		b.SetWidth(t, w)
		for _, page := range []struct{ name, path string }{{"dashboard", "/"}, {"settings", "/settings"}} {
			b.Open(t, base+page.path)
			main := b.Text(t, "main")
			for _, s := range english {
				if strings.Contains(main, s) {
					t.Errorf("%s at %d px says in English: %q", page.name, w, s)
				}
			}
			shot := screenshotPath(t, "de-"+page.name+"-"+itoa(int64(w))+".png")
			b.Screenshot(t, shot)
			checkScreenshotWidth(t, shot, w, 600)
			if overflow := b.Eval(t, "document.documentElement.scrollWidth > window.innerWidth"); overflow != "false" {
				t.Errorf("%s at %d px scrolls sideways", page.name, w)
			}
		}
	}
	// On a phone, the history table writes a German label before each cell.
	b.Open(t, base+"/")
	b.Eval(t, `document.querySelector('#history-table').open = true`)
	if label := b.Eval(t, `getComputedStyle(document.querySelector('table.history td:nth-of-type(3)'), '::before').content`); label != `"CPU-Std."` {
		t.Errorf("the history table's third label on a phone is %s", label)
	}
	b.SetWidth(t, 1280)
	b.Open(t, base+"/")
	// A German dashboard writes its totals with German separators (a
	// thousands point, a decimal comma), never English ones (1,234.5).
	totals := b.Text(t, "table.totals")
	germanNumber := regexp.MustCompile(`\d\.\d{3}(\D|$)|\d,\d{1,2}(\D|$)`)
	englishNumber := regexp.MustCompile(`\d,\d{3}(\D|$)|\d\.\d{1,2}(\D|$)`)
	if !germanNumber.MatchString(totals) || englishNumber.MatchString(totals) {
		t.Errorf("totals not in German numbers: %q", totals)
	}
}

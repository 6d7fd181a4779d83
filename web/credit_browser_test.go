package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// The credit page in Chromium, in English and German, at 1280 and 390
// pixels: its charts and tables drawn, no rule of axe-core broken, no
// sideways scrolling, no English left in the German page; screenshots
// kept with COBBLE_SCREENSHOT_DIR.
func TestBrowserCredit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("Chromium")
	}
	e := newCreditEnv(t)
	b := browsertest.New(t)
	english := englishSentences(t)
	for _, lang := range []string{"en", "de"} {
		b.Open(t, e.http.URL+"/credit")
		if lang == "de" {
			b.Click(t, `form.languages button[value=de]`)
		}
		for _, w := range []int{1280, phoneWidth} {
			b.SetWidth(t, w)
			b.Open(t, e.http.URL+"/credit?window=90")
			if n := b.Count(t, "svg.credit-chart circle.dot"); n != 3 {
				t.Errorf("%s at %d px: %d projects in the chart, want 3", lang, w, n)
			}
			if n := b.Count(t, "svg.heat rect.cell"); n != 16 {
				t.Errorf("%s at %d px: %d cells in the heat map, want 16", lang, w, n)
			}
			for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
				t.Errorf("%s at %d px: %v", lang, w, v)
			}
			if overflow := b.Eval(t, "document.documentElement.scrollWidth > window.innerWidth"); overflow != "false" {
				t.Errorf("%s at %d px scrolls sideways", lang, w)
			}
			if lang == "de" {
				main := b.Text(t, "main")
				for _, s := range english {
					if strings.Contains(main, s) {
						t.Errorf("the German page at %d px says in English: %q", w, s)
					}
				}
			}
			shot := screenshotPath(t, "credit-"+lang+"-"+itoa(int64(w))+".png")
			b.Screenshot(t, shot)
			checkScreenshotWidth(t, shot, w, 900)
		}
	}
	// The admin's view of a project: its figures and the hosts pulling them.
	if _, err := e.store.Accounts.CreateUser(context.Background(), accounting.NewUser{Email: "admin@example.org",
		Password: "long-enough", IsAdmin: true}); err != nil {
		t.Fatal(err)
	}
	b.Open(t, e.http.URL+"/login")
	b.Fill(t, "#email", "admin@example.org")
	b.Fill(t, "#password", "long-enough")
	b.Click(t, "main form button[type=submit]")
	for _, w := range []int{1280, phoneWidth} {
		b.SetWidth(t, w)
		b.Open(t, e.http.URL+"/admin/projects/"+itoa(e.projects[0].ID)+"/reconciliation")
		if n := b.Count(t, "#fairness-pulling tbody tr"); n != 10 {
			t.Errorf("at %d px: %d hosts pulling the figures, want 10", w, n)
		}
		for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
			t.Errorf("the reconciliation page at %d px: %v", w, v)
		}
		shot := screenshotPath(t, "credit-admin-"+itoa(int64(w))+".png")
		b.Screenshot(t, shot)
		checkScreenshotWidth(t, shot, w, 900)
	}
}

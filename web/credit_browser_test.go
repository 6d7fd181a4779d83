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
// sideways scrolling, no chart label cut off, a hint to scroll sideways on
// each box wider than the screen and on no other, no English left in the
// German page; screenshots kept with COBBLE_SCREENSHOT_DIR.
func TestBrowserCredit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("Chromium")
	}
	e := newCreditEnv(t)
	// A long name of wide letters, which the charts must cut to fit.
	if _, err := e.pool.Exec(context.Background(), `UPDATE projects SET name = 'WWW MilkyWay@Home Grid' WHERE id = $1`,
		e.projects[0].ID); err != nil {
		t.Fatal(err)
	}
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
			if clipped := b.Eval(t, clippedChartText); clipped != "" {
				t.Errorf("%s at %d px: chart labels cut off at the chart's edge: %s", lang, w, clipped)
			}
			if wrong := b.Eval(t, scrollHints); wrong != "" {
				t.Errorf("%s at %d px: the hint to scroll sideways is wrong: %s", lang, w, wrong)
			}
			if w == phoneWidth && b.Count(t, ".scroll-hint") < 3 {
				t.Errorf("%s at %d px: not every wide box has a hint", lang, w)
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

// clippedChartText lists the texts of the page's charts that reach past
// their SVG's viewBox (which is also the SVG's drawn box), "" when none.
const clippedChartText = `[...document.querySelectorAll("main svg text")].filter(el => {
	const box = el.getBBox(), view = el.ownerSVGElement.viewBox.baseVal;
	return box.x < view.x || box.y < view.y || box.x + box.width > view.x + view.width ||
		box.y + box.height > view.y + view.height;
}).map(el => JSON.stringify(el.textContent)).join(", ")`

// scrollHints lists the boxes whose hint to scroll sideways is shown
// while their content fits, or hidden (or scrolled out of view) while it
// does not, "" when every hint is right.
const scrollHints = `[...document.querySelectorAll("main .scroll")].filter(box => {
	const hint = box.querySelector(":scope > .scroll-hint");
	if (!hint) return false;
	const overflows = box.scrollWidth > box.clientWidth, r = hint.getBoundingClientRect(), b = box.getBoundingClientRect();
	const visible = hint.checkVisibility() && r.width > 0 && r.left >= b.left && r.right <= b.right + 0.5;
	return overflows !== visible;
}).map(box => box.getAttribute("aria-label") + (box.scrollWidth > box.clientWidth ? " (wider than its box)" : " (fits)")).join(", ")`

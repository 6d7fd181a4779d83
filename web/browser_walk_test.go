package web_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// walkShot opens url, checks axe-core finds nothing and that the page
// does not scroll sideways, and saves a screenshot of it at width.
func walkShot(t *testing.T, b *browsertest.Browser, url, name string, width int) {
	t.Helper()
	b.Resize(t, width, 900)
	b.Open(t, url)
	if b.Status() != http.StatusOK {
		t.Errorf("%s: status %d", url, b.Status())
	}
	for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
		t.Errorf("%s at %d px: %v", name, width, v)
	}
	pageShot(t, b, name+"-"+strconv.Itoa(width), width)
}

// walkLogin logs the browser in as email, in the language lang.
func walkLogin(t *testing.T, e *env, b *browsertest.Browser, email, password, lang string) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), `UPDATE users SET language = $2 WHERE email = $1`, email, lang); err != nil {
		t.Fatal(err)
	}
	b.Open(t, e.http.URL+"/login")
	b.Fill(t, "#email", email)
	b.Fill(t, "#password", password)
	b.Click(t, "main form button[type=submit]")
}

// The states the walk found wanting, in Chromium at 1280 and 390 pixels,
// in English and German, each with no axe-core violation and no sideways
// scrolling: a new volunteer's dashboard, the 30- and 365-day charts (on a
// phone, the chart fits and ends today), a computer whose project is set
// to never, a disconnected computer, a location's compute settings and
// the admin host page.
func TestBrowserWalkScreens(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	t.Parallel()
	e := newVolunteerEnv(t)
	ctx := context.Background()
	e.user("new@example.org", "new-password")
	if _, err := e.store.Accounts.CreateUser(ctx, accounting.NewUser{Email: "admin@example.org", Password: "long-enough", IsAdmin: true}); err != nil {
		t.Fatal(err)
	}
	never, gone := e.adaHosts[0], e.adaHosts[1]
	p := e.projects[1]
	if err := e.store.Computers.SetComputerChoices(ctx, e.ada.ID, never.ID, map[int64]string{p.ID: "never"}); err != nil {
		t.Fatal(err)
	}
	// The computer's next contact: Cobble no longer gives it the project,
	// and the client still lists it while it finishes its tasks.
	if _, err := e.pool.Exec(ctx, `UPDATE host_projects SET assigned = false WHERE host_id = $1 AND project_id = $2`, never.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Computers.Disconnect(ctx, e.ada.ID, gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Computers.SaveLocation(ctx, e.ada.ID, "Work", ""); err != nil {
		t.Fatal(err)
	}
	b := browsertest.New(t)
	base := e.http.URL
	for _, lang := range []string{"en", "de"} {
		walkLogin(t, e.env, b, "new@example.org", "new-password", lang)
		for _, w := range []int{1280, phoneWidth} {
			walkShot(t, b, base+"/", "walk-new-dashboard-"+lang, w)
			if first := b.Eval(t, `document.querySelector("main section.card, main .data.totals").id || document.querySelector("main section.card, main .data.totals").className`); first != "card" {
				t.Errorf("%s at %d px: the new volunteer's page starts with %q, not the connect steps", lang, w, first)
			}
		}
		b.Click(t, "header.site form button")

		walkLogin(t, e.env, b, "ada@example.org", "ada-password", lang)
		for _, w := range []int{1280, phoneWidth} {
			for _, days := range []string{"30", "365"} {
				walkShot(t, b, base+"/?days="+days, "walk-chart-"+days+"-"+lang, w)
				checkChartEndsToday(t, b, days, w)
			}
			walkShot(t, b, base+"/computers/"+itoa(never.ID), "walk-computer-never-"+lang, w)
			walkShot(t, b, base+"/computers/"+itoa(gone.ID), "walk-computer-disconnected-"+lang, w)
			// Disconnecting asks first; "keep it" goes back, connected.
			b.Open(t, base+"/computers/"+itoa(never.ID))
			b.Click(t, `form[action$="/disconnect"] button`)
			for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
				t.Errorf("disconnect confirmation, %s at %d px: %v", lang, w, v)
			}
			pageShot(t, b, "walk-disconnect-confirm-"+lang+"-"+strconv.Itoa(w), w)
			b.Click(t, `main a[href="/computers/`+itoa(never.ID)+`"]`)
			if b.Count(t, `form[action$="/disconnect"]`) != 1 {
				t.Errorf("%s at %d px: keeping the computer connected did not lead back to it, connected", lang, w)
			}
			walkShot(t, b, base+"/settings/compute?location=Work", "walk-compute-location-"+lang, w)
			for _, page := range []string{"projects", "science"} {
				walkShot(t, b, base+"/settings/"+page, "walk-settings-"+page+"-"+lang, w)
				checkTablesInCards(t, b, page+" "+lang, w)
			}
		}
		b.Click(t, "header.site form button")

		walkLogin(t, e.env, b, "admin@example.org", "long-enough", lang)
		for _, w := range []int{1280, phoneWidth} {
			walkShot(t, b, base+"/admin/hosts/"+itoa(never.ID), "walk-admin-host-"+lang, w)
			walkShot(t, b, base+"/admin/users/"+itoa(e.ada.ID), "walk-admin-user-"+lang, w)
			if w == phoneWidth { // the overview's charts open at the newest day (issue 45, item 13)
				b.Open(t, base+"/admin")
				if hidden := b.Eval(t, `[...document.querySelectorAll("main .chart-box")].filter(box =>
					box.querySelector("svg.chart").getBoundingClientRect().right > box.getBoundingClientRect().right + 1).length`); hidden != "0" {
					t.Errorf("admin overview at %d px: %s charts open away from their newest day", w, hidden)
				}
			}
			// Dates and numbers keep to one line (their table scrolls).
			// (checked by the lines their text takes).
			if bad := b.Eval(t, `[...document.querySelectorAll("main td.date, main td.num")].filter(td => {
				const r = document.createRange();
				r.selectNodeContents(td);
				const lines = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
				return lines.size > 1;
			}).map(td => td.textContent).join(", ")`); bad != "" {
				t.Errorf("admin user page at %d px: dates or numbers wrap: %s", w, bad)
			}
		}
		b.Click(t, "header.site form button")
		if got := b.Count(t, "#page-notice"); got != 1 {
			t.Errorf("%s: %d notices after logging out, want 1", lang, got)
		}
		for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
			t.Errorf("the page after logging out, %s: %v", lang, v)
		}
	}
}

// checkChartEndsToday checks that the chart shown fits the page's width and
// that its last bar, today's, is inside the window.
func checkChartEndsToday(t *testing.T, b *browsertest.Browser, days string, width int) {
	t.Helper()
	shown := ".chart-wide"
	if width == phoneWidth {
		shown = ".chart-phone"
	}
	if got := b.Eval(t, `getComputedStyle(document.querySelector("`+shown+`")).display`); got == "none" {
		t.Errorf("%s days at %d px: %s is not shown", days, width, shown)
	}
	fits := b.Eval(t, `(() => {
		const svg = document.querySelector("`+shown+` svg.chart");
		const bars = [...svg.querySelectorAll(".bars rect")];
		const right = Math.max(...bars.map(r => r.getBoundingClientRect().right));
		return svg.getBoundingClientRect().right <= window.innerWidth && right <= window.innerWidth && right > window.innerWidth * 0.6;
	})()`)
	if fits != "true" {
		t.Errorf("%s days at %d px: the chart or its newest bar is outside the window", days, width)
	}
	if legend := b.Eval(t, `Math.max(...[...document.querySelectorAll("`+shown+` .legend text")].map(x => x.getBoundingClientRect().right)) <= window.innerWidth`); legend != "true" {
		t.Errorf("%s days at %d px: the legend runs off the window", days, width)
	}
}

// The recovery codes page, just after enrolment, in English and German at
// 1280 and 390 pixels: every code on its own line inside the card, the box
// to copy them and the download, no axe-core violation.
func TestBrowserRecoveryCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	t.Parallel()
	e, clk := newClockEnv(t, nil)
	b := browsertest.New(t)
	for _, lang := range []string{"en", "de"} {
		for _, w := range []int{1280, phoneWidth} {
			email := "codes-" + lang + strconv.Itoa(w) + "@example.org"
			e.user(email, "long-enough")
			walkLogin(t, e, b, email, "long-enough", lang)
			b.Resize(t, w, 900)
			b.Open(t, e.http.URL+"/settings/two-factor")
			uri := b.Text(t, "#otpauth-uri")
			secret := uri[strings.Index(uri, "secret=")+len("secret="):]
			if i := strings.IndexByte(secret, '&'); i >= 0 {
				secret = secret[:i]
			}
			b.Fill(t, "#code", clk.code(t, secret))
			b.Click(t, "main form button[type=submit]")
			if n := b.Count(t, "#recovery-codes li"); n != 10 {
				t.Fatalf("%s at %d px: %d recovery codes", lang, w, n)
			}
			for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
				t.Errorf("recovery codes, %s at %d px: %v", lang, w, v)
			}
			// Each code is one line, inside the card.
			if bad := b.Eval(t, `[...document.querySelectorAll("#recovery-codes li")].filter(li => {
				const r = li.getBoundingClientRect(), card = li.closest(".card").getBoundingClientRect();
				return r.height > 40 || r.right > card.right || li.querySelector("code").getBoundingClientRect().right > card.right;
			}).length`); bad != "0" {
				t.Errorf("%s at %d px: %s codes wrap or leave the card", lang, w, bad)
			}
			if b.Count(t, "#recovery-codes-all") != 1 || b.Count(t, "a#recovery-codes-download[download]") != 1 {
				t.Errorf("%s at %d px: no box to copy the codes, or no download", lang, w)
			}
			pageShot(t, b, "walk-recovery-codes-"+lang+"-"+strconv.Itoa(w), w)
			b.Click(t, "header.site form button")
		}
	}
}

// checkTablesInCards checks that no table of the page runs past its card's
// edge, and that the radio buttons of a settings table's columns line up
// from one table (or area) to the next.
func checkTablesInCards(t *testing.T, b *browsertest.Browser, name string, width int) {
	t.Helper()
	b.Eval(t, `document.querySelectorAll("main details").forEach(d => d.open = true)`)
	out := b.Eval(t, `[...document.querySelectorAll("main .card table")].filter(t =>
		t.getBoundingClientRect().right > t.closest(".card").getBoundingClientRect().right + 0.5).length`)
	if out != "0" {
		t.Errorf("%s at %d px: %s tables run past their card", name, width, out)
	}
	columns := b.Eval(t, `(() => {
		const xs = new Set();
		document.querySelectorAll("main table.prefs tr").forEach(tr => {
			const radios = [...tr.querySelectorAll("input[type=radio]")];
			if (radios.length > 1) xs.add(radios.map(r => Math.round(r.getBoundingClientRect().left)).join(","));
		});
		return [...xs].join(" | ");
	})()`)
	if strings.Contains(columns, "|") {
		t.Errorf("%s at %d px: the radio columns sit at different places: %s", name, width, columns)
	}
	// No heading runs into the next one.
	overlap := b.Eval(t, `[...document.querySelectorAll("main table.prefs thead:not(.visually-hidden) th")].filter(th =>
		th.scrollWidth > th.clientWidth + 1).map(th => th.textContent).join(", ")`)
	if overlap != "" {
		t.Errorf("%s at %d px: headings wider than their columns: %s", name, width, overlap)
	}
}

package web_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
	"github.com/cobble-am/cobble/internal/browsertest"
)

// TestBrowserTeams walks teams in Chromium, in English and in German: Ada
// creates a closed team (a first try without a name is refused), copies
// its invitation link, Bob opens the link, joins and leaves, and a visitor
// reads the team's public page and the team leaderboards; last, an admin
// opens /admin/teams. Each page is shot at 1280 and 390 px and breaks
// none of axe-core's WCAG 2.1 AA rules.
func TestBrowserTeams(t *testing.T) {
	t.Parallel()
	e := newTeamsEnv(t)
	seedTeamCredit(t, e)
	b := browsertest.New(t)
	base := e.http.URL
	names := map[string]string{"en": "Crunchers <b>&</b> Co", "de": "Rechner <i>&</i> Söhne"}
	for _, lang := range []string{"en", "de"} {
		for _, u := range []int64{e.ada.ID, e.bob.ID} {
			if err := e.store.Accounts.SetLanguage(context.Background(), u, lang); err != nil {
				t.Fatal(err)
			}
		}
		shot := func(name string) { teamShot(t, b, name+"-"+lang) }
		// Ada creates a closed team.
		browserLoginAs(t, b, base, "ada@example.org", "ada-password")
		b.Open(t, base+"/teams")
		shot("teams")
		b.Click(t, "#create-team")
		b.Click(t, "main form button[type=submit]") // no name yet
		if b.Status() != http.StatusUnprocessableEntity || b.Count(t, "#name-error") != 1 {
			t.Fatalf("%s: a team without a name: status %d, %q", lang, b.Status(), b.Text(t, "main"))
		}
		shot("team-new-refused")
		b.Fill(t, "#name", names[lang])
		b.Eval(t, `document.querySelector("#type").value = "6"`)
		b.Fill(t, "#country", "Deutschland")
		b.Fill(t, "#url", "https://crunch.example.org/")
		b.Fill(t, "#description", "<script>alert(1)</script>\n"+strings.Repeat("long", 60))
		b.Click(t, "#open") // closed: by invitation only
		b.Click(t, "main form button[type=submit]")
		if !strings.HasPrefix(b.URL(t), base+"/teams/") || b.Text(t, "#team-name") != names[lang] {
			t.Fatalf("%s: after creating: %s, %q", lang, b.URL(t), b.Text(t, "main"))
		}
		team := b.URL(t)
		backdateTeam(t, e, e.ada.ID)
		b.Open(t, team)
		if b.Text(t, "#team-confirmed") == "0" || b.Count(t, `#team-members a[href="/v/ada-l"]`) != 1 {
			t.Errorf("%s: the team's credit or its public member: %q", lang, b.Text(t, "main"))
		}
		invite := b.Text(t, "#team-invite")
		if !strings.HasPrefix(invite, "http://127.0.0.1:1/teams/join/") {
			t.Fatalf("%s: the invitation link %q", lang, invite)
		}
		shot("team-founder")
		b.Open(t, base+"/")
		if !strings.Contains(b.Text(t, "#dashboard-team"), names[lang]) {
			t.Errorf("%s: the dashboard's team: %q", lang, b.Text(t, "#dashboard-team"))
		}
		logOut(t, b, base)
		// Bob follows the link (on this server), joins and leaves.
		browserLoginAs(t, b, base, "bob@example.org", "bob-password")
		b.Open(t, base+strings.TrimPrefix(invite, "http://127.0.0.1:1"))
		shot("team-join")
		b.Click(t, "#join")
		if b.URL(t) != team || b.Count(t, "#team-leave") != 1 || b.Count(t, "#page-notice") != 1 {
			t.Fatalf("%s: after joining: %s, %q", lang, b.URL(t), b.Text(t, "main"))
		}
		shot("team-member")
		b.Click(t, "#team-leave button")
		if b.URL(t) != team || b.Count(t, "#team-leave") != 0 || b.Count(t, "#team-closed") != 1 {
			t.Fatalf("%s: after leaving: %s, %q", lang, b.URL(t), b.Text(t, "main"))
		}
		shot("team-left")
		logOut(t, b, base)
		// A visitor, in the language of the walk.
		b.Open(t, team)
		b.Click(t, `form.languages button[value="`+lang+`"]`)
		b.Open(t, team)
		if b.Count(t, "#team-invite") != 0 || b.Count(t, "#team-leave") != 0 || b.Eval(t, "document.documentElement.lang") != lang {
			t.Errorf("%s: the visitor's team page: %q", lang, b.Text(t, "main"))
		}
		shot("team-public")
		b.Open(t, base+"/leaderboards")
		if b.Count(t, "#team-board-all a[href]") == 0 {
			t.Errorf("%s: the team leaderboard lists no team", lang)
		}
		shot("leaderboards-teams")
	}
	// The admin's teams page, in English whatever the language.
	browserLoginAs(t, b, base, "admin@example.org", "long-enough")
	b.Open(t, base+"/admin/teams")
	if b.Count(t, "#admin-teams li") == 0 {
		t.Errorf("/admin/teams lists no team: %q", b.Text(t, "main"))
	}
	teamShot(t, b, "admin-teams")
}

// seedTeamCredit gives Ada 40 days of history on one project and a
// public, listed profile (ada-l).
func seedTeamCredit(t *testing.T, e *teamsEnv) {
	t.Helper()
	ctx := context.Background()
	p := e.project(accounting.Project{URL: "https://one.example.org/", Name: "One", Keywords: []int{9}})
	today := e.store.Ledger.Today(time.Now(), "UTC")
	if _, err := demodata.Seed(ctx, e.pool, demodata.Spec{UserID: e.ada.ID, Projects: []int64{p.ID}, Days: 40,
		End: today, ConfirmedLag: 3, Computers: []demodata.Computer{{Name: "alpha", NCPUs: 4, PFPOps: 3e9,
			ClientVersion: "7.20.5"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Public.SetPublicProfile(ctx, e.ada.ID, accounting.PublicProfile{Handle: "ada-l", Public: true,
		ShowTotals: true, ListMe: true}); err != nil {
		t.Fatal(err)
	}
}

// backdateTeam makes the volunteer's membership of their team begin 45
// days ago, as if they had founded it then, and folds the rollups: the
// team's page then has a history and totals.
func backdateTeam(t *testing.T, e *teamsEnv, userID int64) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.pool.Exec(ctx, `UPDATE team_members SET first_day = first_day - 45
		WHERE user_id = $1 AND until_day IS NULL`, userID); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Ledger.RebuildRollups(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// browserLoginAs logs the browser in with email and password.
func browserLoginAs(t *testing.T, b *browsertest.Browser, base, email, password string) {
	t.Helper()
	b.Open(t, base+"/login")
	b.Fill(t, "#email", email)
	b.Fill(t, "#password", password)
	b.Click(t, "main form button[type=submit]")
	if b.URL(t) != base+"/" {
		t.Fatalf("logging in %s led to %s", email, b.URL(t))
	}
}

// teamShot shoots the page shown at 1280 and 390 px (pageShot: no
// sideways scrolling) and checks it with axe at each width.
func teamShot(t *testing.T, b *browsertest.Browser, name string) {
	t.Helper()
	for _, w := range []int{1280, phoneWidth} {
		b.Resize(t, w, 900)
		pageShot(t, b, name+"-"+strconv.Itoa(w), w)
		for _, v := range b.Axe(t, browsertest.WCAG21AA...) {
			t.Errorf("%s at %d px: %v", name, w, v)
		}
	}
	b.Resize(t, 1280, 900)
}

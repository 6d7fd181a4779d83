package web_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// teamsEnv is a server with three volunteers whose email is confirmed,
// Ada, Bob and Cy, each with a session, and an admin.
type teamsEnv struct {
	*env
	ada, bob, cy          accounting.User
	adaC, bobC, cyC, admC *http.Client
}

func newTeamsEnv(t *testing.T) *teamsEnv {
	t.Helper()
	e := &teamsEnv{env: newEnv(t)}
	e.ada, e.bob, e.cy = e.user("ada@example.org", "ada-password"), e.user("bob@example.org", "bob-password"),
		e.user("cy@example.org", "cy-password")
	if _, err := e.store.Accounts.CreateUser(context.Background(), accounting.NewUser{Email: "admin@example.org",
		Password: "long-enough", IsAdmin: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE users SET email_confirmed_at = now()`); err != nil {
		t.Fatal(err)
	}
	e.adaC, e.bobC = e.session(t, "ada@example.org", "ada-password"), e.session(t, "bob@example.org", "bob-password")
	e.cyC, e.admC = e.session(t, "cy@example.org", "cy-password"), e.session(t, "admin@example.org", "long-enough")
	return e
}

// teamForm is a valid team's form, changed by the name, value pairs given.
func teamForm(pairs ...string) url.Values {
	f := url.Values{"name": {"Crunchers"}, "type": {"1"}, "country": {"Germany"}, "url": {"https://crunch.example.org/"},
		"description": {"We crunch."}, "open": {"on"}}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			f.Del(pairs[i])
		} else {
			f.Set(pairs[i], pairs[i+1])
		}
	}
	return f
}

// createTeam posts form as c and returns the new team's id, wanting 303
// to its page.
func (e *teamsEnv) createTeam(t *testing.T, c *http.Client, form url.Values) int64 {
	t.Helper()
	status, body, h := do(t, c, "POST", e.http.URL+"/teams", form, nil)
	loc := h.Get("Location")
	id, err := strconv.ParseInt(strings.TrimPrefix(loc, "/teams/"), 10, 64)
	if status != http.StatusSeeOther || !strings.HasPrefix(loc, "/teams/") || err != nil {
		t.Fatalf("POST /teams: status %d, Location %q, want 303 to /teams/{id}\n%s", status, loc, body)
	}
	return id
}

// want requests method path as c (nil: a visitor) and wants status; it
// returns the body and the headers.
func (e *teamsEnv) want(t *testing.T, c *http.Client, method, path string, form url.Values, status int) (string, http.Header) {
	t.Helper()
	if c == nil {
		c = e.browser()
	}
	if method == "POST" && form == nil {
		form = url.Values{}
	}
	got, body, h := do(t, c, method, e.http.URL+path, form, nil)
	if got != status {
		t.Fatalf("%s %s: status %d, want %d\n%.2000s", method, path, got, status, body)
	}
	return body, h
}

var inviteLink = regexp.MustCompile(`<code id="team-invite">[^<]*/teams/join/([a-z2-7]{26})</code>`)

// POST /teams: 303 to the new team's page; 422 naming the field for bad
// input, hostile text included; a visitor is sent to log in.
func TestTeamCreate(t *testing.T) {
	t.Parallel()
	e := newTeamsEnv(t)
	if _, h := e.want(t, nil, "POST", "/teams", teamForm(), http.StatusSeeOther); h.Get("Location") != "/login" {
		t.Errorf("a visitor's POST /teams goes to %q, want /login", h.Get("Location"))
	}
	for _, tc := range []struct{ field, value string }{
		{"name", ""}, {"name", strings.Repeat("n", 65)}, {"name", "Evil\u202eteam"}, {"name", "zero\u200bwidth"},
		{"type", "0"}, {"type", "8"}, {"type", "club"}, {"country", strings.Repeat("c", 65)},
		{"url", "javascript:alert(1)"}, {"url", "crunch.example.org"},
		{"description", strings.Repeat("<b>x</b> ", 1200)}, // 10 KB
		{"description", "line\u202eflip"},
	} {
		form := teamForm(tc.field, tc.value)
		if tc.value == "" {
			form.Set(tc.field, "")
		}
		body, _ := e.want(t, e.adaC, "POST", "/teams", form, http.StatusUnprocessableEntity)
		if !strings.Contains(body, `id="`+tc.field+`-error"`) || !strings.Contains(body, `aria-invalid="true"`) {
			t.Errorf("%s = %.40q: the form does not name the field\n%.3000s", tc.field, tc.value, body)
		}
	}
	// Markup is plain text, shown inert.
	id := e.createTeam(t, e.adaC, teamForm("name", `<script>alert("x")</script>`, "description",
		"<img src=x onerror=alert(1)>\nsecond line", "url", ""))
	body, _ := e.want(t, nil, "GET", "/teams/"+strconv.FormatInt(id, 10), nil, http.StatusOK)
	if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") ||
		!strings.Contains(body, "&lt;script&gt;") || !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("the hostile name or description is not shown inert:\n%s", body)
	}
	// The same name, differently written, is taken.
	body, _ = e.want(t, e.bobC, "POST", "/teams", teamForm("name", `<SCRIPT>ALERT("X")</SCRIPT>`), http.StatusUnprocessableEntity)
	if !strings.Contains(body, `id="name-error"`) {
		t.Errorf("a taken name: %s", body)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE users SET email_confirmed_at = NULL WHERE id = $1`, e.cy.ID); err != nil {
		t.Fatal(err)
	}
	// An unconfirmed address may not found a team: the form says so
	// before, and after keeps what was typed.
	if body, _ := e.want(t, e.cyC, "GET", "/teams/new", nil, http.StatusOK); !strings.Contains(body, `id="team-unconfirmed"`) {
		t.Errorf("the form does not say the address is unconfirmed: %s", body)
	}
	body, _ = e.want(t, e.cyC, "POST", "/teams", teamForm("name", "Cy's"), http.StatusForbidden)
	if !strings.Contains(body, `id="team-problem"`) || !strings.Contains(body, `value="Cy&#39;s"`) {
		t.Errorf("the refused form: %s", body)
	}
	if body, _ := e.want(t, e.adaC, "GET", "/teams/new", nil, http.StatusOK); strings.Contains(body, `id="team-unconfirmed"`) {
		t.Errorf("the form says a confirmed address is not: %s", body)
	}
}

// A team's life through its routes: its public page, joining an open
// team, the invitation of a closed one (shown to the founder alone,
// renewable), leaving, the founder's edits, hand-over and deletion.
func TestTeamJoinLeaveInvite(t *testing.T) {
	t.Parallel()
	e := newTeamsEnv(t)
	open := e.createTeam(t, e.adaC, teamForm())
	path := "/teams/" + strconv.FormatInt(open, 10)
	body, _ := e.want(t, nil, "GET", path, nil, http.StatusOK)
	if !strings.Contains(body, "Crunchers") || strings.Contains(body, "/teams/join/") || strings.Contains(body, `id="team-join"`) {
		t.Errorf("a visitor's team page: %s", body)
	}
	body, _ = e.want(t, e.adaC, "GET", path, nil, http.StatusOK)
	m := inviteLink.FindStringSubmatch(body)
	if m == nil || !strings.Contains(body, "Your team is created") {
		t.Fatalf("the founder sees no invitation link, or no notice: %s", body)
	}
	if body, _ := e.want(t, e.bobC, "GET", path, nil, http.StatusOK); strings.Contains(body, m[1]) || !strings.Contains(body, `id="team-join"`) {
		t.Errorf("Bob's view of an open team: the invitation shown, or no join button: %s", body)
	}
	if _, h := e.want(t, e.bobC, "POST", path+"/join", nil, http.StatusSeeOther); h.Get("Location") != path {
		t.Errorf("join: Location %q", h.Get("Location"))
	}
	// The volunteer's team on their dashboard and settings.
	for _, p := range []string{"/", "/settings"} {
		if body, _ := e.want(t, e.bobC, "GET", p, nil, http.StatusOK); !strings.Contains(body, `<a href="`+path+`"><bdi>Crunchers</bdi></a>`) {
			t.Errorf("%s does not link Bob's team: %s", p, body)
		}
	}
	if body, _ := e.want(t, e.bobC, "GET", path, nil, http.StatusOK); !strings.Contains(body, `id="team-leave"`) {
		t.Errorf("Bob's page after joining shows no leave button: %s", body)
	}
	e.want(t, e.bobC, "POST", path+"/invite", nil, http.StatusForbidden) // not the founder
	e.want(t, e.bobC, "GET", path+"/edit", nil, http.StatusForbidden)
	if _, h := e.want(t, e.bobC, "POST", path+"/leave", nil, http.StatusSeeOther); h.Get("Location") != path {
		t.Errorf("leave: Location %q", h.Get("Location"))
	}
	e.want(t, e.bobC, "POST", path+"/leave", nil, http.StatusNotFound) // not a member any more

	// A closed team: by invitation only.
	closed := e.createTeam(t, e.cyC, teamForm("name", "Closed circle", "open", ""))
	cpath := "/teams/" + strconv.FormatInt(closed, 10)
	e.want(t, e.bobC, "POST", cpath+"/join", nil, http.StatusForbidden)
	body, _ = e.want(t, e.cyC, "GET", cpath, nil, http.StatusOK)
	code := inviteLink.FindStringSubmatch(body)[1]
	body, _ = e.want(t, nil, "GET", "/teams/join/"+code, nil, http.StatusOK)
	if !strings.Contains(body, "Closed circle") || strings.Contains(body, `id="join"`) {
		t.Errorf("a visitor's invitation page: %s", body)
	}
	body, _ = e.want(t, e.bobC, "GET", "/teams/join/"+code, nil, http.StatusOK)
	if !strings.Contains(body, `action="/teams/join/`+code+`"`) {
		t.Errorf("Bob's invitation page has no join button: %s", body)
	}
	if _, h := e.want(t, e.bobC, "POST", "/teams/join/"+code, nil, http.StatusSeeOther); h.Get("Location") != cpath {
		t.Errorf("join by code: Location %q", h.Get("Location"))
	}
	// Renewing revokes the old link.
	if _, h := e.want(t, e.cyC, "POST", cpath+"/invite", nil, http.StatusSeeOther); !strings.HasPrefix(h.Get("Location"), cpath) {
		t.Errorf("renew: Location %q", h.Get("Location"))
	}
	e.want(t, nil, "GET", "/teams/join/"+code, nil, http.StatusNotFound)
	e.want(t, e.adaC, "POST", "/teams/join/"+code, nil, http.StatusNotFound)
	e.want(t, nil, "GET", "/teams/join/not-a-code", nil, http.StatusNotFound)

	// The founder edits, hands over, and the new founder deletes.
	e.want(t, e.cyC, "GET", cpath+"/edit", nil, http.StatusOK)
	e.want(t, e.cyC, "POST", cpath+"/edit", teamForm("name", "Closed circle", "url", "ftp://x"), http.StatusUnprocessableEntity)
	e.want(t, e.cyC, "POST", cpath+"/edit", teamForm("name", "Closed circle", "type", "6", "open", ""), http.StatusSeeOther)
	e.want(t, e.cyC, "POST", cpath+"/hand-over", url.Values{"to": {strconv.FormatInt(e.bob.ID, 10)}}, http.StatusSeeOther)
	e.want(t, e.cyC, "POST", cpath+"/delete", url.Values{"confirm": {"on"}}, http.StatusForbidden)
	e.want(t, e.bobC, "POST", cpath+"/delete", url.Values{}, http.StatusUnprocessableEntity)
	if _, h := e.want(t, e.bobC, "POST", cpath+"/delete", url.Values{"confirm": {"on"}}, http.StatusSeeOther); h.Get("Location") != "/teams" {
		t.Errorf("delete: Location %q", h.Get("Location"))
	}
	e.want(t, nil, "GET", cpath, nil, http.StatusNotFound)
	for _, p := range []string{"/teams/999999", "/teams/abc", "/teams/-1", "/teams/0/badge.svg"} {
		e.want(t, nil, "GET", p, nil, http.StatusNotFound)
	}
}

// GET /teams lists by credit, finds by name; the badges are SVG and PNG.
func TestTeamListAndBadges(t *testing.T) {
	t.Parallel()
	e := newTeamsEnv(t)
	a := e.createTeam(t, e.adaC, teamForm("name", "Alpha Crunchers"))
	e.createTeam(t, e.bobC, teamForm("name", "Beta Folders"))
	body, _ := e.want(t, nil, "GET", "/teams", nil, http.StatusOK)
	if !strings.Contains(body, "Alpha Crunchers") || !strings.Contains(body, "Beta Folders") {
		t.Errorf("/teams: %s", body)
	}
	body, _ = e.want(t, nil, "GET", "/teams?q=alpha&sort=name", nil, http.StatusOK)
	if !strings.Contains(body, "Alpha Crunchers") || strings.Contains(body, "Beta Folders") {
		t.Errorf("/teams?q=alpha: %s", body)
	}
	e.want(t, nil, "GET", "/teams?q=%ff&sort=bogus&offset=-5", nil, http.StatusOK)
	path := "/teams/" + strconv.FormatInt(a, 10)
	for _, b := range []struct{ ext, ctype, magic string }{
		{".svg", "image/svg+xml; charset=utf-8", "<svg"}, {".png", "image/png", "\x89PNG"},
	} {
		body, h := e.want(t, nil, "GET", path+"/badge"+b.ext, nil, http.StatusOK)
		if h.Get("Content-Type") != b.ctype || !strings.HasPrefix(body, b.magic) || h.Get("ETag") == "" ||
			!strings.Contains(h.Get("Cache-Control"), "max-age") {
			t.Errorf("badge%s: %q, %v", b.ext, body[:min(len(body), 40)], h)
		}
	}
	svg, _ := e.want(t, nil, "GET", path+"/badge.svg", nil, http.StatusOK)
	if !strings.Contains(svg, "Alpha Crunchers") || !bytes.Contains([]byte(svg), []byte("1 member")) {
		t.Errorf("the SVG badge: %s", svg)
	}
	// In the language the link names, whatever the reader's; without one,
	// in the reader's.
	if svg, h := e.want(t, nil, "GET", path+"/badge.svg?lang=de", nil, http.StatusOK); !strings.Contains(svg, "1 Mitglied") || h.Get("Vary") != "" {
		t.Errorf("the German badge: %s, Vary %q", svg, h.Get("Vary"))
	}
	if _, h := e.want(t, nil, "GET", path+"/badge.png?lang=xx", nil, http.StatusOK); !strings.Contains(h.Get("Vary"), "Accept-Language") {
		t.Errorf("a badge in the reader's language does not vary with it: %v", h)
	}
}

// An admin renames, hides and deletes a team, each audited; a hidden team
// is on no public page, badge, list, board or API answer.
func TestAdminTeams(t *testing.T) {
	t.Parallel()
	e := newTeamsEnv(t)
	id := e.createTeam(t, e.adaC, teamForm())
	path := "/teams/" + strconv.FormatInt(id, 10)
	admin := "/admin/teams/" + strconv.FormatInt(id, 10)
	e.want(t, e.bobC, "GET", "/admin/teams", nil, http.StatusForbidden)
	if body, _ := e.want(t, e.admC, "GET", "/admin/teams?q=crunch", nil, http.StatusOK); !strings.Contains(body, "Crunchers") {
		t.Errorf("/admin/teams: %s", body)
	}
	e.want(t, e.admC, "POST", admin+"/rename", url.Values{"name": {""}}, http.StatusUnprocessableEntity)
	e.want(t, e.admC, "POST", admin+"/rename", url.Values{"name": {"Renamed Crunchers"}}, http.StatusSeeOther)
	e.want(t, e.admC, "POST", admin+"/hide", url.Values{"hidden": {"on"}}, http.StatusSeeOther)
	secret, err := e.store.API.CreateAPIToken(context.Background(), e.bob.ID, "script", time.Now().Truncate(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	api := newAPIClient(t, e.http.URL, secret.Secret)
	for _, p := range []string{path, path + "/badge.svg", path + "/badge.png"} {
		e.want(t, nil, "GET", p, nil, http.StatusNotFound)
	}
	e.want(t, e.bobC, "POST", path+"/join", nil, http.StatusNotFound)
	if got := api.get("/api/v1/teams/" + strconv.FormatInt(id, 10)); got.status != http.StatusNotFound {
		t.Errorf("the API shows a hidden team: %d", got.status)
	}
	for _, p := range []string{"/teams", "/teams?q=renamed", "/leaderboards"} {
		if body, _ := e.want(t, nil, "GET", p, nil, http.StatusOK); strings.Contains(body, "Renamed Crunchers") {
			t.Errorf("%s lists the hidden team", p)
		}
	}
	e.want(t, e.admC, "POST", admin+"/hide", url.Values{"hidden": {"off"}}, http.StatusSeeOther)
	if body, _ := e.want(t, nil, "GET", path, nil, http.StatusOK); !strings.Contains(body, "Renamed Crunchers") {
		t.Errorf("the team shown again: %s", body)
	}
	e.want(t, e.admC, "POST", admin+"/delete", url.Values{"confirm": {"on"}}, http.StatusSeeOther)
	e.want(t, nil, "GET", path, nil, http.StatusNotFound)
	e.want(t, e.admC, "POST", admin+"/hide", url.Values{"hidden": {"on"}}, http.StatusNotFound)
	body, _ := e.want(t, e.admC, "GET", "/admin/audit", nil, http.StatusOK)
	for _, kind := range []string{string(accounting.AuditTeamRename), string(accounting.AuditTeamHide), string(accounting.AuditTeamDelete)} {
		if !strings.Contains(body, kind) {
			t.Errorf("the audit log lacks %s", kind)
		}
	}
}

// GET /api/v1/teams/{id} answers the team's public facts, and /api/v1/me
// the volunteer's team, as the OpenAPI document says.
func TestTeamAPI(t *testing.T) {
	t.Parallel()
	e := newTeamsEnv(t)
	secret, err := e.store.API.CreateAPIToken(context.Background(), e.bob.ID, "script", time.Now().Truncate(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	api := newAPIClient(t, e.http.URL, secret.Secret)
	var me map[string]any
	api.get("/api/v1/me").json(t, &me)
	if v, ok := me["team"]; !ok || v != nil {
		t.Errorf("/api/v1/me of a volunteer in no team: team = %v", v)
	}
	id := e.createTeam(t, e.bobC, teamForm("type", "6"))
	got := api.get("/api/v1/teams/" + strconv.FormatInt(id, 10))
	var team map[string]any
	got.json(t, &team)
	want := map[string]any{"id": float64(id), "name": "Crunchers", "type": float64(6), "country": "Germany",
		"members": float64(1), "total_credit": float64(0), "expavg_credit": float64(0)}
	for k, v := range want {
		if team[k] != v {
			t.Errorf("team %s = %v, want %v", k, team[k], v)
		}
	}
	if len(team) != len(want) {
		t.Errorf("team has fields %v", team)
	}
	api.get("/api/v1/me").json(t, &me)
	if mt, _ := me["team"].(map[string]any); mt["id"] != float64(id) || mt["founder"] != true {
		t.Errorf("/api/v1/me team = %v", me["team"])
	}
	for _, p := range []string{"/api/v1/teams/999999", "/api/v1/teams/x"} {
		if got := api.get(p); got.status != http.StatusNotFound {
			t.Errorf("%s: %d", p, got.status)
		}
	}
}

// No public team answer holds anything private of a member: not their
// email, computers, locations or CPID (the markers of newPublicEnv), nor
// the invitation code.
func TestTeamPagesHoldNothingPrivate(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	ctx := context.Background()
	if _, err := e.pool.Exec(ctx, `UPDATE users SET email_confirmed_at = now()`); err != nil {
		t.Fatal(err)
	}
	e.setPublic(t, everything("ada-l"), http.StatusSeeOther)
	tm, err := e.store.Teams.CreateTeam(ctx, e.ada.ID, accounting.NewTeam{Name: "Markers", Type: 1, Open: true}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	code, err := e.store.Teams.Invite(ctx, e.ada.ID, tm.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.Ledger.RebuildRollups(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	path := "/teams/" + strconv.FormatInt(tm.ID, 10)
	visitor := e.browser()
	for _, p := range []string{"/teams", path, path + "?days=365", path + "/badge.svg", path + "/badge.png", "/leaderboards"} {
		status, body, _ := do(t, visitor, "GET", e.http.URL+p, nil, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s: status %d", p, status)
		}
		for _, m := range append(e.markers, code) {
			if strings.Contains(strings.ToLower(body), m) {
				t.Errorf("%s holds the private %s", p, m)
			}
		}
		if p == path && !strings.Contains(body, `href="/v/ada-l"`) {
			t.Errorf("the team page does not name its public member: %s", body)
		}
	}
}

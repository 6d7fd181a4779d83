package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// A new volunteer, with no computer, reads how to connect one before the
// table of zeros and the empty chart.
func TestNewVolunteerDashboardConnectFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login("new@example.org", false)
	status, page, _ := do(t, c, "GET", e.http.URL+"/", nil, nil)
	connect, totals := strings.Index(page, `id="connect"`), strings.Index(page, `class="data totals`)
	if status != http.StatusOK || connect < 0 || totals < 0 || connect > totals {
		t.Errorf("status %d: the connect steps at %d, the totals at %d", status, connect, totals)
	}
}

// Every page's icon is served where browsers look for it.
func TestFavicon(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	status, body, h := do(t, e.browser(), "GET", e.http.URL+"/favicon.ico", nil, nil)
	if status != http.StatusOK || len(body) == 0 || !strings.HasPrefix(h.Get("Content-Type"), "image/") {
		t.Errorf("GET /favicon.ico: status %d, %d bytes of %q", status, len(body), h.Get("Content-Type"))
	}
	_, page, _ := do(t, e.browser(), "GET", e.http.URL+"/login", nil, nil)
	if !strings.Contains(page, `rel="icon"`) {
		t.Error("the pages name no icon")
	}
}

// walkHost joins a volunteer's computer with the Fixture project attached
// and returns the volunteer's browser, the computer's page and the join
// reply (for follow-up RPCs).
func walkHost(t *testing.T, e *env) (*http.Client, string, *reply, accounting.Project) {
	t.Helper()
	ctx := context.Background()
	u := e.user("vol@example.org", "secret-pass")
	p := e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	status, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if status != http.StatusOK || join.ErrorNum != 0 {
		t.Fatalf("join: status %d, error %q", status, join.ErrorMsg)
	}
	if status, sync := e.rpc(join.followUp(fixture(t, "3-sync-with-ec.request.xml", "vol@example.org", "x"))); status != http.StatusOK || sync.ErrorNum != 0 {
		t.Fatalf("sync: status %d, error %q", status, sync.ErrorMsg)
	}
	cs, err := e.store.Computers.Computers(ctx, u.ID, e.store.Ledger.Today(time.Now(), "UTC"))
	if err != nil || len(cs) != 1 {
		t.Fatalf("computers %v, %v", cs, err)
	}
	return e.session(t, "vol@example.org", "secret-pass"), "/computers/" + strconv.FormatInt(cs[0].ID, 10), join, p
}

// whyCell returns the text of the "Why" cell of the computer page's row
// of project name.
func whyCell(t *testing.T, page, name string) string {
	t.Helper()
	m := regexp.MustCompile(`<th scope="row">` + regexp.QuoteMeta(name) + `(?s:.*?)</th><td data-label="Why">([^<]*)</td>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no row of %s with a Why cell:\n%s", name, page)
	}
	return html.UnescapeString(m[1])
}

// A project set to never on a computer says, under Why, that the computer
// is finishing its tasks and leaving it, and later that it has left.
func TestNeverProjectSaysWhy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, path, join, p := walkHost(t, e)
	_, page, _ := do(t, c, "GET", e.http.URL+path, nil, nil)
	if why := whyCell(t, page, "Fixture"); why == "" || why == "–" {
		t.Errorf("an assigned project's Why reads %q", why)
	}
	form := url.Values{"project-" + strconv.FormatInt(p.ID, 10): {"never"}}
	if status, _, _ := do(t, c, "POST", e.http.URL+path+"/projects", form, nil); status != http.StatusSeeOther {
		t.Fatalf("setting never: status %d", status)
	}
	// The client still lists the project, and is told to leave it.
	if status, sync := e.rpc(join.followUp(fixture(t, "3-sync-with-ec.request.xml", "vol@example.org", "x"))); status != http.StatusOK ||
		sync.account(fixtureURL) == nil || sync.account(fixtureURL).DetachWhenDone == nil {
		t.Fatalf("sync after never: status %d, reply:\n%s", status, sync.Raw)
	}
	_, page, _ = do(t, c, "GET", e.http.URL+path, nil, nil)
	if why := whyCell(t, page, "Fixture"); !strings.Contains(why, "never on this computer") || !strings.Contains(why, "finishing") {
		t.Errorf("a project being left reads %q", why)
	}
	// The client no longer lists it.
	if status, _ := e.rpc(join.followUp(fixture(t, "1-join.request.xml", "vol@example.org", "x"))); status != http.StatusOK {
		t.Fatalf("sync without the project: status %d", status)
	}
	_, page, _ = do(t, c, "GET", e.http.URL+path, nil, nil)
	if why := whyCell(t, page, "Fixture"); !strings.Contains(why, "never on this computer") || !strings.Contains(why, "has left it") {
		t.Errorf("a project left reads %q", why)
	}
}

// Disconnecting asks first: the first POST shows a confirmation and
// changes nothing; the confirmed one disconnects. Afterwards the
// computer's page shows it is disconnected, whatever its address, and
// offers no settings forms.
func TestDisconnectAsksFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, path, _, _ := walkHost(t, e)
	status, page, _ := do(t, c, "POST", e.http.URL+path+"/disconnect", url.Values{}, nil)
	if status != http.StatusOK || !strings.Contains(page, `name="confirm" value="yes"`) || !strings.Contains(page, `href="`+path+`"`) {
		t.Errorf("unconfirmed disconnect: status %d:\n%s", status, page)
	}
	if _, page, _ = do(t, c, "GET", e.http.URL+path, nil, nil); strings.Contains(page, "is disconnected") || !strings.Contains(page, path+"/disconnect") {
		t.Fatal("the unconfirmed POST disconnected the computer")
	}
	status, _, h := do(t, c, "POST", e.http.URL+path+"/disconnect", url.Values{"confirm": {"yes"}}, nil)
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), path) {
		t.Fatalf("confirmed disconnect: status %d to %q", status, h.Get("Location"))
	}
	_, page, _ = do(t, c, "GET", e.http.URL+path, nil, nil)
	if !strings.Contains(page, "is disconnected") {
		t.Error("the computer's own page does not say it is disconnected")
	}
	for _, form := range []string{"/name", "/location", "/projects", "/disconnect"} {
		if strings.Contains(page, `action="`+path+form+`"`) {
			t.Errorf("a disconnected computer's page still offers %s", form)
		}
	}
}

// The admin host page leads on: admin navigation, the volunteer linked to
// their admin page, each project to its report; an unknown project host
// id reads as unknown, not 0; a new host's chart has no days from before
// it existed.
func TestAdminHostPageLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user("vol@example.org", "secret-pass")
	p := e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	if status, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")); status != http.StatusOK || join.ErrorNum != 0 {
		t.Fatalf("join: status %d, error %q", status, join.ErrorMsg)
	}
	var hostID int64
	if err := e.pool.QueryRow(context.Background(), `SELECT id FROM hosts`).Scan(&hostID); err != nil {
		t.Fatal(err)
	}
	admin := e.login("admin@example.org", true)
	status, page, _ := do(t, admin, "GET", e.http.URL+"/admin/hosts/"+itoa(hostID), nil, nil)
	for _, want := range []string{`<nav class="tabs" aria-label="Admin">`, `href="/admin/users/` + itoa(u.ID) + `"`,
		`href="/admin/projects/` + itoa(p.ID) + `/reconciliation"`, "Project host id not known yet", "1 day,"} {
		if status != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("host page (status %d) lacks %s", status, want)
		}
	}
	if strings.Contains(page, "Project host id 0") || strings.Contains(page, "60 days,") {
		t.Error("the host page shows project host id 0 or days from before the host")
	}
}

// Disabling an account is drawn as the destructive action it is.
func TestAdminDisableIsDanger(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user("vol@example.org", "secret-pass")
	admin := e.login("admin@example.org", true)
	_, page, _ := do(t, admin, "GET", e.http.URL+"/admin/users/"+itoa(u.ID), nil, nil)
	if !regexp.MustCompile(`<button [^>]*class="danger"[^>]*id="disable"`).MatchString(page) {
		t.Error("the disable button is not a danger button")
	}
}

// The computers page names each computer's location; the expired-link
// page links where a new link comes from; logging out says so, once.
func TestSmallerWalkFindings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, path, _, _ := walkHost(t, e)
	if status, _, _ := do(t, c, "POST", e.http.URL+"/settings/locations", url.Values{"name": {"Work"}}, nil); status != http.StatusSeeOther {
		t.Fatalf("adding a location: status %d", status)
	}
	if status, _, _ := do(t, c, "POST", e.http.URL+path+"/location", url.Values{"location": {"Work"}}, nil); status != http.StatusSeeOther {
		t.Fatalf("moving the computer: status %d", status)
	}
	_, page, _ := do(t, c, "GET", e.http.URL+"/computers", nil, nil)
	if !regexp.MustCompile(`<dt>Location</dt><dd><a href="[^"]*">Work</a></dd>`).MatchString(page) {
		t.Errorf("the computers page does not name the location:\n%s", page)
	}
	status, page, _ := do(t, e.browser(), "GET", e.http.URL+"/password/reset/not-a-token", nil, nil)
	if status != http.StatusGone || !strings.Contains(page, `<a href="/password/forgot">`) || strings.Contains(page, "at /password/forgot") {
		t.Errorf("expired link: status %d, no link to /password/forgot", status)
	}
	status, _, h := do(t, c, "POST", e.http.URL+"/logout", url.Values{}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/" {
		t.Fatalf("log out: status %d to %q", status, h.Get("Location"))
	}
	if _, page, _ = do(t, c, "GET", e.http.URL+"/", nil, nil); !strings.Contains(page, "You are logged out.") {
		t.Error("the page after logging out does not say so")
	}
	if _, page, _ = do(t, c, "GET", e.http.URL+"/", nil, nil); strings.Contains(page, "You are logged out.") {
		t.Error("the logged-out notice stays on the next page")
	}
}

package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// The routes of issue 18: locations in settings, and a computer's own
// location, name and project choices on its page; each change shows, and
// the reply carries the venues and the computer's.
func TestLocationRoutes(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	c, base := e.adaClient, e.http.URL
	alpha := "/computers/" + strconv.FormatInt(e.adaHosts[0].ID, 10)
	posts := []struct {
		path string
		form url.Values
		to   string
	}{
		{"/settings/locations", url.Values{"name": {"home"}}, "/settings?saved=location-add"},
		{"/settings/locations", url.Values{"name": {"Laptop café"}}, "/settings?saved=location-add"},
		{"/settings/locations", url.Values{"name": {"Laptop"}, "rename_from": {"Laptop café"}}, "/settings?saved=location-rename"},
		{"/settings/compute", url.Values{"location": {"Laptop"}, "preset": {"low_power"}}, "/settings/compute?saved=1&location=Laptop"},
		{"/settings/compute", url.Values{"preset": {"maximum"}}, "/settings/compute?saved=1"},
		{alpha + "/location", url.Values{"location": {"Laptop"}}, alpha + "?saved=location"},
		{alpha + "/name", url.Values{"name": {"Ada's laptop"}}, alpha + "?saved=name"},
		{alpha + "/projects", url.Values{"project-" + itoa(e.projects[1].ID): {"never"}}, alpha + "?saved=projects"},
	}
	for _, p := range posts {
		if status, _, h := do(t, c, "POST", base+p.path, p.form, nil); status != http.StatusSeeOther || h.Get("Location") != p.to {
			t.Fatalf("POST %s %v: status %d location %q, want 303 to %s", p.path, p.form, status, h.Get("Location"), p.to)
		}
	}
	_, page, _ := do(t, c, "GET", base+"/settings", nil, nil)
	for _, want := range []string{`id="locations"`, "<h3>Laptop</h3>", "<h3>home</h3>", "Ada&#39;s laptop</a>"} {
		if !strings.Contains(page, want) {
			t.Errorf("settings page lacks %q", want)
		}
	}
	_, page, _ = do(t, c, "GET", base+"/settings/compute?location=Laptop", nil, nil)
	for _, want := range []string{`<strong aria-current="page">Laptop</strong>`, `value="low_power" checked`,
		`name="location" value="Laptop"`, `href="/settings/compute"`} {
		if !strings.Contains(page, want) {
			t.Errorf("compute settings page lacks %q", want)
		}
	}
	_, page, _ = do(t, c, "GET", base+alpha+"?saved=location", nil, nil)
	for _, want := range []string{"<h1>Ada&#39;s laptop</h1>", "In force at Laptop: Low power", "<dd>50 %</dd>",
		`<option value="Laptop" selected>`, `<option value="never" selected>Never on this computer`, "picks it up at its next contact"} {
		if !strings.Contains(page, want) {
			t.Errorf("computer page lacks %q", want)
		}
	}
	_, page, _ = do(t, c, "GET", base+"/computers", nil, nil)
	if !strings.Contains(page, "Ada&#39;s laptop") || strings.Contains(page, "alpha&lt;script&gt;</a>") {
		t.Error("the computers page does not show the nickname instead of the client's name")
	}
	// Deleting the location moves the computer back to Default.
	if status, _, _ := do(t, c, "POST", base+"/settings/locations/delete", url.Values{"name": {"Laptop"}}, nil); status != http.StatusSeeOther {
		t.Fatalf("delete: status %d", status)
	}
	if _, page, _ = do(t, c, "GET", base+alpha, nil, nil); !strings.Contains(page, "In force at Default: Maximum") {
		t.Error("the computer is not at Default after its location was deleted")
	}
}

// Bad input gets 422 with the field's message and stores nothing; another
// volunteer's computer is not found.
func TestLocationRoutesBadInput(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	c, base := e.adaClient, e.http.URL
	alpha := "/computers/" + strconv.FormatInt(e.adaHosts[0].ID, 10)
	bobs := "/computers/" + strconv.FormatInt(e.bobHosts[0].ID, 10)
	for _, n := range []string{"home", "work", "school", "a", "b", "c", "d", "e"} {
		if status, _, _ := do(t, c, "POST", base+"/settings/locations", url.Values{"name": {n}}, nil); status != http.StatusSeeOther {
			t.Fatalf("add %s: status %d", n, status)
		}
	}
	before := dbSnapshot(t, e)
	bad := []struct {
		path string
		form url.Values
		msg  string
	}{
		{"/settings/locations", url.Values{"name": {"ninth"}}, "at most 8 locations"},
		{"/settings/locations", url.Values{"name": {"<b>x</b>"}, "rename_from": {"home"}}, "other than &lt; &gt; &amp;"},
		{"/settings/locations", url.Values{"name": {"a\x01b"}, "rename_from": {"home"}}, `class="field-error"`},
		{"/settings/locations", url.Values{"name": {"bad\xffname"}, "rename_from": {"home"}}, `class="field-error"`},
		{"/settings/locations", url.Values{"name": {strings.Repeat("x", 33)}, "rename_from": {"home"}}, "at most 32 characters"},
		{"/settings/locations", url.Values{"name": {"office"}, "rename_from": {"nowhere"}}, "Choose one of your locations"},
		{"/settings/locations/delete", url.Values{"name": {"nowhere"}}, "Choose one of your locations"},
		{"/settings/compute", url.Values{"location": {"nowhere"}, "preset": {"maximum"}}, "Choose one of your locations"},
		{alpha + "/location", url.Values{"location": {"nowhere"}}, "Choose one of your locations"},
		{alpha + "/name", url.Values{"name": {strings.Repeat("n", 65)}}, "at most 64 characters"},
		{alpha + "/name", url.Values{"name": {"<i>me</i>"}}, "other than &lt; and &gt;"},
		{alpha + "/projects", url.Values{"project-999999": {"never"}}, "Choose among the projects listed"},
		{alpha + "/projects", url.Values{"project-" + itoa(e.projects[0].ID): {"sometimes"}}, "follow my settings, always or never"},
	}
	for _, b := range bad {
		status, page, _ := do(t, c, "POST", base+b.path, b.form, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(page, b.msg) {
			t.Errorf("POST %s %q: status %d, want 422 with %q", b.path, b.form, status, b.msg)
		}
	}
	for _, p := range []string{"/location", "/name", "/projects"} {
		form := url.Values{"location": {"home"}, "name": {"mine"}, "project-" + itoa(e.projects[0].ID): {"never"}}
		if status, _, _ := do(t, c, "POST", base+bobs+p, form, nil); status != http.StatusNotFound {
			t.Errorf("POST %s on Bob's computer: status %d, want 404", p, status)
		}
	}
	if after := dbSnapshot(t, e); after != before {
		t.Errorf("bad input changed the database:\nbefore %s\nafter  %s", before, after)
	}
}

// dbSnapshot is what bad input must leave alone.
func dbSnapshot(t *testing.T, e *volunteerEnv) string {
	t.Helper()
	var out string
	err := e.pool.QueryRow(context.Background(), `SELECT concat_ws(' | ',
		(SELECT string_agg(concat_ws(',', user_id, name, preset, prefs::text, mod_time), ';' ORDER BY id) FROM locations),
		(SELECT string_agg(concat_ws(',', id, location_id, nickname), ';' ORDER BY id) FROM hosts),
		(SELECT string_agg(concat_ws(',', host_id, project_id, choice), ';') FROM host_project_choices),
		(SELECT string_agg(concat_ws(',', user_id, prefs::text, mod_time), ';') FROM compute_prefs),
		(SELECT string_agg(prefs_version::text, ',' ORDER BY id) FROM users))`).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The reply carries one venue per location and the computer's venue.
func TestLocationsInTheReply(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login("vol@example.org", false)
	base := e.http.URL
	for _, n := range []string{"home", "Büro 2"} {
		do(t, c, "POST", base+"/settings/locations", url.Values{"name": {n}}, nil)
	}
	do(t, c, "POST", base+"/settings/compute", url.Values{"location": {"Büro 2"}, "preset": {"low_power"}}, nil)
	_, rep := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "long-enough"))
	// Default was never chosen: the computer there keeps its own settings.
	if strings.Contains(rep.Raw, "global_preferences") || strings.Contains(rep.Raw, "host_venue") {
		t.Errorf("a computer at an unchosen Default is sent preferences:\n%s", rep.Raw)
	}
	var hostID int64
	if err := e.pool.QueryRow(context.Background(), `SELECT id FROM hosts`).Scan(&hostID); err != nil {
		t.Fatal(err)
	}
	do(t, c, "POST", base+"/computers/"+itoa(hostID)+"/location", url.Values{"location": {"Büro 2"}}, nil)
	_, rep = e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "long-enough"))
	for _, want := range []string{"<venue name=\"Büro 2\">\n            <max_ncpus_pct>50</max_ncpus_pct>",
		"<host_venue>Büro 2</host_venue>"} {
		if !strings.Contains(rep.Raw, want) {
			t.Errorf("reply lacks %q:\n%s", want, rep.Raw)
		}
	}
	if strings.Contains(rep.Raw, `<venue name="home">`) {
		t.Errorf("a computer at Büro 2 is sent another location's venue:\n%s", rep.Raw)
	}
}

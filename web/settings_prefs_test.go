package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

var modTime = regexp.MustCompile(`<mod_time>([0-9.]+)</mod_time>`)

func TestSettingsPreferencesReachTheReply(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login("vol@example.org", false)
	astro := e.project(accounting.Project{URL: fixtureURL, Name: "Fixture", Keywords: []int{1}})
	bio := e.project(accounting.Project{URL: "https://bio.example.org/", Name: "Bio", Keywords: []int{9, 11}})
	other := e.project(accounting.Project{URL: "https://other.example.org/", Name: "Other"})
	base := e.http.URL

	// A volunteer who never chose gets no global preferences.
	_, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "long-enough"))
	if strings.Contains(join.Raw, "global_preferences") || strings.Contains(join.Raw, "user_keywords") {
		t.Errorf("reply to a volunteer who never chose carries preferences:\n%s", join.Raw)
	}

	// Each section has its own page; /settings sums them up and links them.
	for path, want := range map[string]string{"/settings/science": "Protein research", "/settings/projects": "Bio",
		"/settings/compute": "Low power", "/settings": `href="/settings/science"`} {
		if status, page, _ := do(t, c, "GET", base+path, nil, nil); status != http.StatusOK || !strings.Contains(page, want) {
			t.Fatalf("%s: status %d, want a page with %q", path, status, want)
		}
	}
	posts := []struct {
		path string
		form url.Values
	}{
		{"/settings/compute", url.Values{"preset": {"low_power"}}},
		{"/settings/science", url.Values{"kw-1": {"no"}, "kw-11": {"yes"}, "kw-6": {"maybe"}}},
		{"/settings/projects", url.Values{"project-" + itoa(other.ID): {"never"}, "project-" + itoa(bio.ID): {"always"}}},
	}
	for _, p := range posts {
		if status, _, h := do(t, c, "POST", base+p.path, p.form, nil); status != http.StatusSeeOther ||
			h.Get("Location") != p.path+"?saved=1" {
			t.Fatalf("POST %s: status %d location %q, want the section's page", p.path, status, h.Get("Location"))
		}
	}
	for path, wants := range map[string][]string{
		"/settings/compute?saved=1": {`value="low_power" checked`, "compute settings are saved"},
		"/settings/science?saved=1": {`aria-label="Astronomy: no" checked`, `aria-label="Protein research: yes" checked`,
			"science choices are saved"},
		"/settings/projects?saved=1": {`aria-label="Other: never" checked`, `aria-label="Bio: always" checked`},
		"/settings": {"Yes to Protein research; no to Astronomy; maybe to the rest.",
			"Always Bio; never Other; Cobble chooses among the others.", "Low power."},
	} {
		_, page, _ := do(t, c, "GET", base+path, nil, nil)
		for _, want := range wants {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %q after saving", path, want)
			}
		}
	}
	// Sub-areas and locations fold; the answered ones are open.
	_, page, _ := do(t, c, "GET", base+"/settings/science", nil, nil)
	for summary, open := range map[string]bool{"Biology and Medicine: 8 more": true, "Astronomy: 4 more": false,
		"Where the research is done (31 places)": false} {
		i := strings.Index(page, "<summary>"+summary+"</summary>")
		if i < 0 {
			t.Errorf("no folded %q", summary)
			continue
		}
		tag := page[strings.LastIndex(page[:i], "<details"):i]
		if strings.Contains(tag, " open") != open {
			t.Errorf("%q: %s, want open %v", summary, tag, open)
		}
	}

	_, rep := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "long-enough"))
	for _, want := range []string{"<max_ncpus_pct>50</max_ncpus_pct>", "<cpu_usage_limit>60</cpu_usage_limit>",
		"<run_if_user_active>0</run_if_user_active>", "<yes>11</yes>", "<no>1</no>"} {
		if !strings.Contains(rep.Raw, want) {
			t.Errorf("reply lacks %s:\n%s", want, rep.Raw)
		}
	}
	if a := rep.account(astro.URL); a != nil && a.DetachWhenDone == nil {
		t.Errorf("a project with a no keyword is still worked for:\n%s", rep.Raw)
	}
	if rep.account(bio.URL) == nil || rep.account(other.URL) != nil {
		t.Errorf("always/never not followed:\n%s", rep.Raw)
	}
	first := modTime.FindStringSubmatch(rep.Raw)

	// The same preset again keeps mod_time; another changes it.
	do(t, c, "POST", base+"/settings/compute", url.Values{"preset": {"low_power"}}, nil)
	_, rep = e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "long-enough"))
	if again := modTime.FindStringSubmatch(rep.Raw); first == nil || again == nil || again[1] != first[1] {
		t.Errorf("mod_time changed without a change: %v then %v", first, again)
	}
	do(t, c, "POST", base+"/settings/compute", url.Values{"preset": {"maximum"}}, nil)
	_, rep = e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "long-enough"))
	if changed := modTime.FindStringSubmatch(rep.Raw); changed == nil || changed[1] == first[1] {
		t.Errorf("mod_time did not change with the values: %v then %v", first, changed)
	}
}

func TestSettingsRejectBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user("vol@example.org", "long-enough")
	c := e.browser()
	if status, _, _ := do(t, c, "POST", e.http.URL+"/login", url.Values{"email": {u.Email}, "password": {"long-enough"}}, nil); status != http.StatusSeeOther {
		t.Fatalf("login: status %d", status)
	}
	p := e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	custom := func(kv ...string) url.Values {
		v := url.Values{"preset": {"custom"}, "max_ncpus_pct": {"80"}, "cpu_usage_limit": {"90"}, "start_hour": {"0"},
			"end_hour": {"0"}, "disk_max_used_gb": {"10"}, "disk_max_used_pct": {"50"},
			"ram_max_used_busy_pct": {"50"}, "ram_max_used_idle_pct": {"90"}}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	tests := []struct {
		name, path string
		form       url.Values
		want       string
	}{
		{"unknown keyword", "/settings/science", url.Values{"kw-999": {"yes"}}, "science areas"},
		{"bad answer", "/settings/science", url.Values{"kw-1": {"perhaps"}}, "yes, maybe or no"},
		{"other field", "/settings/science", url.Values{"kw-x": {"yes"}}, "science areas"},
		{"unknown project", "/settings/projects", url.Values{"project-99999": {"always"}}, "projects listed"},
		{"bad project answer", "/settings/projects", url.Values{"project-" + itoa(p.ID): {"sometimes"}}, "always, automatic or never"},
		{"unknown preset", "/settings/compute", url.Values{"preset": {"turbo"}}, "Low power"},
		{"CPU % too high", "/settings/compute", custom("max_ncpus_pct", "150"), "from 1 to 100"},
		{"not a number", "/settings/compute", custom("cpu_usage_limit", "lots"), "Enter a number"},
		{"NaN", "/settings/compute", custom("cpu_usage_limit", "NaN"), "from 1 to 100"},
		{"schedule ends before it starts", "/settings/compute", custom("start_hour", "10", "end_hour", "8"), "end after it starts"},
		{"invalid UTF-8", "/settings/compute", custom("disk_max_used_gb", "1\xff"), "not valid text"},
	}
	for _, tt := range tests {
		status, page, _ := do(t, c, "POST", e.http.URL+tt.path, tt.form, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(page, tt.want) || !strings.Contains(page, "Nothing was saved") {
			t.Errorf("%s: status %d, want 422 with %q", tt.name, status, tt.want)
		}
	}
	prefs, err := e.store.Computers.Preferences(context.Background(), u.ID)
	if err != nil || len(prefs.Keywords)+len(prefs.Projects) > 0 || prefs.Compute != nil {
		t.Errorf("bad input stored something: %+v, %v", prefs, err)
	}
	if status, _, _ := do(t, e.browser(), "GET", e.http.URL+"/settings", nil, nil); status != http.StatusSeeOther {
		t.Errorf("settings without logging in: status %d, want 303 to the log-in page", status)
	}
}

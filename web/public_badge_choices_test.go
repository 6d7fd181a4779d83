package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// badgeTexts returns the lines of text of Ada's SVG badge.
func (e *publicEnv) badgeTexts(t *testing.T) []string {
	t.Helper()
	status, svg, _ := do(t, e.browser(), "GET", e.http.URL+"/v/ada-l/badge.svg", nil, nil)
	if status != http.StatusOK {
		t.Fatalf("GET badge.svg: status %d", status)
	}
	var out []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// The badge shows exactly what the profile allows: its totals only with
// "My totals" ticked, its science areas only with "My totals per science
// area"; with nothing ticked, the handle and the site's name alone. The
// settings page shows the badge itself beside its code, and says what it
// shows.
func TestBadgeFollowsTheProfile(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	e.setPublic(t, everything("ada-l"), http.StatusSeeOther)
	all := e.badgeTexts(t)
	if len(all) != 3 {
		t.Fatalf("the badge with everything ticked: %q", all)
	}
	credit, areas := all[1], all[2]
	only := func(ticks ...string) url.Values {
		f := url.Values{"handle": {"ada-l"}, "public": {"1"}}
		for _, k := range ticks {
			f.Set(k, "1")
		}
		return f
	}
	for _, c := range []struct {
		name        string
		form        url.Values
		want, never []string
	}{
		{"totals only", only("show_totals"), []string{"ada-l", credit}, []string{areas}},
		{"areas only", only("show_areas"), []string{"ada-l", areas}, []string{credit}},
		{"projects and chart", only("show_projects", "show_chart"), []string{"ada-l"}, []string{credit, areas}},
		{"nothing", only(), []string{"ada-l"}, []string{credit, areas}},
	} {
		e.setPublic(t, c.form, http.StatusSeeOther)
		got := e.badgeTexts(t)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: the badge %q lacks %q", c.name, got, w)
			}
		}
		for _, n := range c.never {
			if slices.Contains(got, n) {
				t.Errorf("%s: the badge %q shows %q", c.name, got, n)
			}
		}
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "Cobble Test") }) &&
			len(c.want) == 1 {
			t.Errorf("%s: the badge %q does not name the site", c.name, got)
		}
		_, page, _ := do(t, e.client, "GET", e.http.URL+"/settings/public", nil, nil)
		if !regexp.MustCompile(`<img [^>]*src="/v/ada-l/badge.svg"`).MatchString(page) {
			t.Errorf("%s: /settings/public shows no preview of the badge", c.name)
		}
	}
	for _, c := range []struct {
		form url.Values
		says string
	}{
		{only(), "your handle and the site’s name"},
		{only("show_totals"), "your confirmed credit"},
		{only("show_areas"), "your three largest science areas"},
	} {
		e.setPublic(t, c.form, http.StatusSeeOther)
		_, page, _ := do(t, e.client, "GET", e.http.URL+"/settings/public", nil, nil)
		if !strings.Contains(html.UnescapeString(page), c.says) {
			t.Errorf("/settings/public with %v does not say %q", c.form, c.says)
		}
	}
}

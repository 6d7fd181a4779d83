package web_test

import (
	"context"
	"html"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var newTokenCode = regexp.MustCompile(`<code id="new-token">([^<]+)</code>`)

// makeToken creates an API token named name on /settings/api with the
// volunteer's session c, and returns its secret.
func makeToken(t testing.TB, c *http.Client, base, name string) string {
	t.Helper()
	status, _, h := do(t, c, "POST", base+"/settings/api", url.Values{"name": {name}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/settings/api" {
		t.Fatalf("create token: status %d to %q, want 303 to /settings/api", status, h.Get("Location"))
	}
	return shownToken(t, c, base)
}

// shownToken opens /settings/api after a token was made, and returns the
// secret it shows (once, and not to be cached).
func shownToken(t testing.TB, c *http.Client, base string) string {
	t.Helper()
	status, page, h := do(t, c, "GET", base+"/settings/api", nil, nil)
	m := newTokenCode.FindStringSubmatch(page)
	if status != http.StatusOK || m == nil || h.Get("Cache-Control") != "no-store" {
		t.Fatalf("the page after making a token: status %d, Cache-Control %q, secret shown %v", status, h.Get("Cache-Control"), m != nil)
	}
	return html.UnescapeString(m[1])
}

// Every route answers the volunteer's own data, validated against the
// OpenAPI document, with ETags, private caching and pages.
func TestAPIAnswersTheVolunteersOwnData(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	ctx := context.Background()
	api := newAPIClient(t, e.http.URL, makeToken(t, e.adaClient, e.http.URL, "my script"))

	var me struct {
		ID               int64
		Name             string
		TimeZone         string `json:"time_zone"`
		Totals           struct{ Estimated, Confirmed float64 }
		ConfirmedThrough *string `json:"confirmed_through"`
	}
	a := api.get("/api/v1/me")
	a.json(t, &me)
	today := e.store.Ledger.Today(time.Now(), "UTC")
	sum, err := e.store.Ledger.Summary(ctx, e.ada.ID, today)
	if err != nil {
		t.Fatal(err)
	}
	if a.status != 200 || me.ID != e.ada.ID || me.TimeZone != "UTC" || me.Totals.Estimated != sum.AllTime.Estimated ||
		me.Totals.Confirmed != sum.AllTime.Confirmed || me.Totals.Confirmed <= 0 {
		t.Errorf("me: %d %+v, want the dashboard's totals %+v", a.status, me, sum.AllTime)
	}
	if cc := a.header.Get("Cache-Control"); !strings.Contains(cc, "private") || a.header.Get("ETag") == "" {
		t.Errorf("me: Cache-Control %q, ETag %q", cc, a.header.Get("ETag"))
	}
	if again := api.get("/api/v1/me", "If-None-Match", a.header.Get("ETag")); again.status != http.StatusNotModified || len(again.body) != 0 {
		t.Errorf("If-None-Match with the ETag: %d %q, want 304", again.status, again.body)
	}
	if again := api.get("/api/v1/me", "If-None-Match", `"something-else"`); again.status != http.StatusOK {
		t.Errorf("If-None-Match with another ETag: %d, want 200", again.status)
	}

	var list struct {
		Computers []struct {
			ID       int64
			HostName string `json:"host_name"`
			Totals   struct{ Estimated float64 }
		}
		NextCursor *string `json:"next_cursor"`
	}
	api.get("/api/v1/computers").json(t, &list)
	if len(list.Computers) != 2 || list.NextCursor != nil || list.Computers[0].Totals.Estimated <= 0 {
		t.Fatalf("computers: %+v", list)
	}
	first := api.get("/api/v1/computers?limit=1")
	first.json(t, &list)
	if len(list.Computers) != 1 || list.NextCursor == nil {
		t.Fatalf("computers, one a page: %+v", list)
	}
	firstID := list.Computers[0].ID
	api.get("/api/v1/computers?limit=1&cursor="+url.QueryEscape(*list.NextCursor)).json(t, &list)
	if len(list.Computers) != 1 || list.Computers[0].ID == firstID || list.NextCursor != nil {
		t.Errorf("computers, the second page: %+v", list)
	}
	host := strconv.FormatInt(e.adaHosts[0].ID, 10)
	if a := api.get("/api/v1/computers/" + host); a.status != 200 || !strings.Contains(string(a.body), `"id":`+host) {
		t.Errorf("computer %s: %d %s", host, a.status, a.body)
	}
	for _, path := range []string{"/api/v1/computers/" + strconv.FormatInt(e.bobHosts[0].ID, 10),
		"/api/v1/computers/0", "/api/v1/computers/abc", "/api/v1/computers/99999999999999999999", "/api/v1/no-such"} {
		if a := api.get(path); a.status != http.StatusNotFound || a.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s, want a 404 problem", path, a.status, a.header.Get("Content-Type"))
		}
	}

	var projects struct {
		Projects []struct {
			ID        int64
			Computers []struct {
				ComputerID int64 `json:"computer_id"`
				Reason     *string
			}
		}
	}
	api.get("/api/v1/projects").json(t, &projects)
	if len(projects.Projects) != 2 || len(projects.Projects[0].Computers) != 2 {
		t.Errorf("projects: %+v", projects)
	}
	checkAPIDays(t, e, api)
	checkAPIEvents(t, api)
}

// checkAPIDays compares a year of days by project with the dashboard's
// history, and the days by computer with the same totals.
func checkAPIDays(t *testing.T, e *volunteerEnv, api *apiClient) {
	t.Helper()
	today := e.store.Ledger.Today(time.Now(), "UTC")
	from := today.AddDate(0, 0, -364)
	hist, err := e.store.Ledger.History(context.Background(), e.ada.ID, 0, from, today)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for _, h := range hist {
		want += h.Estimated()
	}
	q := "?from=" + from.Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly)
	for _, by := range []string{"project", "computer"} {
		var got float64
		var rows int
		cursor := ""
		for page := 0; page < 100; page++ {
			var d struct {
				By         string
				Days       []struct{ Estimated float64 }
				NextCursor *string `json:"next_cursor"`
			}
			api.get("/api/v1/days"+q+"&by="+by+"&limit=7"+cursor).json(t, &d)
			for _, day := range d.Days {
				got += day.Estimated
			}
			rows += len(d.Days)
			if d.By != by || d.NextCursor == nil {
				break
			}
			cursor = "&cursor=" + url.QueryEscape(*d.NextCursor)
		}
		if math.Abs(got-want) > 1e-6*want || want <= 0 || rows < 40 {
			t.Errorf("days by %s over a year: %d rows, estimated %v, want the history's %v", by, rows, got, want)
		}
	}
}

// checkAPIEvents pages through the events, one at a time.
func checkAPIEvents(t *testing.T, api *apiClient) {
	t.Helper()
	var all struct {
		Warnings []struct{ Kind string }
		Events   []struct{ ID int64 }
	}
	api.get("/api/v1/events").json(t, &all)
	if len(all.Events) < 2 {
		t.Fatalf("events: %+v, want the demo data's", all)
	}
	cursor, seen := "", 0
	for range len(all.Events) + 1 {
		var page struct {
			Events     []struct{ ID int64 }
			NextCursor *string `json:"next_cursor"`
		}
		api.get("/api/v1/events?limit=1"+cursor).json(t, &page)
		if len(page.Events) == 1 && page.Events[0].ID != all.Events[seen].ID {
			t.Errorf("event page %d: %d, want %d", seen, page.Events[0].ID, all.Events[seen].ID)
		}
		seen += len(page.Events)
		if page.NextCursor == nil {
			break
		}
		cursor = "&cursor=" + url.QueryEscape(*page.NextCursor)
	}
	if seen != len(all.Events) {
		t.Errorf("paging one at a time saw %d events of %d", seen, len(all.Events))
	}
}

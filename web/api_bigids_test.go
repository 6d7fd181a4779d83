package web_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The ids Cobble keys its rows by are bigint: a cursor or an id above
// int4's 2^31−1 is a position the API may one day give, and is answered
// as one (an empty page, or 404 for no such computer); a cursor that is
// no number at all, or out of int64, is a 422 naming "cursor". None is a
// 500.
func TestAPIIDsBeyondInt4(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	api := newAPIClient(t, e.http.URL, makeToken(t, e.adaClient, e.http.URL, "script"))
	cursor := func(s string) string { return url.QueryEscape(base64.RawURLEncoding.EncodeToString([]byte(s))) }
	now := strconv.FormatInt(time.Now().UnixMicro(), 10)
	const big = "3000000000" // over 2^31−1
	ok := map[string]string{
		"/api/v1/events?cursor=" + cursor("e:"+now+":"+big):                           "events",
		"/api/v1/events?cursor=" + cursor("e:"+now+":9223372036854775807"):            "events",
		"/api/v1/computers?cursor=" + cursor("c:"+big):                                "computers",
		"/api/v1/projects?cursor=" + cursor("p:"+big):                                 "projects",
		"/api/v1/days?cursor=" + cursor("d:"+time.Now().Format("2006-01-02")+":"+big): "days",
	}
	for path, list := range ok {
		a := api.get(path)
		var page map[string]json.RawMessage
		json.Unmarshal(a.body, &page)
		if a.status != http.StatusOK || page[list] == nil {
			t.Errorf("%s: %d %s, want 200 with %s", path, a.status, a.body, list)
		}
	}
	for _, id := range []string{big, "9223372036854775807", "9223372036854775808", "-" + big} {
		if a := api.get("/api/v1/computers/" + id); a.status != http.StatusNotFound ||
			a.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("computer %s: %d %s, want a 404 problem", id, a.status, a.body)
		}
	}
	for _, path := range []string{
		"/api/v1/events?cursor=" + cursor("e:"+now+":9223372036854775808"),
		"/api/v1/events?cursor=" + cursor("e:"+now+":-"+big),
		"/api/v1/computers?cursor=" + cursor("c:9223372036854775808"),
		"/api/v1/projects?cursor=" + cursor("p:-1"),
		"/api/v1/days?cursor=" + cursor("d:2026-01-01:99999999999999999999"),
	} {
		a := api.get(path)
		if a.status != http.StatusUnprocessableEntity || !strings.Contains(string(a.body), `"name":"cursor"`) {
			t.Errorf("%s: %d %s, want 422 naming cursor", path, a.status, a.body)
		}
	}
}

// The pages that take an id from the address or the query answer one over
// int4's range as they answer any id that is not there: never a 500.
func TestPagesIDsBeyondInt4(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	admin := e.login("admin@example.org", true)
	const big = "3000000000"
	for _, c := range []struct {
		client       *http.Client
		method, path string
		want         int
	}{
		{e.adaClient, "GET", "/computers/" + big, http.StatusNotFound},
		{e.adaClient, "POST", "/computers/" + big + "/pause", http.StatusNotFound},
		{e.adaClient, "POST", "/settings/api/" + big + "/revoke", http.StatusNotFound},
		{admin, "GET", "/admin/audit?before=" + big, http.StatusOK},
		{admin, "GET", "/admin/hosts/" + big, http.StatusNotFound},
		{admin, "GET", "/admin/runs/" + big, http.StatusNotFound},
		{admin, "GET", "/admin/projects/" + big + "/reconciliation", http.StatusNotFound},
		{admin, "GET", "/admin/users/" + big, http.StatusNotFound},
	} {
		var form url.Values
		if c.method == "POST" {
			form = url.Values{"mode": {"pause"}}
		}
		if status, page, _ := do(t, c.client, c.method, e.http.URL+c.path, form, nil); status != c.want {
			t.Errorf("%s %s: %d, want %d\n%.300s", c.method, c.path, status, c.want, page)
		}
	}
}

package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/web"
)

// requestIDField is the one part of a problem that differs between two
// requests.
var requestIDField = regexp.MustCompile(`"request_id":"[^"]*"`)

// A missing, malformed, made-up or revoked token, another scheme, or a
// session's cookie: each is a 401 problem, in the same bytes but for the
// request's id, and with the same headers.
func TestAPIRefusesWithoutAValidToken(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	base := e.http.URL
	revoked := makeToken(t, e.adaClient, base, "old")
	status, page, _ := do(t, e.adaClient, "GET", base+"/settings/api", nil, nil)
	id := regexp.MustCompile(`/settings/api/(\d+)/revoke`).FindStringSubmatch(page)
	if status != 200 || id == nil {
		t.Fatalf("settings/api: %d, no revoke form", status)
	}
	if status, _, _ := do(t, e.adaClient, "POST", base+"/settings/api/"+id[1]+"/revoke", url.Values{}, nil); status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", status)
	}
	madeUp := "cobble_" + strings.Repeat("Q", 43)
	cases := map[string][]string{
		"missing":        nil,
		"empty bearer":   {"Authorization", "Bearer "},
		"malformed":      {"Authorization", "Bearer not-a-token"},
		"made up":        {"Authorization", "Bearer " + madeUp},
		"revoked":        {"Authorization", "Bearer " + revoked},
		"basic":          {"Authorization", "Basic " + revoked},
		"no scheme":      {"Authorization", revoked},
		"odd bytes":      {"Authorization", "Bearer cobble_\xff\xfe"},
		"too long":       {"Authorization", "Bearer " + strings.Repeat("x", 5000)},
		"session cookie": {"Cookie", "x=y"}, // replaced by Ada's session below
	}
	var first string
	var firstHeader http.Header
	for name, header := range cases {
		api := newAPIClient(t, base, "")
		if name == "session cookie" {
			api.client, header = e.adaClient, nil
		}
		a := api.get("/api/v1/me", header...)
		body := requestIDField.ReplaceAllString(string(a.body), `"request_id":""`)
		if a.status != http.StatusUnauthorized || a.header.Get("Content-Type") != "application/problem+json" ||
			!strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: %d %s %q", name, a.status, a.header.Get("Content-Type"), a.header.Get("WWW-Authenticate"))
		}
		if first == "" {
			first, firstHeader = body, a.header
		} else if body != first {
			t.Errorf("%s answered other bytes:\n%s\nthan\n%s", name, body, first)
		}
		for _, h := range []string{"RateLimit", "ETag", "Set-Cookie"} {
			if a.header.Get(h) != firstHeader.Get(h) || a.header.Get(h) != "" {
				t.Errorf("%s: header %s %q", name, h, a.header.Get(h))
			}
		}
	}
}

// A token is no web session and no AM authenticator or password: pages
// send its bearer to log in, and the RPC refuses it.
func TestAPITokenIsOnlyForTheAPI(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	secret := makeToken(t, e.adaClient, e.http.URL, "script")
	c := e.browser()
	for _, h := range []http.Header{{"Authorization": {"Bearer " + secret}}, {"Cookie": {"cobble_session=" + secret}}} {
		for _, path := range []string{"/computers", "/settings", "/settings/api", "/export/history.json"} {
			status, _, got := do(t, c, "GET", e.http.URL+path, nil, h)
			if status != http.StatusSeeOther || got.Get("Location") != "/login" {
				t.Errorf("%s with the token as %v: %d to %q, want the log-in page", path, h, status, got.Get("Location"))
			}
		}
	}
	join := fixture(t, "1-join.request.xml", "ada@example.org", "ada-password")
	asAuthenticator := strings.Replace(string(join), "<name>ada@example.org</name>", "<authenticator>"+secret+"</authenticator>", 1)
	asPassword := fixture(t, "1-join.request.xml", "ada@example.org", secret)
	for name, body := range map[string][]byte{"authenticator": []byte(asAuthenticator), "password": asPassword} {
		if _, r := e.rpc(body); r.ErrorNum != boinc.CodeBadPassword || len(r.Accounts) != 0 {
			t.Errorf("the token as the RPC's %s: error %d, %d accounts", name, r.ErrorNum, len(r.Accounts))
		}
	}
}

// Wrong query parameters are 422 problems that name them.
func TestAPIBadParameters(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	api := newAPIClient(t, e.http.URL, makeToken(t, e.adaClient, e.http.URL, "script"))
	cases := map[string]string{
		"/api/v1/days?from=yesterday":                            "from",
		"/api/v1/days?to=2026-13-01":                             "to",
		"/api/v1/days?from=2026-02-30&to=2026-03-01":             "from",
		"/api/v1/days?from=2026-05-02&to=2026-05-01":             "from",
		"/api/v1/days?from=2020-01-01&to=2026-01-01":             "from",
		"/api/v1/days?from=2023-01-01&to=2026-01-02":             "from",
		"/api/v1/days?by=host":                                   "by",
		"/api/v1/days?limit=0":                                   "limit",
		"/api/v1/days?cursor=bm90LWEtY3Vyc29y":                   "cursor",
		"/api/v1/computers?limit=501":                            "limit",
		"/api/v1/computers?limit=ten":                            "limit",
		"/api/v1/computers?cursor=%E2%82%AC":                     "cursor",
		"/api/v1/projects?cursor=" + "Yzox":                      "cursor", // a cursor of computers
		"/api/v1/events?cursor=ZTp4Onk":                          "cursor",
		"/api/v1/events?cursor=ZTotOTIyMzM3MjAzNjg1NDc3NTgwNzox": "cursor", // a time before PostgreSQL's first
		"/api/v1/days?from=2026-01-01%00&to=2026-01-02":          "from",
	}
	for path, param := range cases {
		a := api.get(path)
		var p struct {
			Status        int
			InvalidParams []struct{ Name, Reason string } `json:"invalid_params"`
		}
		json.Unmarshal(a.body, &p)
		if a.status != http.StatusUnprocessableEntity || p.Status != 422 || len(p.InvalidParams) == 0 ||
			p.InvalidParams[0].Name != param || p.InvalidParams[0].Reason == "" {
			t.Errorf("%s: %d %s, want 422 naming %s", path, a.status, a.body, param)
		}
	}
	if a := api.get("/api/v1/days?from=2023-01-02&to=2026-01-02"); a.status != http.StatusOK {
		t.Errorf("three years exactly: %d %s", a.status, a.body)
	}
}

// The limit is per token, shared by every instance on the database, and
// said in the RateLimit headers; past it, 429 with Retry-After, until the
// next minute. The instances' clock stands still meanwhile.
func TestAPIRateLimitIsShared(t *testing.T) {
	t.Parallel()
	var at atomic.Int64
	at.Store(time.Now().Truncate(time.Minute).Add(time.Second).UnixNano())
	stopped := func(c *web.Config) { c.Now = func() time.Time { return time.Unix(0, at.Load()) } }
	e := newEnvWith(t, stopped)
	other := newEnvOnWith(t, e.pool, stopped) // a second instance
	e.user("ada@example.org", "long-enough")
	c := e.session(t, "ada@example.org", "long-enough")
	secret := makeToken(t, c, e.http.URL, "busy")
	apis := []*apiClient{newAPIClient(t, e.http.URL, secret), newAPIClient(t, other.http.URL, secret)}
	limit := 120
	for i := range limit {
		a := apis[i%2].get("/api/v1/computers/0")
		if a.status != http.StatusNotFound || a.header.Get("RateLimit") != `"token";r=`+strconv.Itoa(limit-i-1)+";t=59" ||
			a.header.Get("RateLimit-Policy") != `"token";q=120;w=60` {
			t.Fatalf("request %d: %d, RateLimit %q, policy %q", i+1, a.status, a.header.Get("RateLimit"), a.header.Get("RateLimit-Policy"))
		}
	}
	for _, api := range apis {
		a := api.get("/api/v1/me")
		if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") != "59" {
			t.Errorf("past the limit: %d, Retry-After %q", a.status, a.header.Get("Retry-After"))
		}
	}
	fresh := newAPIClient(t, e.http.URL, makeToken(t, c, e.http.URL, "another"))
	if a := fresh.get("/api/v1/me"); a.status != http.StatusOK {
		t.Errorf("another token of the same volunteer: %d, want its own limit", a.status)
	}
	at.Add(int64(time.Minute))
	if a := apis[1].get("/api/v1/me"); a.status != http.StatusOK || a.header.Get("RateLimit") != `"token";r=119;t=59` {
		t.Errorf("the next minute: %d, RateLimit %q", a.status, a.header.Get("RateLimit"))
	}
}

// The API sends no CORS headers, and refuses every method but GET.
func TestAPIHasNoCORS(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	api := newAPIClient(t, e.http.URL, makeToken(t, e.adaClient, e.http.URL, "script"))
	for _, method := range []string{"GET", "OPTIONS", "POST", "DELETE"} {
		a := api.request(method, "/api/v1/me", "Origin", "https://elsewhere.example", "Access-Control-Request-Method", "GET")
		status, h := a.status, a.header
		for name := range h {
			if strings.HasPrefix(name, "Access-Control-") {
				t.Errorf("%s: header %s: %q", method, name, h.Get(name))
			}
		}
		if want := map[bool]int{true: 200, false: 405}[method == "GET"]; status != want {
			t.Errorf("%s: %d, want %d", method, status, want)
		}
	}
}

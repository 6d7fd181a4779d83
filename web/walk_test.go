package web_test

import (
	"net/http"
	"strings"
	"testing"
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

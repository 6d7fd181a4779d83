package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/web"
)

// Pages hold at most PageSlots database-using requests at once, so that
// a burst of them leaves connections to BOINC clients. With every slot
// taken (as by pages at work), a page waits for one until its deadline and
// is answered busy (503 with Retry-After, in the visitor's language), and
// so does the API, while the clients' RPCs and the health check are
// answered at once; when the slots are given back, pages are served again.
func TestPagesLeaveTheClientsTheirConnections(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, func(c *web.Config) { c.PageSlots = 2; c.RequestTimeout = 2 * time.Second })
	e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	release := web.HoldPageSlots(e.srv)
	for _, c := range []struct{ path, lang, want string }{
		{"/credit.json", "de", "Cobble ist ausgelastet"},
		{"/login", "en", "Cobble is busy"},
		{"/api/v1/me", "en", `"status":503`},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, e.http.URL+c.path, nil)
		req.Header.Set("Accept-Language", c.lang)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!strings.Contains(string(body), c.want) {
			t.Errorf("%s while the slots are held: %d, Retry-After %q, want %q in\n%s", c.path, resp.StatusCode,
				resp.Header.Get("Retry-After"), c.want, body)
		}
	}
	if status, r := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")); status != http.StatusOK || r.ErrorNum != 0 {
		t.Errorf("an RPC while the page slots are held: status %d, error %d %q", status, r.ErrorNum, r.ErrorMsg)
	}
	if resp, err := http.Get(e.http.URL + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the health check while the page slots are held: %v, %v", resp, err)
	} else {
		resp.Body.Close()
	}
	release()
	resp, err := http.Get(e.http.URL + "/credit.json")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after the slots were given back: %v, %v", resp, err)
	}
	resp.Body.Close()
}

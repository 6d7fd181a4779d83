package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// withProjects returns req with n more AM-attached <project> blocks of
// made-up URLs, and dup copies of url spelled differently, before its
// global preferences.
func withProjects(req []byte, n int, url string, dup int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<project><url>https://p%d.example.org/</url><attached_via_acct_mgr/></project>\n", i)
	}
	for i := range dup {
		u := strings.ToUpper(strings.TrimSuffix(url, "/"))
		if i%2 == 0 {
			u = strings.Replace(url, "http://", "https://", 1)
		}
		fmt.Fprintf(&b, "<project>\n<url>%s</url>\n<attached_via_acct_mgr>1</attached_via_acct_mgr>\n</project>\n", u)
	}
	return []byte(strings.Replace(string(req), "<working_global_preferences>", b.String()+"<working_global_preferences>", 1))
}

// A request listing 10,000 projects is cut to the first 100 distinct ones
// (the client is told so), and only catalog URLs are signed.
func TestManyProjectsAreCapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	e.project(accounting.Project{URL: "https://second.example.org/", Name: "Second"})
	_, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if join.ErrorNum != 0 {
		t.Fatalf("join: %d %q", join.ErrorNum, join.ErrorMsg)
	}
	req := join.followUp(withProjects(fixture(t, "3-sync-with-ec.request.xml", "vol@example.org", "x"), 10_000, fixtureURL, 50))
	status, rep := e.rpc(req)
	if status != http.StatusOK || rep.ErrorNum != 0 {
		t.Fatalf("status %d, error %d %q", status, rep.ErrorNum, rep.ErrorMsg)
	}
	if len(rep.Accounts) > 100 {
		t.Errorf("the reply has %d accounts, want at most 100", len(rep.Accounts))
	}
	for _, a := range rep.Accounts {
		catalog := a.URL == fixtureURL || a.URL == "https://second.example.org/"
		if !catalog && a.URLSignature != "" {
			t.Errorf("%s is not in the catalog but was signed", a.URL)
			break
		}
		if catalog && a.URLSignature == "" {
			t.Errorf("catalog project %s was not signed", a.URL)
		}
	}
	if !strings.Contains(strings.Join(rep.Messages, "\n"), "100") {
		t.Errorf("no message says the request was cut to 100 projects: %q", rep.Messages)
	}
}

// BenchmarkRPCManyProjects measures the server time of a request that lists
// 10,000 projects against an ordinary steady-state RPC: Cobble's handler
// (with its middleware) called directly, on a real PostgreSQL.
func BenchmarkRPCManyProjects(b *testing.B) {
	e := newEnv(b)
	e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	_, join := e.rpc(fixture(b, "1-join.request.xml", "vol@example.org", "secret-pass"))
	ordinary := join.followUp(fixture(b, "3-sync-with-ec.request.xml", "vol@example.org", "x"))
	many := join.followUp(withProjects(fixture(b, "3-sync-with-ec.request.xml", "vol@example.org", "x"), 10_000, fixtureURL, 0))
	for _, bc := range []struct {
		name string
		req  []byte
	}{{"ordinary", ordinary}, {"10000-projects", many}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.req)))
			h := e.srv.Handler()
			for b.Loop() {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodPost, "/rpc.php", bytes.NewReader(bc.req))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				if h.ServeHTTP(rec, req); rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}

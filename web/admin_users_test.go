package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

func TestAdminLookupDisableEnable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	vol := e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	status, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	if status != 200 || join.ErrorNum != 0 {
		t.Fatalf("join: %d %d", status, join.ErrorNum)
	}
	admin := e.login("admin@example.org", true)
	for q, want := range map[string]string{
		"VOL@":                             "/admin/users/" + itoa(vol.ID),
		"c4771a3760054c4e7da2f2662c8a484c": "/admin/hosts/",
		"vm":                               "vm (host ",
	} {
		_, page, _ := do(t, admin, "GET", e.http.URL+"/admin/lookup?"+url.Values{"q": {q}}.Encode(), nil, nil)
		if !strings.Contains(page, want) {
			t.Errorf("lookup %q lacks %q", q, want)
		}
	}
	if _, page, _ := do(t, admin, "GET", e.http.URL+"/admin/lookup?q=%25", nil, nil); strings.Contains(page, "vol@example.org") {
		t.Error("a % in the lookup is a wildcard")
	}
	_, page, _ := do(t, admin, "GET", e.http.URL+"/admin/users/"+itoa(vol.ID), nil, nil)
	if !strings.Contains(page, "vm (host ") || !strings.Contains(page, `id="disable"`) || strings.Contains(page, "$2a$") ||
		strings.Contains(page, join.Authenticator) {
		t.Errorf("user page:\n%s", page)
	}
	if status, _, _ := do(t, admin, "POST", e.http.URL+"/admin/users/"+itoa(vol.ID)+"/disable", url.Values{}, nil); status != http.StatusSeeOther {
		t.Fatalf("disable: status %d", status)
	}
	sync := strings.Replace(string(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")), "<password_hash>", "<authenticator>"+join.Authenticator+"</authenticator><password_hash>", 1)
	for name, body := range map[string][]byte{"password": fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"), "authenticator": []byte(sync)} {
		status, r := e.rpc(body)
		if status != 200 || r.ErrorNum == 0 || !strings.Contains(r.ErrorMsg, "disabled") {
			t.Errorf("RPC by %s of a disabled account: status %d, error %d %q", name, status, r.ErrorNum, r.ErrorMsg)
		}
	}
	status, page, _ = do(t, e.browser(), "POST", e.http.URL+"/login", url.Values{"email": {"vol@example.org"}, "password": {"secret-pass"}}, nil)
	if status != http.StatusForbidden || !strings.Contains(page, "This account is disabled") {
		t.Errorf("log-in of a disabled account: status %d", status)
	}
	if status, _, _ := do(t, admin, "POST", e.http.URL+"/admin/users/"+itoa(vol.ID)+"/enable", url.Values{}, nil); status != http.StatusSeeOther {
		t.Fatalf("enable: status %d", status)
	}
	if status, r := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")); status != 200 || r.ErrorNum != 0 {
		t.Errorf("RPC after enable: %d %d %q", status, r.ErrorNum, r.ErrorMsg)
	}
	if status, _, _ := do(t, admin, "POST", e.http.URL+"/admin/users/999/disable", url.Values{}, nil); status != http.StatusNotFound {
		t.Errorf("disable of nobody: status %d", status)
	}
	log, err := e.store.Admin.Audit(context.Background(), accounting.AuditFilter{Actor: "admin@example.org"})
	if err != nil || len(log) != 2 || log[0].Kind != accounting.AuditUserEnable || log[1].Kind != accounting.AuditUserDisable {
		t.Errorf("audit: %+v %v", log, err)
	}
}

func TestAdminOverview(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol@example.org", "secret-pass")
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass"))
	e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "wrong-pass"))
	admin := e.login("admin@example.org", true)
	e.srv.Rollup(context.Background())
	status, page, _ := do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil)
	if status != http.StatusOK {
		t.Fatalf("overview: status %d", status)
	}
	for _, want := range []string{"1 answered, 1 error reply, 0 unavailable in 48 hours", `id="hosts-day">1<`, `id="users">2<`,
		"RPCs per hour", "<svg", "Fixture"} {
		if !strings.Contains(page, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	if status, _, h := do(t, admin, "GET", e.http.URL+"/admin/", nil, nil); status != http.StatusSeeOther || h.Get("Location") != "/admin/overview" {
		t.Errorf("/admin/: status %d to %q", status, h.Get("Location"))
	}
}

// TestDisablingEndsOpenSessions: a volunteer logged in on the web when an
// admin disables the account is logged out at their next page.
func TestDisablingEndsOpenSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := e.user("vol@example.org", "secret-pass")
	vol := e.session(t, "vol@example.org", "secret-pass")
	if status, _, _ := do(t, vol, "GET", e.http.URL+"/computers", nil, nil); status != http.StatusOK {
		t.Fatalf("computers before disabling: status %d", status)
	}
	if err := e.store.Admin.SetUserDisabled(context.Background(), accounting.OSActor("test"), u.ID, true); err != nil {
		t.Fatal(err)
	}
	status, _, h := do(t, vol, "GET", e.http.URL+"/computers", nil, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Errorf("computers after disabling: status %d to %q, want 303 to /login", status, h.Get("Location"))
	}
}

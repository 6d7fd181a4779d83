package web_test

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/web"
)

const (
	firefoxLinux = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	safariPhone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)

// as is a browser's headers: its User-Agent, and the address a trusted
// proxy says it comes from.
func as(ua, addr string) http.Header {
	return http.Header{"User-Agent": {ua}, "X-Forwarded-For": {addr}}
}

// logInAs logs a new browser in on e, as the browser ua at addr.
func (e *env) logInAs(email, password string, h http.Header) *http.Client {
	e.t.Helper()
	c := e.browser()
	status, _, _ := do(e.t, c, "POST", e.http.URL+"/login", url.Values{"email": {email}, "password": {password}}, h)
	if status != http.StatusSeeOther {
		e.t.Fatalf("log in %s: status %d", email, status)
	}
	return c
}

// loggedIn reports whether c's session still opens a volunteer page on e.
func (e *env) loggedIn(c *http.Client, h http.Header) bool {
	e.t.Helper()
	status, _, _ := do(e.t, c, "GET", e.http.URL+"/computers", nil, h)
	return status == http.StatusOK
}

// The sessions page lists where the volunteer is logged in, this session
// marked; "log out all other sessions" on one instance ends them at their
// next request on another.
func TestSessionsListAndEndOthers(t *testing.T) {
	t.Parallel()
	trust := func(cfg *web.Config) { cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")} }
	one := newEnvWith(t, trust)
	two := newEnvOnWith(t, one.pool, trust)
	one.user("vol@example.org", "secret-pass")
	laptopH, phoneH := as(firefoxLinux, "192.0.2.10"), as(safariPhone, "2001:db8:1:2::7")
	laptop := one.logInAs("vol@example.org", "secret-pass", laptopH)
	phone := two.logInAs("vol@example.org", "secret-pass", phoneH)

	status, page, _ := do(t, phone, "GET", two.http.URL+"/settings/sessions", nil, phoneH)
	if status != http.StatusOK {
		t.Fatalf("GET /settings/sessions: status %d", status)
	}
	for _, want := range []string{"Firefox 128 on Linux", "Safari 17 on iOS", "192.0.2.10", "2001:db8:1:2::/64",
		`id="end-others"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the sessions page lacks %q", want)
		}
	}
	blocks := strings.Split(page, `<li class="card"`)[1:]
	if len(blocks) != 2 || strings.Count(page, `id="current"`) != 1 {
		t.Fatalf("the sessions page lists %d sessions with %d marked current, want 2 and 1",
			len(blocks), strings.Count(page, `id="current"`))
	}
	for _, block := range blocks {
		phoneBlock := strings.Contains(block, "Safari 17 on iOS")
		if marked := strings.Contains(block, `id="current"`); marked != phoneBlock {
			t.Errorf("a session marked current %v, want only the phone's:\n%s", marked, block)
		}
	}
	status, _, h := do(t, phone, "POST", two.http.URL+"/settings/sessions/end-others", url.Values{}, phoneH)
	if status != http.StatusSeeOther || h.Get("Location") != "/settings/sessions?ended=others" {
		t.Fatalf("end others: status %d to %q", status, h.Get("Location"))
	}
	if one.loggedIn(laptop, laptopH) {
		t.Error("the laptop's session still works on the other instance after 'log out all other sessions'")
	}
	if !two.loggedIn(phone, phoneH) || !one.loggedIn(phone, phoneH) {
		t.Error("the session that ended the others was logged out")
	}
	_, page, _ = do(t, phone, "GET", two.http.URL+"/settings/sessions?ended=others", nil, phoneH)
	if strings.Contains(page, "Firefox 128") || !strings.Contains(page, `id="no-others"`) ||
		!strings.Contains(page, "Your other sessions are logged out") {
		t.Errorf("after ending the others the page still lists them, or says nothing")
	}
	// The route is for logged-in volunteers only, and a POST only.
	if status, _, h := do(t, one.browser(), "GET", one.http.URL+"/settings/sessions", nil, nil); status != http.StatusSeeOther ||
		h.Get("Location") != "/login" {
		t.Errorf("sessions page without a session: status %d to %q", status, h.Get("Location"))
	}
}

// A password change ends the volunteer's other sessions and keeps this
// one; a reset ends every one; a log-out removes its own row.
func TestPasswordChangeResetAndLogoutEndSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	u := e.user("vol@example.org", "secret-pass")
	here, there := e.logInAs("vol@example.org", "secret-pass", nil), e.logInAs("vol@example.org", "secret-pass", nil)
	status, _, _ := do(t, here, "POST", e.http.URL+"/settings/password",
		url.Values{"current_password": {"secret-pass"}, "password": {"second-pass"}}, nil)
	if status != http.StatusSeeOther {
		t.Fatalf("password change: status %d", status)
	}
	if !e.loggedIn(here, nil) || e.loggedIn(there, nil) {
		t.Errorf("after a password change: this session live %v (want true), the other live %v (want false)",
			e.loggedIn(here, nil), e.loggedIn(there, nil))
	}

	there = e.logInAs("vol@example.org", "second-pass", nil)
	if err := e.store.Accounts.RequestPasswordReset(ctx, "vol@example.org"); err != nil {
		t.Fatal(err)
	}
	var secret string
	if err := e.pool.QueryRow(ctx, `SELECT secret FROM mail_outbox WHERE kind = 'password_reset'`).Scan(&secret); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := do(t, e.browser(), "POST", e.http.URL+"/password/reset/"+secret,
		url.Values{"password": {"third-pass"}}, nil); status != http.StatusSeeOther {
		t.Fatalf("reset: status %d", status)
	}
	if e.loggedIn(here, nil) || e.loggedIn(there, nil) {
		t.Error("a session survived a password reset")
	}

	c := e.logInAs("vol@example.org", "third-pass", nil)
	if list, _ := e.store.Access.Sessions(ctx, u.ID); len(list) != 1 {
		t.Fatalf("%d session rows after one log-in, want 1", len(list))
	}
	if status, _, _ := do(t, c, "POST", e.http.URL+"/logout", url.Values{}, nil); status != http.StatusSeeOther {
		t.Fatalf("logout: status %d", status)
	}
	if list, _ := e.store.Access.Sessions(ctx, u.ID); len(list) != 0 {
		t.Errorf("the session's row outlived its log-out: %+v", list)
	}
}

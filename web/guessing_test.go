package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/web"
)

// newProxiedEnv is a Cobble behind a trusted proxy on 127.0.0.1: the
// client address comes from X-Forwarded-For, so a test can speak from
// many addresses.
func newProxiedEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, func(cfg *web.Config) {
		cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
}

// from sends a request as if from the client address addr.
func (e *env) from(addr, method, path string, form url.Values, body string) (int, string) {
	e.t.Helper()
	var req *http.Request
	if form != nil {
		body = form.Encode()
	}
	req, err := http.NewRequest(method, e.http.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := noRedirects.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String()
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (e *env) webLogin(addr, email, password string) int {
	e.t.Helper()
	status, _ := e.from(addr, "POST", "/login", url.Values{"email": {email}, "password": {password}}, "")
	return status
}

func (e *env) join(addr, email, password string) *reply {
	e.t.Helper()
	_, text := e.from(addr, "POST", "/rpc.php", nil, string(fixture(e.t, "1-join.request.xml", email, password)))
	return parseReply(e.t, text)
}

// Wrong passwords from one address never lock the volunteer out from
// another address that has not been failing.
func TestGuessingDoesNotLockOutTheVolunteer(t *testing.T) {
	t.Parallel()
	e := newProxiedEnv(t)
	e.user("vol@example.org", "secret-pass")
	for i := range 30 {
		if status := e.webLogin("203.0.113.9", "vol@example.org", fmt.Sprintf("guess-%d", i)); status != 422 && status != 429 {
			t.Fatalf("guess %d: status %d", i, status)
		}
		e.join("203.0.113.9", "vol@example.org", fmt.Sprintf("guess-%d", i))
	}
	if status := e.webLogin("198.51.100.7", "vol@example.org", "secret-pass"); status != http.StatusSeeOther {
		t.Errorf("the right password on the web from another address: status %d, want 303", status)
	}
	if r := e.join("198.51.100.8", "vol@example.org", "secret-pass"); r.ErrorNum != 0 || r.Authenticator == "" {
		t.Errorf("the right password over RPC from another address: error %d %q", r.ErrorNum, r.ErrorMsg)
	}
	// The guessing address is refused, even the right password.
	if status := e.webLogin("203.0.113.9", "vol@example.org", "secret-pass"); status != http.StatusTooManyRequests {
		t.Errorf("the guessing address: status %d, want 429", status)
	}
	if r := e.join("203.0.113.9", "vol@example.org", "secret-pass"); r.ErrorNum != boinc.CodeBadPassword ||
		!strings.Contains(r.ErrorMsg, "Too many") {
		t.Errorf("the guessing address over RPC: error %d %q", r.ErrorNum, r.ErrorMsg)
	}
}

// One address guessing over many accounts is stopped: at most 30 wrong
// passwords in 15 minutes, though no account gets 10 of them.
func TestOneAddressGuessingManyAccountsIsStopped(t *testing.T) {
	t.Parallel()
	e := newProxiedEnv(t)
	for i := range 6 {
		e.user(fmt.Sprintf("vol%d@example.org", i), "secret-pass")
	}
	refused := 0
	for n := range 42 {
		email := fmt.Sprintf("vol%d@example.org", n%6)
		if status := e.webLogin("203.0.113.50", email, fmt.Sprintf("guess-%d", n)); status == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused != 12 {
		t.Errorf("42 guesses over 6 accounts from one address: %d refused, want the 12 past 30", refused)
	}
	// Another address is not affected.
	if status := e.webLogin("198.51.100.7", "vol3@example.org", "secret-pass"); status != http.StatusSeeOther {
		t.Errorf("the right password from another address: status %d", status)
	}
}

// X-Forwarded-For counts only when the direct peer is a trusted proxy.
func TestForwardedForNeedsATrustedProxy(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // no trusted proxy
	e.user("vol@example.org", "secret-pass")
	for i := range 40 {
		// A new forged address each time: all are 127.0.0.1 really.
		e.webLogin(fmt.Sprintf("192.0.2.%d", i), "vol@example.org", "wrong-pass")
	}
	if status := e.webLogin("192.0.2.200", "vol@example.org", "secret-pass"); status != http.StatusTooManyRequests {
		t.Errorf("forged X-Forwarded-For escaped the limit: status %d, want 429", status)
	}
}

// Sign-ups are limited per address (here 3 an hour; 20 by default).
func TestSignupsAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, func(cfg *web.Config) {
		cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		cfg.SignupsPerHour = 3
	})
	for i := range 3 {
		form := url.Values{"email": {fmt.Sprintf("new%d@example.org", i)}, "password": {"long-enough"}}
		if status, _ := e.from("203.0.113.9", "POST", "/signup", form, ""); status != http.StatusSeeOther {
			t.Fatalf("sign-up %d: status %d", i, status)
		}
	}
	form := url.Values{"email": {"one-more@example.org"}, "password": {"long-enough"}}
	if status, _ := e.from("203.0.113.9", "POST", "/signup", form, ""); status != http.StatusTooManyRequests {
		t.Errorf("the 4th sign-up from one address: status %d, want 429", status)
	}
	if status, _ := e.from("198.51.100.7", "POST", "/signup", form, ""); status != http.StatusSeeOther {
		t.Errorf("a sign-up from another address: status %d, want 303", status)
	}
	if su, err := e.store.Accounts.CheckSignUp(context.Background(), strings.TrimPrefix(e.signupLink(), "/signup/finish/")); err != nil ||
		su.Email != "one-more@example.org" {
		t.Errorf("the sign-up from another address was not kept: %+v %v", su, err)
	}
}

// One address asking for many password resets is stopped; another is not,
// and what was asked before the limit was mailed.
func TestPasswordResetsAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	e := newProxiedEnv(t)
	for i := range 10 {
		form := url.Values{"email": {fmt.Sprintf("v%d@example.org", i)}}
		if status, _ := e.from("203.0.113.9", "POST", "/password/forgot", form, ""); status != http.StatusOK {
			t.Fatalf("reset request %d: status %d", i, status)
		}
	}
	form := url.Values{"email": {"ada@example.org"}}
	if status, body := e.from("203.0.113.9", "POST", "/password/forgot", form, ""); status != http.StatusTooManyRequests ||
		!strings.Contains(body, "Too many requests came from your address") {
		t.Errorf("the 11th reset request from one address: status %d, want 429", status)
	}
	if status, _ := e.from("198.51.100.7", "POST", "/password/forgot", form, ""); status != http.StatusOK {
		t.Errorf("a reset request from another address: status %d, want 200", status)
	}
}

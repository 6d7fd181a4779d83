package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// browser is an HTTP client with cookies that does not follow redirects.
func (e *env) browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

func do(t testing.TB, c *http.Client, method, u string, form url.Values, header http.Header) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// signupLink returns the path of the newest sign-up link in the outbox.
func (e *env) signupLink() string {
	e.t.Helper()
	return signupLink(e.t, e.store)
}

// signupLink returns the path of the newest sign-up link in store's outbox.
func signupLink(t testing.TB, store *accounting.Store) string {
	t.Helper()
	ms, err := store.Mail.MailList(context.Background(), accounting.MailFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Kind == accounting.MailSignup && m.Secret != "" {
			return "/signup/finish/" + m.Secret
		}
	}
	t.Fatal("no sign-up link in the outbox")
	return ""
}

func TestSignupLoginLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser()
	base := e.http.URL
	form := url.Values{"email": {"New@Example.org"}, "name": {"Ada"}, "password": {"long-enough"}}
	status, _, h := do(t, c, "POST", base+"/signup", form, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/signup/sent" {
		t.Fatalf("sign-up: status %d location %q", status, h.Get("Location"))
	}
	if _, page, _ := do(t, c, "GET", base+"/signup/sent", nil, nil); !strings.Contains(page, "Check your email") {
		t.Error("the page after sign-up does not send the volunteer to their mail")
	}
	if _, home, _ := do(t, c, "GET", base+"/", nil, nil); strings.Contains(home, "Welcome, Ada") {
		t.Error("a sign-up logged the browser in before its link was followed")
	}
	link := e.signupLink()
	if status, page, _ := do(t, c, "GET", base+link, nil, nil); status != http.StatusOK || !strings.Contains(page, "New@Example.org") {
		t.Fatalf("the sign-up link: status %d", status)
	}
	if status, page, _ := do(t, c, "POST", base+link, url.Values{"password": {"wrong-one"}}, nil); status != http.StatusUnprocessableEntity ||
		!strings.Contains(page, "not the password you chose") {
		t.Errorf("finishing with a wrong password: status %d", status)
	}
	status, _, h = do(t, c, "POST", base+link, url.Values{"password": {"long-enough"}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/" {
		t.Fatalf("finishing: status %d location %q", status, h.Get("Location"))
	}
	_, home, _ := do(t, c, "GET", base+"/", nil, nil)
	for _, want := range []string{"Welcome, Ada", "boinccmd --join_acct_mgr http://127.0.0.1:1/ New@Example.org"} {
		if !strings.Contains(home, want) {
			t.Errorf("dashboard lacks %q", want)
		}
	}
	if status, _, _ := do(t, c, "GET", base+link, nil, nil); status != http.StatusGone {
		t.Errorf("the used link: status %d, want 410", status)
	}
	status, _, _ = do(t, c, "POST", base+"/logout", url.Values{}, nil)
	if _, page, _ := do(t, c, "GET", base+"/", nil, nil); status != http.StatusSeeOther || strings.Contains(page, "Welcome, Ada") {
		t.Errorf("logout: status %d, still logged in", status)
	}
	status, page, _ := do(t, c, "POST", base+"/login", url.Values{"email": {"new@example.org"}, "password": {"wrong-one"}}, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "do not match") || !strings.Contains(page, `value="new@example.org"`) {
		t.Errorf("wrong password: status %d", status)
	}
	status, _, _ = do(t, c, "POST", base+"/login", url.Values{"email": {"NEW@example.org"}, "password": {"long-enough"}}, nil)
	if _, page, _ := do(t, c, "GET", base+"/", nil, nil); status != http.StatusSeeOther || !strings.Contains(page, "Welcome, Ada") {
		t.Errorf("login: status %d, not logged in", status)
	}
}

func TestSignupRejectsBadFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser()
	tests := []struct {
		name string
		form url.Values
		want string
	}{
		{"bad email", url.Values{"email": {"not an email"}, "password": {"long-enough"}}, "Enter an email address"},
		{"short password", url.Values{"email": {"a@example.org"}, "password": {"short"}}, "at least 8"},
		{"long name", url.Values{"email": {"a@example.org"}, "password": {"long-enough"}, "name": {strings.Repeat("x", 500)}}, "at most 100"},
		{"control characters", url.Values{"email": {"a@example.org"}, "password": {"long-enough"}, "name": {"a\x00b"}}, "printable"},
		{"markup is escaped", url.Values{"email": {"<script>@x.org"}, "password": {"long-enough"}}, "&lt;script&gt;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, page, _ := do(t, c, "POST", e.http.URL+"/signup", tt.form, nil)
			if status != http.StatusUnprocessableEntity || !strings.Contains(page, tt.want) {
				t.Errorf("status %d, want 422 with %q", status, tt.want)
			}
			if strings.Contains(page, "<script>") {
				t.Error("markup from the form is echoed unescaped")
			}
		})
	}
	status, _, _ := do(t, c, "POST", e.http.URL+"/signup",
		url.Values{"email": {"a@example.org"}, "name": {strings.Repeat("x", 100_000)}}, nil)
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized form: status %d, want 413", status)
	}
}

func TestCrossOriginPostIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	header := http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}
	status, page, _ := do(t, e.browser(), "POST", e.http.URL+"/signup",
		url.Values{"email": {"a@example.org"}, "password": {"long-enough"}}, header)
	if status != http.StatusForbidden || !strings.Contains(page, "only from its own pages") {
		t.Errorf("cross-origin sign-up: status %d, want 403", status)
	}
}

func TestUnknownPageIs404(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	status, page, _ := do(t, e.browser(), "GET", e.http.URL+"/no/such/page", nil, nil)
	if status != http.StatusNotFound || !strings.Contains(page, "Not found") {
		t.Errorf("status %d", status)
	}
}

// A browser that sends neither Origin nor Sec-Fetch-Site still sends a
// Referer: one naming another site refuses the post.
func TestCrossSiteRefererIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	form := url.Values{"email": {"a@example.org"}, "password": {"long-enough"}}
	status, page, _ := do(t, e.browser(), "POST", e.http.URL+"/signup", form,
		http.Header{"Referer": {"https://evil.example/page"}})
	if status != http.StatusForbidden || !strings.Contains(page, "only from its own pages") {
		t.Errorf("sign-up with a foreign Referer: status %d, want 403", status)
	}
	form.Set("email", "b@example.org")
	status, _, _ = do(t, e.browser(), "POST", e.http.URL+"/signup", form,
		http.Header{"Referer": {e.http.URL + "/signup"}})
	if status != http.StatusSeeOther {
		t.Errorf("sign-up with Cobble's own Referer: status %d, want 303", status)
	}
}

package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/cobble-am/cobble/web"
)

// clock is a test's clock for the pages: real time moved by an offset.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time                          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration)                 { c.offset.Add(int64(d)) }
func (c *clock) code(t testing.TB, secret string) string { return codeAt(t, secret, c.now()) }

func codeAt(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// newClockEnv is newEnv with a clock the test moves.
func newClockEnv(t *testing.T, set func(*web.Config)) (*env, *clock) {
	t.Helper()
	clk := &clock{}
	return newEnvWith(t, func(c *web.Config) {
		c.Now = clk.now
		if set != nil {
			set(c)
		}
	}), clk
}

var (
	uriText       = regexp.MustCompile(`<code id="otpauth-uri">([^<]*)</code>`)
	recoveryCodes = regexp.MustCompile(`<li><code>([a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4})</code></li>`)
)

// enrolPage reads the secret from the enrolment page's otpauth:// URI.
func enrolPage(t *testing.T, c *http.Client, base string) (secret, page string) {
	t.Helper()
	status, page, _ := do(t, c, "GET", base+"/settings/two-factor", nil, nil)
	m := uriText.FindStringSubmatch(page)
	if status != http.StatusOK || m == nil || !strings.Contains(page, `src="data:image/png;base64,`) {
		t.Fatalf("enrolment page: status %d, no URI or QR code:\n%s", status, page)
	}
	key, err := otp.NewKeyFromURL(html.UnescapeString(m[1]))
	if err != nil || key.Issuer() != "Cobble Test" || key.AccountName() != "ada@example.org" {
		t.Fatalf("URI %q: %v", m[1], err)
	}
	return key.Secret(), page
}

// enrol turns two factors on for the session c and returns the secret and
// the recovery codes.
func enrol(t *testing.T, c *http.Client, base string, clk *clock) (string, []string) {
	t.Helper()
	secret, _ := enrolPage(t, c, base)
	status, page, _ := do(t, c, "POST", base+"/settings/two-factor/enable", url.Values{"code": {clk.code(t, secret)}}, nil)
	var codes []string
	for _, m := range recoveryCodes.FindAllStringSubmatch(page, -1) {
		codes = append(codes, m[1])
	}
	if status != http.StatusOK || len(codes) != 10 {
		t.Fatalf("enable: status %d, %d recovery codes:\n%s", status, len(codes), page)
	}
	return secret, codes
}

// passwordStep posts the right password and expects the second step.
func passwordStep(t *testing.T, e *env, c *http.Client) {
	t.Helper()
	status, _, h := do(t, c, "POST", e.http.URL+"/login", url.Values{"email": {"ada@example.org"}, "password": {"long-enough"}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/login/two-factor" {
		t.Fatalf("password step: status %d to %q", status, h.Get("Location"))
	}
}

// secondStep posts form to /login/two-factor and returns the status,
// where it redirects and the page.
func secondStep(t *testing.T, e *env, c *http.Client, form url.Values) (int, string, string) {
	t.Helper()
	status, page, h := do(t, c, "POST", e.http.URL+"/login/two-factor", form, nil)
	return status, h.Get("Location"), page
}

// loggedIn reports whether c's session opens the settings page.
func loggedIn(t *testing.T, e *env, c *http.Client) bool {
	t.Helper()
	status, _, _ := do(t, c, "GET", e.http.URL+"/settings", nil, nil)
	return status == http.StatusOK
}

func TestTwoFactorEnrolment(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, nil)
	e.user("ada@example.org", "long-enough")
	c, other := e.session(t, "ada@example.org", "long-enough"), e.session(t, "ada@example.org", "long-enough")
	base := e.http.URL
	secret, _ := enrolPage(t, c, base)
	if again, _ := enrolPage(t, c, base); again != secret {
		t.Error("a reload of the enrolment page shows another key")
	}
	for _, bad := range []string{"", "12", "abcdef", codeAt(t, secret, clk.now().Add(-10*time.Minute))} {
		status, page, _ := do(t, c, "POST", base+"/settings/two-factor/enable", url.Values{"code": {bad}}, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(page, `class="field-error"`) {
			t.Errorf("enable with %q: status %d", bad, status)
		}
	}
	u, _ := e.store.Accounts.Login(context.Background(), "ada@example.org", "long-enough")
	if on, _ := e.store.Access.TwoFactorOn(context.Background(), u.ID); on {
		t.Fatal("refused codes turned two factors on")
	}
	// Without a key shown in the session, enabling starts at the page.
	status, _, h := do(t, e.browser(), "POST", base+"/settings/two-factor/enable", url.Values{"code": {"123456"}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Errorf("enable without a session: %d to %q", status, h.Get("Location"))
	}
	_, codes := enrol(t, c, base, clk)
	if !loggedIn(t, e, c) {
		t.Error("enabling ended the session that enabled it")
	}
	if loggedIn(t, e, other) {
		t.Error("enabling left the account's other session open")
	}
	status, page, _ := do(t, c, "GET", base+"/settings/two-factor", nil, nil)
	if status != http.StatusOK || !strings.Contains(page, "Two-factor sign-in is on") || strings.Contains(page, "otpauth://") ||
		strings.Contains(page, codes[0]) {
		t.Errorf("the page once on: status %d\n%s", status, page)
	}
}

func TestTwoFactorLogin(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, nil)
	e.user("ada@example.org", "long-enough")
	secret, codes := enrol(t, e.session(t, "ada@example.org", "long-enough"), e.http.URL, clk)
	clk.advance(time.Minute) // past the enrolment's code

	c := e.browser()
	passwordStep(t, e, c)
	// Pending: no page of the account opens.
	for _, path := range []string{"/settings", "/computers", "/settings/two-factor", "/export/history.csv"} {
		if status, _, h := do(t, c, "GET", e.http.URL+path, nil, nil); status != http.StatusSeeOther || h.Get("Location") != "/login" {
			t.Errorf("pending log-in, GET %s: status %d to %q", path, status, h.Get("Location"))
		}
	}
	if _, page, _ := do(t, c, "GET", e.http.URL+"/", nil, nil); strings.Contains(page, `action="/logout"`) {
		t.Error("the home page shows a pending log-in as logged in")
	}
	if status, page, _ := do(t, c, "GET", e.http.URL+"/login/two-factor", nil, nil); status != http.StatusOK ||
		!strings.Contains(page, `name="recovery_code"`) {
		t.Errorf("second step page: status %d", status)
	}
	for _, bad := range []url.Values{{"code": {"12ab56"}}, {"code": {"1234"}}, {}, {"recovery_code": {"not-a-code"}},
		{"code": {codeAt(t, secret, clk.now().Add(5*time.Minute))}}, {"recovery_code": {"aaaa-bbbb-cccc-dddd"}}} {
		if status, _, _ := secondStep(t, e, c, bad); status != http.StatusUnprocessableEntity {
			t.Errorf("second step with %v: status %d", bad, status)
		}
	}
	code := clk.code(t, secret)
	if status, to, page := secondStep(t, e, c, url.Values{"code": {code}}); status != http.StatusSeeOther || to != "/" {
		t.Fatalf("right code: status %d to %q\n%s", status, to, page)
	}
	if !loggedIn(t, e, c) {
		t.Fatal("not logged in after the second factor")
	}

	// The same code again, from another browser: refused.
	d := e.browser()
	passwordStep(t, e, d)
	if status, _, page := secondStep(t, e, d, url.Values{"code": {code}}); status != http.StatusUnprocessableEntity ||
		!strings.Contains(page, "used already") {
		t.Errorf("replayed code: status %d", status)
	}
	// A recovery code works, once.
	if status, to, _ := secondStep(t, e, d, url.Values{"recovery_code": {strings.ToUpper(codes[2])}}); status != http.StatusSeeOther || to != "/" {
		t.Errorf("recovery code: status %d to %q", status, to)
	}
	f := e.browser()
	passwordStep(t, e, f)
	if status, _, page := secondStep(t, e, f, url.Values{"recovery_code": {codes[2]}}); status != http.StatusUnprocessableEntity ||
		!strings.Contains(page, "used already") {
		t.Errorf("recovery code reused: status %d", status)
	}
	// A pending log-in expires.
	clk.advance(6 * time.Minute)
	if status, to, _ := secondStep(t, e, f, url.Values{"code": {clk.code(t, secret)}}); status != http.StatusSeeOther || to != "/login" {
		t.Errorf("expired pending log-in: status %d to %q", status, to)
	}
	if loggedIn(t, e, f) {
		t.Error("an expired pending log-in logged in")
	}
	// No pending log-in at all.
	if status, to, _ := secondStep(t, e, e.browser(), url.Values{"code": {"123456"}}); status != http.StatusSeeOther || to != "/login" {
		t.Errorf("second step without a first: status %d to %q", status, to)
	}
}

// Wrong codes count towards the limits on wrong passwords: after ten, the
// right code is refused too.
func TestWrongCodesAreLimited(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, nil)
	e.user("ada@example.org", "long-enough")
	secret, _ := enrol(t, e.session(t, "ada@example.org", "long-enough"), e.http.URL, clk)
	clk.advance(time.Minute)
	c := e.browser()
	passwordStep(t, e, c)
	for i := range 10 {
		wrong := codeAt(t, secret, clk.now().Add(time.Duration(i+5)*time.Minute))
		if status, _, _ := secondStep(t, e, c, url.Values{"code": {wrong}}); status != http.StatusUnprocessableEntity {
			t.Fatalf("wrong code %d: status %d", i, status)
		}
	}
	status, _, page := secondStep(t, e, c, url.Values{"code": {clk.code(t, secret)}})
	if status != http.StatusTooManyRequests || !strings.Contains(page, "Too many") {
		t.Errorf("right code after 10 wrong ones: status %d", status)
	}
	// The password counts the same failures.
	status, _, _ = do(t, e.browser(), "POST", e.http.URL+"/login", url.Values{"email": {"ada@example.org"}, "password": {"long-enough"}}, nil)
	if status != http.StatusTooManyRequests {
		t.Errorf("password after 10 wrong codes: status %d", status)
	}
}

func TestTwoFactorDisable(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, nil)
	e.user("ada@example.org", "long-enough")
	c := e.session(t, "ada@example.org", "long-enough")
	secret, codes := enrol(t, c, e.http.URL, clk)
	clk.advance(time.Minute)
	u, _ := e.store.Accounts.Login(context.Background(), "ada@example.org", "long-enough")
	for _, form := range []url.Values{
		{"code": {clk.code(t, secret)}},                                                      // no password
		{"password": {"wrong-password"}, "code": {clk.code(t, secret)}},                      // wrong password
		{"password": {"long-enough"}},                                                        // no code
		{"password": {"long-enough"}, "code": {"123"}},                                       // malformed
		{"password": {"long-enough"}, "code": {"aaaa-bbbb-cccc-dddd"}},                       // unknown recovery code
		{"password": {"long-enough"}, "code": {codeAt(t, secret, clk.now().Add(time.Hour))}}, // wrong code
	} {
		status, page, _ := do(t, c, "POST", e.http.URL+"/settings/two-factor/disable", form, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(page, `class="field-error"`) {
			t.Errorf("disable with %v: status %d", form, status)
		}
		if on, _ := e.store.Access.TwoFactorOn(context.Background(), u.ID); !on {
			t.Fatalf("disable with %v turned two factors off", form)
		}
	}
	// Its own form asks for the password, so a stale session may use it.
	clk.advance(11 * time.Minute)
	status, _, h := do(t, c, "POST", e.http.URL+"/settings/two-factor/disable",
		url.Values{"password": {"long-enough"}, "code": {codes[9]}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/settings/two-factor?off=1" {
		t.Fatalf("disable: status %d to %q", status, h.Get("Location"))
	}
	if on, _ := e.store.Access.TwoFactorOn(context.Background(), u.ID); on {
		t.Error("two factors still on")
	}
	status, _, h = do(t, e.browser(), "POST", e.http.URL+"/login", url.Values{"email": {"ada@example.org"}, "password": {"long-enough"}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/" {
		t.Errorf("log-in once off: %d to %q", status, h.Get("Location"))
	}
}

// With admin two factors required, an admin without them is sent to enrol
// from every admin page; a volunteer still gets 403.
func TestAdminsMustEnrol(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, func(c *web.Config) { c.AdminTwoFactor = web.AdminTwoFactorRequired })
	admin := e.login("ada@example.org", true)
	for _, path := range []string{"/admin/overview", "/admin/projects", "/admin/audit"} {
		status, _, h := do(t, admin, "GET", e.http.URL+path, nil, nil)
		if status != http.StatusSeeOther || h.Get("Location") != "/settings/two-factor?for=admin" {
			t.Errorf("GET %s: status %d to %q", path, status, h.Get("Location"))
		}
	}
	status, page, _ := do(t, admin, "GET", e.http.URL+"/settings/two-factor?for=admin", nil, nil)
	if status != http.StatusOK || !strings.Contains(page, "Administrators must use two-factor sign-in") {
		t.Errorf("enrolment page for an admin: status %d", status)
	}
	volunteer := e.login("bob@example.org", false)
	if status, _, _ := do(t, volunteer, "GET", e.http.URL+"/admin/overview", nil, nil); status != http.StatusForbidden {
		t.Errorf("a volunteer on /admin/overview: status %d", status)
	}
	enrol(t, admin, e.http.URL, clk)
	if status, _, _ := do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil); status != http.StatusOK {
		t.Errorf("an enrolled admin on /admin/overview: status %d", status)
	}
}

package web_test

import (
	"bytes"
	"context"
	"image/png"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/boinctest"
	"github.com/cobble-am/cobble/internal/browsertest"
	"github.com/cobble-am/cobble/internal/smtptest"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// A volunteer forgets their password: Chromium asks for a link, the mail
// arrives at a real SMTP server, the link sets a new password, and the
// volunteer logs in with it. The old password no longer works, a session
// opened before the reset is logged out, and a real BOINC client attached
// with the old password still syncs with its authenticator and can join
// again with the new password.
func TestBrowserPasswordResetJourney(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const email, oldPassword, newPassword = "ada@example.org", "first-password", "second-password"
	mail := smtptest.Start(t)
	base, store := resetServe(t, mail.URL())
	u, err := store.Accounts.CreateUser(ctx, accounting.NewUser{Email: email, Name: "Ada", Password: oldPassword})
	if err != nil {
		t.Fatal(err)
	}
	client := resetClient(t, base, store, u.ID, email, oldPassword)
	old := resetSession(t, base, email, oldPassword)
	b := browsertest.New(t)

	resetAsk(t, b, base, email)
	link := resetLink(t, mail, base, email)
	resetSet(t, b, link, newPassword)
	resetLogin(t, b, base, email, newPassword)

	if status := resetPostLogin(t, &http.Client{}, base, email, oldPassword); status != http.StatusUnprocessableEntity {
		t.Errorf("log-in with the old password: status %d, want 422", status)
	}
	status, _, h := do(t, old, "GET", base+"/settings", nil, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Errorf("the session from before the reset: GET /settings %d to %q, want 303 to /login", status, h.Get("Location"))
	}

	resetAMRPC(t, client, store, u.ID, "sync after the reset", func(ctx context.Context) (string, error) {
		return client.SyncAcctMgr(ctx)
	})
	// While attached, boinc refuses a join with other credentials ("attached
	// to a different AM - detach first"), so the volunteer detaches first;
	// the join must then find the same computer (resetRPCs checks there is
	// one).
	if out, err := client.LeaveAcctMgr(ctx); err != nil {
		t.Fatalf("leaving the account manager: %v\n%s", err, out)
	}
	resetAMRPC(t, client, store, u.ID, "join with the new password", func(ctx context.Context) (string, error) {
		return client.JoinAcctMgr(ctx, base+"/", email, newPassword)
	})
}

// resetServe serves Cobble with Serve (so that its mailer runs, sending to
// smtpURL) on a loopback port, and returns its base URL without the slash.
func resetServe(t *testing.T, smtpURL string) (string, *accounting.Store) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	srv, err := web.New(context.Background(), web.Config{Site: web.Site{Name: "Cobble", BaseURL: base + "/", RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost, Mail: web.MailConfig{SMTPURL: smtpURL, Poll: 100 * time.Millisecond}}, testdb.New(t), quietLog())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return base, srv.Store()
}

// resetClient starts a real BOINC client, with a project in the catalog,
// and joins it to Cobble with password, then syncs once, so that it holds
// an authenticator.
func resetClient(t *testing.T, base string, store *accounting.Store, userID int64, email, password string) *boinctest.Client {
	t.Helper()
	proj := boinctest.NewProject(t)
	if _, err := store.Catalog.AddProject(context.Background(), accounting.Project{URL: proj.URL(), Name: "Cobble Test Project",
		Authenticator: "key"}); err != nil {
		t.Fatal(err)
	}
	client := boinctest.Start(t)
	resetAMRPC(t, client, store, userID, "join", func(ctx context.Context) (string, error) {
		return client.JoinAcctMgr(ctx, base+"/", email, password)
	})
	resetAMRPC(t, client, store, userID, "first sync", func(ctx context.Context) (string, error) {
		return client.SyncAcctMgr(ctx)
	})
	return client
}

// resetAMRPC runs an account-manager RPC of the client and checks that it
// succeeded: boinccmd says so, the client's event log says so and tells of
// no refusal, and Cobble counted one more RPC of the volunteer's one
// computer.
func resetAMRPC(t *testing.T, client *boinctest.Client, store *accounting.Store, userID int64, what string,
	rpc func(ctx context.Context) (string, error)) {
	t.Helper()
	const contact = "Account manager contact succeeded"
	before, rpcsBefore := client.LogCount(contact), resetRPCs(t, store, userID)
	out, err := rpc(context.Background())
	if err != nil || !boinctest.ParseAMOutput(out).OK() {
		t.Fatalf("%s: %v\n%s\n%s", what, err, out, client.Log())
	}
	if got := client.LogCount(contact); got != before+1 {
		t.Errorf("%s: the client's log tells of %d successful contacts, want %d:\n%s", what, got, before+1, client.Log())
	}
	if log := client.Log(); strings.Contains(log, "Message from account manager") || strings.Contains(log, "parse error") {
		t.Errorf("%s: the client was refused:\n%s", what, log)
	}
	if got := resetRPCs(t, store, userID); got != rpcsBefore+1 {
		t.Errorf("%s: Cobble counted %d RPCs of the computer, want %d", what, got, rpcsBefore+1)
	}
}

// resetRPCs returns how many AM RPCs Cobble counted for the volunteer's
// computer, and fails the test unless there is at most one.
func resetRPCs(t *testing.T, store *accounting.Store, userID int64) int64 {
	t.Helper()
	d, err := store.Admin.UserForAdmin(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	switch len(d.Hosts) {
	case 0:
		return 0
	case 1:
		return d.Hosts[0].RPCCount
	}
	t.Fatalf("the volunteer has %d computers, want 1", len(d.Hosts))
	return 0
}

// resetSession logs in with an HTTP client of its own (another browser,
// say), checks that it sees the settings, and returns it.
func resetSession(t *testing.T, base, email, password string) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	if status := resetPostLogin(t, c, base, email, password); status != http.StatusSeeOther {
		t.Fatalf("log-in of the other session: status %d, want 303", status)
	}
	if status, _, _ := do(t, c, "GET", base+"/settings", nil, nil); status != http.StatusOK {
		t.Fatalf("the other session's settings: status %d, want 200", status)
	}
	return c
}

// resetPostLogin posts the log-in form and returns the status.
func resetPostLogin(t *testing.T, c *http.Client, base, email, password string) int {
	t.Helper()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	status, _, _ := do(t, c, "POST", base+"/login", url.Values{"email": {email}, "password": {password}}, nil)
	return status
}

// resetAsk goes from the log-in page to the forgotten-password page and
// asks for a link.
func resetAsk(t *testing.T, b *browsertest.Browser, base, email string) {
	t.Helper()
	b.Open(t, base+"/login")
	b.Click(t, "a[href='/password/forgot']")
	if got := b.URL(t); got != base+"/password/forgot" || b.Text(t, "h1") != "Forgot your password?" {
		t.Fatalf("the link on the log-in page led to %s, %q", got, b.Text(t, "h1"))
	}
	b.Fill(t, "#email", email)
	b.Click(t, "main form button[type=submit]")
	if b.Status() != http.StatusOK || !strings.Contains(b.Text(t, "[role=status]"), "a link to set a new password is on its way") {
		t.Fatalf("after asking for a link: status %d, page:\n%s", b.Status(), b.Text(t, "main"))
	}
	resetShots(t, b, "mail-forgot")
}

// resetLink waits for the reset mail and returns its link.
func resetLink(t *testing.T, mail *smtptest.Server, base, email string) string {
	t.Helper()
	m := mail.WaitMessages(t, 1, 15*time.Second)[0]
	if len(m.To) != 1 || m.To[0] != email || !strings.Contains(m.Header.Get("Subject"), "new password") {
		t.Errorf("the mail went to %q with the subject %q, want %s and a new password", m.To, m.Header.Get("Subject"), email)
	}
	for _, link := range m.Links() {
		if strings.Contains(link, "/password/reset/") {
			if !strings.HasPrefix(link, base+"/password/reset/") {
				t.Errorf("the link %s is not on Cobble's base URL %s", link, base)
			}
			return link
		}
	}
	t.Fatalf("the mail has no reset link:\n%s", m.Text)
	return ""
}

// resetSet follows the link and sets the new password.
func resetSet(t *testing.T, b *browsertest.Browser, link, password string) {
	t.Helper()
	b.Open(t, link)
	if b.Status() != http.StatusOK || b.Text(t, "h1") != "Set a new password" {
		t.Fatalf("the link opened a page of status %d:\n%s", b.Status(), b.Text(t, "main"))
	}
	resetShots(t, b, "mail-reset")
	b.Fill(t, "#password", password)
	b.Click(t, "main form button[type=submit]")
}

// resetLogin checks the log-in page the reset led to, and logs in there.
func resetLogin(t *testing.T, b *browsertest.Browser, base, email, password string) {
	t.Helper()
	if got := b.URL(t); got != base+"/login?reset=done" {
		t.Fatalf("setting the password led to %s:\n%s", got, b.Text(t, "main"))
	}
	if got := b.Text(t, "[role=status]"); !strings.Contains(got, "Your new password is set") {
		t.Errorf("the log-in page says %q", got)
	}
	resetShots(t, b, "mail-login-notice")
	b.Fill(t, "#email", email)
	b.Fill(t, "#password", password)
	b.Click(t, "main form button[type=submit]")
	if got := b.URL(t); got != base+"/" || b.Text(t, "h1") != "Welcome, Ada" {
		t.Fatalf("log-in with the new password led to %s, %q", got, b.Text(t, "h1"))
	}
}

// resetShots saves the page in the tab at 1280 pixels wide as name.png,
// and at 390 as name-390.png, which must not scroll sideways.
func resetShots(t *testing.T, b *browsertest.Browser, name string) {
	t.Helper()
	shot := screenshotPath(t, name+".png")
	b.Screenshot(t, shot)
	checkScreenshot(t, shot, 900)
	b.SetWidth(t, 390)
	defer b.SetWidth(t, 1280)
	shot = screenshotPath(t, name+"-390.png")
	b.Screenshot(t, shot)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != 390 {
		t.Errorf("%s: %d pixels wide (%v), want 390", shot, cfg.Width, err)
	}
	if got := b.Eval(t, "document.documentElement.scrollWidth"); got != "390" {
		t.Errorf("%s at 390 pixels scrolls sideways: %s pixels wide", name, got)
	}
}

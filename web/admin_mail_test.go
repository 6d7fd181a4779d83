package web_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/web"
)

// signUp creates an account the way the sign-up page does, which queues a
// welcome message with a link.
func (e *env) signUp(email string) accounting.User {
	e.t.Helper()
	u, err := e.store.Accounts.SignUp(context.Background(), accounting.NewUser{Email: email, Name: "Ada", Password: "long-enough"})
	if err != nil {
		e.t.Fatalf("SignUp: %v", err)
	}
	return u
}

// secrets returns the links' tokens still in the outbox.
func (e *env) secrets() []string {
	e.t.Helper()
	rows, _ := e.pool.Query(context.Background(), `SELECT secret FROM mail_outbox WHERE secret IS NOT NULL`)
	s, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// deliver takes every queued message, as its job would, and passes each
// to mark.
func (e *env) deliver(mark func(m accounting.Mail) error) {
	e.t.Helper()
	ctx := context.Background()
	queued, err := e.store.Mail.MailList(ctx, accounting.MailFilter{Status: accounting.MailQueued})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, q := range queued {
		m, err := e.store.Mail.TakeMail(ctx, q.ID, time.Minute)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := mark(m); err != nil {
			e.t.Fatal(err)
		}
	}
}

// mailOutbox queues three messages, delivers one, gives one up and leaves
// one queued after a failed attempt. It returns an admin's browser and the
// links' tokens as they were before delivery.
func (e *env) mailOutbox() (*http.Client, []string) {
	e.t.Helper()
	ctx := context.Background()
	e.signUp("new@example.org")
	e.signUp("gone@example.org")
	e.user("vol@example.org", "secret-pass")
	if err := e.store.Accounts.RequestPasswordReset(ctx, "vol@example.org"); err != nil {
		e.t.Fatal(err)
	}
	secrets := e.secrets()
	if len(secrets) != 3 {
		e.t.Fatalf("%d secrets in the outbox, want 3", len(secrets))
	}
	e.deliver(func(m accounting.Mail) error {
		switch m.To {
		case "new@example.org":
			return e.store.Mail.MarkMailSent(ctx, m, "smtp")
		case "gone@example.org":
			return e.store.Mail.MarkMailFailed(ctx, m, "550 5.1.1 no such user", 0)
		}
		return e.store.Mail.MarkMailFailed(ctx, m, "421 4.3.0 try again later", time.Hour)
	})
	return e.login("admin@example.org", true), secrets
}

func TestAdminMailLists(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin, secrets := e.mailOutbox()
	status, page, _ := do(t, admin, "GET", e.http.URL+"/admin/mail", nil, nil)
	if status != http.StatusOK {
		t.Fatalf("/admin/mail: status %d", status)
	}
	for _, want := range []string{"new@example.org", "gone@example.org", "vol@example.org",
		accounting.MailWelcome.String(), accounting.MailPasswordReset.String(), "550 5.1.1 no such user",
		"421 4.3.0 try again later", `id="mail-queued">1<`, `id="mail-sent">1<`, `id="mail-failed">1<`,
		">queued<", ">sent<", ">failed<", `<td class="num">1</td>`, "No SMTP server is configured (--smtp-url)",
		`class="active">Mail<`} {
		if !strings.Contains(page, want) {
			t.Errorf("/admin/mail lacks %q", want)
		}
	}
	for _, s := range secrets {
		if strings.Contains(page, s) {
			t.Errorf("/admin/mail shows the secret %q", s)
		}
	}
	for _, link := range []string{"/password/reset/", "/email/confirm/"} {
		if strings.Contains(page, link) {
			t.Errorf("/admin/mail shows a link (%s)", link)
		}
	}
	volunteer := e.login("other@example.org", false)
	if status, _, _ := do(t, volunteer, "GET", e.http.URL+"/admin/mail", nil, nil); status != http.StatusForbidden {
		t.Errorf("volunteer GET /admin/mail: status %d", status)
	}
}

func TestAdminMailFilter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin, _ := e.mailOutbox()
	all := []string{"new@example.org", "gone@example.org", "vol@example.org"}
	for _, tc := range []struct {
		status string
		want   []string
	}{{"failed", all[1:2]}, {"sent", all[:1]}, {"queued", all[2:]}, {"", all}, {"bogus", all}} {
		_, page, _ := do(t, admin, "GET", e.http.URL+"/admin/mail?"+url.Values{"status": {tc.status}}.Encode(), nil, nil)
		var got []string
		for _, to := range all {
			if strings.Contains(page, to) {
				got = append(got, to)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("status=%q lists %v, want %v", tc.status, got, tc.want)
		}
	}
}

func TestAdminMailOverviewWarns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	admin := e.login("admin@example.org", true)
	_, page, _ := do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil)
	if strings.Contains(page, "waited over") || strings.Contains(page, "No SMTP server") {
		t.Error("overview warns of mail with an empty outbox")
	}
	a, b := e.signUp("a@example.org"), e.signUp("b@example.org")
	_, page, _ = do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil)
	if strings.Contains(page, "waited over") || !strings.Contains(page, `id="mail-no-smtp"`) {
		t.Errorf("overview with fresh queued mail and no SMTP server:\n%s", page)
	}
	for i, want := range []string{"1 message has waited over 15 minutes to be sent.", "2 messages have waited over 15 minutes to be sent."} {
		id := []int64{a.ID, b.ID}[i]
		if _, err := e.pool.Exec(ctx, `UPDATE mail_outbox SET created_at = now() - interval '1 hour' WHERE user_id = $1`, id); err != nil {
			t.Fatal(err)
		}
		_, page, _ = do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil)
		if !strings.Contains(page, want) || !strings.Contains(page, `<a href="/admin/mail">See Mail</a>`) {
			t.Errorf("overview lacks %q with a link to the mail page", want)
		}
	}
	dev := newEnvWith(t, func(c *web.Config) { c.Mail.DevMailbox = true })
	dev.signUp("c@example.org")
	_, page, _ = do(t, dev.login("admin@example.org", true), "GET", dev.http.URL+"/admin/overview", nil, nil)
	if strings.Contains(page, "No SMTP server") {
		t.Error("overview warns of no SMTP server where the development mailbox delivers")
	}
}

func TestAdminSendReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	vol := e.user("vol@example.org", "secret-pass")
	admin := e.login("admin@example.org", true)
	userURL := e.http.URL + "/admin/users/" + itoa(vol.ID)
	_, page, _ := do(t, admin, "GET", userURL, nil, nil)
	if !strings.Contains(page, `id="send-reset"`) || !strings.Contains(page, `id="email-state">not confirmed<`) {
		t.Errorf("user page:\n%s", page)
	}
	status, _, h := do(t, admin, "POST", userURL+"/password-reset", url.Values{}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/admin/users/"+itoa(vol.ID)+"?sent=reset" {
		t.Fatalf("send reset: status %d to %q", status, h.Get("Location"))
	}
	var n int
	var byAdmin bool
	err := e.pool.QueryRow(ctx, `SELECT count(*), coalesce(bool_and((data->>'by_admin')::bool), false)
		FROM mail_outbox WHERE user_id = $1 AND kind = 'password_reset'`, vol.ID).Scan(&n, &byAdmin)
	if err != nil || n != 1 || !byAdmin {
		t.Errorf("outbox: %d resets, by admin %v, err %v", n, byAdmin, err)
	}
	log, err := e.store.Admin.Audit(ctx, accounting.AuditFilter{Kind: accounting.AuditPasswordResetSent})
	if err != nil || len(log) != 1 || log[0].Actor != "admin@example.org" {
		t.Errorf("audit: %+v %v", log, err)
	}
	_, page, _ = do(t, admin, "GET", e.http.URL+h.Get("Location"), nil, nil)
	if !strings.Contains(page, "A password reset link is on its way to vol@example.org.") || !strings.Contains(page, "No SMTP server") {
		t.Errorf("user page after the reset:\n%s", page)
	}
	if _, page, _ = do(t, admin, "GET", e.http.URL+"/admin/audit", nil, nil); !strings.Contains(page, "password reset sent") ||
		!strings.Contains(page, "sent_to: vol@example.org") {
		t.Error("the audit log does not show the reset readably")
	}
	if _, err := e.pool.Exec(ctx, `UPDATE users SET email_confirmed_at = now() WHERE id = $1`, vol.ID); err != nil {
		t.Fatal(err)
	}
	if _, page, _ = do(t, admin, "GET", userURL, nil, nil); !strings.Contains(page, `id="email-state">confirmed<`) {
		t.Error("user page does not say the address is confirmed")
	}
}

// TestAdminSendResetRefused: no reset link for a disabled account, past the
// hourly limit, for nobody, or on a volunteer's request.
func TestAdminSendResetRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	vol := e.user("vol@example.org", "secret-pass")
	off := e.user("off@example.org", "secret-pass")
	admin := e.login("admin@example.org", true)
	userURL := e.http.URL + "/admin/users/" + itoa(vol.ID)
	for i := 0; i < accounting.MailsPerHour; i++ {
		if status, _, _ := do(t, admin, "POST", userURL+"/password-reset", url.Values{}, nil); status != http.StatusSeeOther {
			t.Fatalf("reset %d: status %d", i+1, status)
		}
	}
	if status, _, _ := do(t, admin, "POST", userURL+"/password-reset", url.Values{}, nil); status != http.StatusTooManyRequests {
		t.Errorf("reset past the hourly limit: status %d", status)
	}
	if err := e.store.Admin.SetUserDisabled(ctx, accounting.OSActor("test"), off.ID, true); err != nil {
		t.Fatal(err)
	}
	status, page, _ := do(t, admin, "POST", e.http.URL+"/admin/users/"+itoa(off.ID)+"/password-reset", url.Values{}, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "This account is disabled; enable it first.") {
		t.Errorf("reset of a disabled account: status %d\n%s", status, page)
	}
	var n int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM mail_outbox WHERE user_id = $1`, off.ID).Scan(&n); err != nil || n != 0 {
		t.Errorf("a disabled account got %d messages (%v)", n, err)
	}
	if status, _, _ := do(t, admin, "POST", e.http.URL+"/admin/users/99999/password-reset", url.Values{}, nil); status != http.StatusNotFound {
		t.Errorf("reset of nobody: status %d", status)
	}
	volunteer := e.login("other@example.org", false)
	if status, _, _ := do(t, volunteer, "POST", userURL+"/password-reset", url.Values{}, nil); status != http.StatusForbidden {
		t.Errorf("volunteer's reset: status %d", status)
	}
}

func TestDevMail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	serve := newEnv(t)
	if status, _, _ := do(t, serve.browser(), "GET", serve.http.URL+"/dev/mail", nil, nil); status != http.StatusNotFound {
		t.Errorf("/dev/mail without the development mailbox: status %d", status)
	}
	e := newEnvWith(t, func(c *web.Config) { c.Mail.DevMailbox = true })
	e.signUp("new@example.org")
	e.signUp("old@example.org")
	status, page, _ := do(t, e.browser(), "GET", e.http.URL+"/dev/mail", nil, nil)
	if status != http.StatusOK || !strings.Contains(page, "no mail leaves this machine") ||
		!strings.Contains(page, "2 messages are on their way; reload in a moment.") {
		t.Fatalf("/dev/mail before delivery: status %d\n%s", status, page)
	}
	secrets := e.secrets()
	e.deliver(func(m accounting.Mail) error { return e.store.Mail.MarkMailSent(ctx, m, "mailbox") })
	if _, err := e.pool.Exec(ctx, `UPDATE mail_outbox SET secret = NULL WHERE recipient = 'old@example.org'`); err != nil {
		t.Fatal(err)
	}
	var secret string
	if err := e.pool.QueryRow(ctx, `SELECT secret FROM mail_outbox WHERE recipient = 'new@example.org'`).Scan(&secret); err != nil {
		t.Fatal(err)
	}
	status, page, _ = do(t, e.browser(), "GET", e.http.URL+"/dev/mail", nil, nil)
	link := `<a class="mail-link" href="http://127.0.0.1:1/email/confirm/` + secret + `">`
	for _, want := range []string{link, "new@example.org", "old@example.org", "Confirm your email address for Cobble Test",
		"<pre", "Hello Ada,", "(this message can no longer be shown)"} {
		if status != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("/dev/mail (status %d) lacks %q", status, want)
		}
	}
	if strings.Contains(page, "on their way") || strings.Count(page, `class="mail-link"`) != 1 {
		t.Errorf("/dev/mail after delivery:\n%s", page)
	}
	_, page, _ = do(t, e.login("admin@example.org", true), "GET", e.http.URL+"/admin/mail", nil, nil)
	if !strings.Contains(page, "delivers into the local mailbox at /dev/mail") {
		t.Error("/admin/mail does not say mail goes to the development mailbox")
	}
	for _, s := range secrets {
		if strings.Contains(page, s) {
			t.Errorf("/admin/mail shows the secret %q of a message in the development mailbox", s)
		}
	}
}

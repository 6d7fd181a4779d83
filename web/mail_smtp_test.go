package web_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/smtptest"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// resetUnder queues a password reset for a Cobble whose SMTP server
// answers in mode, and which tries each message maxAttempts times.
func resetUnder(t *testing.T, mode smtptest.Mode, maxAttempts int) *mailEnv {
	t.Helper()
	e := newMailEnv(t, func(cfg *web.Config) { cfg.Mail.MaxAttempts = maxAttempts })
	e.relay.SetMode(mode)
	e.user("ada@example.org", "ada-password")
	if err := e.store.Accounts.RequestPasswordReset(context.Background(), "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	return e
}

// Whatever goes wrong at the SMTP server, the message waits for a retry
// with a printable reason while pages keep answering, and arrives once
// when the server accepts again; with its attempts spent it is given up.
func TestMailFailuresAreRetried(t *testing.T) {
	t.Parallel()
	reset := accounting.MailPasswordReset
	for _, c := range []struct {
		name string
		mode smtptest.Mode
	}{{"hang", smtptest.Hang}, {"4xx", smtptest.TempFail}, {"5xx", smtptest.PermFail}, {"drop", smtptest.Drop}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := resetUnder(t, c.mode, 20)
			e.waitRow(reset, 30*time.Second, "claimed", func(r outboxRow) bool { return r.Attempts >= 1 })
			if status, _, _ := do(t, e.browser(), "GET", e.base+"login", nil, nil); status != http.StatusOK {
				t.Errorf("GET /login while the sender is at work: status %d", status)
			}
			// Hang never answers: the 2 s Timeout must end the attempt.
			r := e.waitRow(reset, 15*time.Second, "failed", func(r outboxRow) bool { return r.LastError != "" })
			printable := utf8.ValidString(r.LastError) && strings.IndexFunc(r.LastError, unicode.IsControl) < 0
			if r.Status != "queued" || !printable || r.Secret == nil {
				t.Errorf("after a failure the %v, want queued with its link and a printable reason", r)
			}
			e.relay.SetMode(smtptest.Accept)
			e.exactly(1, time.Second)
			e.waitRow(reset, 30*time.Second, "sent", func(r outboxRow) bool { return r.Status == "sent" })
		})
	}
	t.Run("given up", func(t *testing.T) {
		t.Parallel()
		e := resetUnder(t, smtptest.PermFail, 2)
		r := e.waitRow(reset, 30*time.Second, "failed", func(r outboxRow) bool { return r.Status == "failed" })
		if r.Attempts != 2 || r.Secret != nil || r.LastError == "" {
			t.Errorf("given up, the %v, want 2 attempts, no token, a reason", r)
		}
		if n := len(e.relay.Messages()); n != 0 {
			t.Errorf("%d messages arrived", n)
		}
	})
}

// queryCounter counts the statements a pool runs.
type queryCounter struct{ n atomic.Int64 }

func (c *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (*queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// countingPool returns a pool on a fresh database that counts its
// statements.
func countingPool(t *testing.T) (*pgxpool.Pool, *queryCounter) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	queries := &queryCounter{}
	cfg.ConnConfig.Tracer = queries
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, queries
}

// Asking for a reset tells nothing of whether an account has the address:
// for a known, an unknown and a disabled account the answer is the same to
// the byte, after the same number of statements.
func TestForgotEnumerationIsImpossible(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, queries := countingPool(t)
	e := newEnvOnWith(t, pool, nil)
	ada, dis := e.user("ada@example.org", "ada-password"), e.user("dis@example.org", "dis-password")
	if err := e.store.Admin.SetUserDisabled(ctx, accounting.OSActor("t"), dis.ID, true); err != nil {
		t.Fatal(err)
	}
	ask := func(email string) (int, string, int64) {
		queries.n.Store(0)
		status, body := e.post("/password/forgot", "application/x-www-form-urlencoded",
			[]byte(url.Values{"email": {email}}.Encode()))
		return status, body, queries.n.Load()
	}
	// An instance's first job insert also asks PostgreSQL's version and
	// notifies River's workers, whatever the address: a request before the
	// ones compared takes that turn.
	ask("first@example.org")
	status, body, n := ask("ada@example.org")
	if status != http.StatusOK || n == 0 {
		t.Fatalf("known address: status %d after %d statements", status, n)
	}
	t.Logf("a known address: status %d, %d bytes, %d statements", status, len(body), n)
	for _, other := range []string{"nobody@example.org", "dis@example.org"} {
		if s, b, m := ask(other); s != status || b != body || m != n {
			t.Errorf("%s: status %d after %d statements, the body the same: %v; for a known address %d after %d",
				other, s, m, b == body, status, n)
		}
	}
	var toAda, toDis, all int
	err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE user_id = $1), count(*) FILTER (WHERE user_id = $2), count(*)
		FROM mail_outbox`, ada.ID, dis.ID).Scan(&toAda, &toDis, &all)
	if err != nil || toAda != 1 || toDis != 0 || all != 1 {
		t.Errorf("outbox: %d to Ada, %d to the disabled account, %d in all (%v); want 1, 0, 1", toAda, toDis, all, err)
	}
}

// expiredLinks returns links of each kind that have expired, keyed by
// their path, and a reset link that was used.
func expiredLinks(t *testing.T, e *env) (expired map[string]string, used string) {
	t.Helper()
	ctx := context.Background()
	ada := e.user("ada@example.org", "ada-password")
	e.user("carol@example.org", "carol-password")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.store.Accounts.RequestPasswordReset(ctx, "carol@example.org"))
	used = lastSecret(t, e.store, accounting.MailPasswordReset)
	if s, _, _ := do(t, e.browser(), "POST", e.http.URL+"/password/reset/"+used, url.Values{"password": {"new-password"}}, nil); s != 303 {
		t.Fatalf("using a reset link: status %d", s)
	}
	must(e.store.Accounts.RequestPasswordReset(ctx, "ada@example.org"))
	expired = map[string]string{"password/reset/": lastSecret(t, e.store, accounting.MailPasswordReset)}
	_, err := e.store.Accounts.SignUp(ctx, accounting.NewUser{Email: "bob@example.org", Password: "bob-password"})
	must(err)
	expired["email/confirm/"] = lastSecret(t, e.store, accounting.MailWelcome)
	must(e.store.Mail.SetAlerts(ctx, ada.ID, accounting.Alerts{Weekly: true}))
	_, err = e.pool.Exec(ctx, `UPDATE users SET email_confirmed_at = now() WHERE id = $1`, ada.ID)
	must(err)
	_, err = e.store.Mail.QueueAlerts(ctx, time.Now())
	must(err)
	expired["unsubscribe/"] = lastSecret(t, e.store, accounting.MailWeeklySummary)
	_, err = e.pool.Exec(ctx, `UPDATE user_tokens SET expires_at = now() - interval '1 minute'`)
	must(err)
	return expired, used
}

// Bad addresses are form errors and bad links are 410, never a 500.
func TestMailFormsAndLinksRefuseBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, email := range []string{"a@example.org\r\nBcc: b@example.org", strings.Repeat("a", 288) + "@example.org", "a\xff@example.org"} {
		status, page, _ := do(t, e.browser(), "POST", e.http.URL+"/password/forgot", url.Values{"email": {email}}, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(page, `id="email-error"`) {
			t.Errorf("forgot %q: status %d, want 422 with a message on the email field", email, status)
		}
	}
	expired, used := expiredLinks(t, e)
	random := make([]byte, 32)
	rand.Read(random)
	form := url.Values{"password": {""}} // invalid too: a dead link is told first
	for path, old := range expired {
		for _, token := range []string{old, "x", "%FF", strings.Repeat("A", 300), base64.RawURLEncoding.EncodeToString(random)} {
			for _, method := range []string{"GET", "POST"} {
				status, page, _ := do(t, e.browser(), method, e.http.URL+"/"+path+token, form, nil)
				if status != http.StatusGone || !strings.Contains(page, "does not work any more") {
					t.Errorf("%s /%s%.50s: status %d, want 410", method, path, token, status)
				}
			}
		}
	}
	for _, method := range []string{"GET", "POST"} {
		if status, _, _ := do(t, e.browser(), method, e.http.URL+"/password/reset/"+used, form, nil); status != http.StatusGone {
			t.Errorf("%s a used reset link: status %d, want 410", method, status)
		}
	}
}

// oneClick posts to an alert's List-Unsubscribe URL the way a mail
// provider does (RFC 8058): no cookies, no Origin.
func oneClick(t *testing.T, e *mailEnv, m smtptest.Message) {
	t.Helper()
	list := regexp.MustCompile(`^<(` + regexp.QuoteMeta(e.base) + `unsubscribe/[A-Za-z0-9_-]{43})>$`).
		FindStringSubmatch(m.Header.Get("List-Unsubscribe"))
	if list == nil || m.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Fatalf("List-Unsubscribe: %q, List-Unsubscribe-Post: %q", m.Header.Get("List-Unsubscribe"),
			m.Header.Get("List-Unsubscribe-Post"))
	}
	req, err := http.NewRequest("POST", list[1], strings.NewReader("List-Unsubscribe=One-Click"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := new(http.Client).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("one-click unsubscribe: status %d", resp.StatusCode)
	}
}

// signUpAndConfirm signs vol@example.org up and follows the link mailed
// over SMTP, which makes the account with its address confirmed; it returns
// the browser, logged in.
func signUpAndConfirm(t *testing.T, e *mailEnv) *http.Client {
	t.Helper()
	c := e.browser()
	signup := url.Values{"email": {"vol@example.org"}, "name": {"Vol"}, "password": {"secret-pass"}}
	if status, _, _ := do(t, c, "POST", e.base+"signup", signup, nil); status != http.StatusSeeOther {
		t.Fatalf("sign-up: status %d", status)
	}
	mail := e.waitMail("sign-up link", func(ms []smtptest.Message) bool { return len(withSubject(t, ms, "Finish signing up")) > 0 })
	link := linkTo(t, withSubject(t, mail, "Finish signing up")[0], e.base, "signup/finish/")
	if status, page, _ := do(t, c, "GET", link, nil, nil); status != http.StatusOK || !strings.Contains(page, "vol@example.org") {
		t.Fatalf("GET the sign-up link: status %d", status)
	}
	if status, _, h := do(t, c, "POST", link, url.Values{"password": {"secret-pass"}}, nil); status != http.StatusSeeOther ||
		h.Get("Location") != "/" {
		t.Fatalf("POST the sign-up link: status %d to %q", status, h.Get("Location"))
	}
	return c
}

// A sign-up's link confirms the address; the alerts chosen then arrive, a silence
// alert once per silence, and each is turned off by one click.
func TestAlertsMailAndOneClickUnsubscribe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t, func(cfg *web.Config) { cfg.AlertsEvery = 200 * time.Millisecond })
	e.project(accounting.Project{URL: fixtureURL, Name: "Fixture"})
	c := signUpAndConfirm(t, e)
	alerts := url.Values{"silence": {"on"}, "silence_days": {"3"}, "weekly": {"on"}}
	if status, _, _ := do(t, c, "POST", e.base+"settings/alerts", alerts, nil); status != http.StatusSeeOther {
		t.Fatalf("POST /settings/alerts: status %d", status)
	}
	if status, join := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "secret-pass")); status != 200 || join.ErrorNum != 0 {
		t.Fatalf("join: status %d, error %q", status, join.ErrorMsg)
	}
	if _, err := e.pool.Exec(ctx, `UPDATE hosts SET last_rpc_at = now() - interval '4 days'`); err != nil {
		t.Fatal(err)
	}
	e.waitMail("silence alert and weekly summary", func(ms []smtptest.Message) bool {
		return len(withSubject(t, ms, "stopped contacting")) > 0 && len(withSubject(t, ms, "Your week")) > 0
	})
	time.Sleep(time.Second) // five more rounds of alerts
	silence, weekly := withSubject(t, e.relay.Messages(), "stopped contacting"), withSubject(t, e.relay.Messages(), "Your week")
	if len(silence) != 1 || len(weekly) != 1 {
		t.Fatalf("%d silence alerts and %d weekly summaries, want one of each", len(silence), len(weekly))
	}
	var id int64
	if err := e.pool.QueryRow(ctx, `SELECT id FROM users WHERE email = 'vol@example.org'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	oneClick(t, e, silence[0])
	if s, err := e.store.Mail.MailState(ctx, id); err != nil || s.Alerts != (accounting.Alerts{Weekly: true}) {
		t.Errorf("after unsubscribing from the silence alert: %+v, %v", s.Alerts, err)
	}
	oneClick(t, e, weekly[0])
	if s, err := e.store.Mail.MailState(ctx, id); err != nil || s.Alerts != (accounting.Alerts{}) {
		t.Errorf("after unsubscribing from the weekly summary: %+v, %v", s.Alerts, err)
	}
}

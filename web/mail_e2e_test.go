package web_test

import (
	"context"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/smtptest"
	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/web"
)

// mailEnv is a Cobble run by Server.Serve, so that its mailer and alert
// loops run, sending to a real SMTP server on loopback.
type mailEnv struct {
	*env
	base  string // the base URL, ending in "/"
	relay *smtptest.Server
}

// newMailEnv serves Cobble on a loopback port until the test ends, with
// quick retries; set changes the configuration.
func newMailEnv(t *testing.T, set func(*web.Config)) *mailEnv {
	t.Helper()
	relay := smtptest.Start(t)
	pool := testdb.New(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/"
	cfg := web.Config{Site: web.Site{Name: "Cobble Test", BaseURL: base, RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost, Mail: web.MailConfig{SMTPURL: relay.URL(), Poll: 50 * time.Millisecond, RetryAfter: 100 * time.Millisecond,
			Timeout: 2 * time.Second, MaxAttempts: 4}}
	if set != nil {
		set(&cfg)
	}
	srv, err := web.New(context.Background(), cfg, pool, quietLog())
	if err != nil {
		l.Close()
		t.Fatalf("web.New: %v", err)
	}
	serve(t, srv, l)
	// env's helpers only read http.URL: the server itself is Serve's.
	e := &env{t: t, pool: pool, store: srv.Store(), srv: srv, http: &httptest.Server{URL: strings.TrimSuffix(base, "/")}}
	return &mailEnv{env: e, base: base, relay: relay}
}

// serve runs srv on l until the test ends, and waits for it to stop.
func serve(t *testing.T, srv *web.Server, l net.Listener) {
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return within 30 s of its context's end")
		}
	})
}

// outboxRow is what the tests read of a mail_outbox row.
type outboxRow struct {
	ID        int64
	Status    string
	Attempts  int
	LastError string
	Secret    *string
}

func (r outboxRow) String() string {
	return fmt.Sprintf("row %d: %s after %d attempts, last error %q, token kept: %v",
		r.ID, r.Status, r.Attempts, r.LastError, r.Secret != nil)
}

// newestRow returns the newest outbox row of kind.
func (e *env) newestRow(kind accounting.MailKind) outboxRow {
	e.t.Helper()
	var r outboxRow
	err := e.pool.QueryRow(context.Background(), `SELECT id, status, attempts, last_error, secret FROM mail_outbox
		WHERE kind = $1 ORDER BY id DESC LIMIT 1`, kind).Scan(&r.ID, &r.Status, &r.Attempts, &r.LastError, &r.Secret)
	if err != nil {
		e.t.Fatalf("reading the newest %s row: %v", kind, err)
	}
	return r
}

// waitRow polls the newest outbox row of kind until ok accepts it.
func (e *env) waitRow(kind accounting.MailKind, within time.Duration, what string, ok func(outboxRow) bool) outboxRow {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := e.newestRow(kind)
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("after %v the newest %s is %v, not yet %s", within, kind, r, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exactly waits for n messages, then for settle more, and fails unless
// exactly n arrived.
func (e *mailEnv) exactly(n int, settle time.Duration) []smtptest.Message {
	e.t.Helper()
	e.relay.WaitMessages(e.t, n, 60*time.Second)
	time.Sleep(settle)
	msgs := e.relay.Messages()
	if len(msgs) != n {
		e.t.Fatalf("%d messages arrived, want exactly %d", len(msgs), n)
	}
	return msgs
}

// waitMail polls the messages until ok accepts them.
func (e *mailEnv) waitMail(what string, ok func([]smtptest.Message) bool) []smtptest.Message {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for msgs := e.relay.Messages(); ; msgs = e.relay.Messages() {
		if ok(msgs) {
			return msgs
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("after 60 s, still no %s among %d messages", what, len(msgs))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// withSubject returns the messages whose subject holds part.
func withSubject(t *testing.T, msgs []smtptest.Message, part string) []smtptest.Message {
	var found []smtptest.Message
	for _, m := range msgs {
		if strings.Contains(subject(t, m), part) {
			found = append(found, m)
		}
	}
	return found
}

// linkTo returns the message's link that starts with base+path, followed
// by a token.
func linkTo(t *testing.T, m smtptest.Message, base, path string) string {
	t.Helper()
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(base+path) + `[A-Za-z0-9_-]{43}$`)
	for _, l := range m.Links() {
		if re.MatchString(l) {
			return l
		}
	}
	t.Fatalf("no link %s<token> in the message; links: %q", base+path, m.Links())
	return ""
}

func subject(t *testing.T, m smtptest.Message) string {
	t.Helper()
	s, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		t.Fatalf("Subject %q: %v", m.Header.Get("Subject"), err)
	}
	return s
}

var messageID = regexp.MustCompile(`^<[^<>@\s]+@127\.0\.0\.1>$`)

// checkResetMail checks the headers and bodies of a password reset mailed
// to "to", and returns its link.
func checkResetMail(t *testing.T, m smtptest.Message, base, to string) string {
	t.Helper()
	h := m.Header
	if len(m.To) != 1 || m.To[0] != to {
		t.Errorf("envelope recipients %q, want only %s", m.To, to)
	}
	if a, err := mail.ParseAddress(h.Get("To")); err != nil || a.Address != to {
		t.Errorf("To: %q (%v), want %s", h.Get("To"), err, to)
	}
	if a, err := mail.ParseAddress(h.Get("From")); err != nil || a.Address == "" {
		t.Errorf("From: %q (%v)", h.Get("From"), err)
	}
	if d, err := h.Date(); err != nil || time.Since(d).Abs() > time.Hour {
		t.Errorf("Date: %q (%v)", h.Get("Date"), err)
	}
	if id := h.Get("Message-ID"); !messageID.MatchString(id) {
		t.Errorf("Message-ID: %q, want <...@127.0.0.1>", id)
	}
	if got := h.Get("Auto-Submitted"); got != "auto-generated" {
		t.Errorf("Auto-Submitted: %q", got)
	}
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || mt != "multipart/alternative" {
		t.Errorf("Content-Type: %q, want multipart/alternative", h.Get("Content-Type"))
	}
	if s := subject(t, m); !strings.Contains(s, "new password") {
		t.Errorf("Subject %q does not mention a new password", s)
	}
	link := linkTo(t, m, base, "password/reset/")
	if !strings.Contains(m.Text, link) || !strings.Contains(m.HTML, link) {
		t.Errorf("the text and the HTML do not both hold the link %s:\n%s\n%s", link, m.Text, m.HTML)
	}
	return link
}

// A reset link mailed over SMTP sets a new password, once; the outbox
// forgets the link's token once it is sent.
func TestResetMailOverSMTP(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, nil)
	e.user("ada@example.org", "old-password")
	status, _, _ := do(t, e.browser(), "POST", e.base+"password/forgot", url.Values{"email": {"ada@example.org"}}, nil)
	if status != http.StatusOK {
		t.Fatalf("POST /password/forgot: status %d", status)
	}
	link := checkResetMail(t, e.exactly(1, 300*time.Millisecond)[0], e.base, "ada@example.org")
	c := e.browser()
	if status, page, _ := do(t, c, "GET", link, nil, nil); status != http.StatusOK ||
		!strings.Contains(page, `action="/password/reset/`+link[len(e.base+"password/reset/"):]) {
		t.Fatalf("GET the link: status %d", status)
	}
	status, _, h := do(t, c, "POST", link, url.Values{"password": {"new-password"}}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/login?reset=done" {
		t.Fatalf("POST the link: status %d location %q", status, h.Get("Location"))
	}
	login := func(pw string) (int, string) {
		status, _, h := do(t, e.browser(), "POST", e.base+"login", url.Values{"email": {"ada@example.org"}, "password": {pw}}, nil)
		return status, h.Get("Location")
	}
	if status, loc := login("new-password"); status != http.StatusSeeOther || loc != "/" {
		t.Errorf("log in with the new password: status %d location %q", status, loc)
	}
	if status, _ := login("old-password"); status != http.StatusUnprocessableEntity {
		t.Errorf("log in with the old password: status %d, want 422", status)
	}
	e.waitRow(accounting.MailPasswordReset, 30*time.Second, "sent without its token", func(r outboxRow) bool {
		return r.Status == "sent" && r.Secret == nil
	})
	m := e.scrape()
	if m[`cobble_mail_sent_total{kind="password_reset",result="sent"}`] != 1 || m["cobble_mail_queue_depth"] != 0 {
		t.Errorf("metrics: sent %v, queue depth %v; want 1 and 0",
			m[`cobble_mail_sent_total{kind="password_reset",result="sent"}`], m["cobble_mail_queue_depth"])
	}
}

// A message queued while the SMTP server is down is retried until it is
// back, and then delivered once, without restarting Cobble.
func TestMailWaitsForTheSMTPServer(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, func(c *web.Config) { c.Mail.MaxAttempts = 20 })
	e.relay.Stop()
	e.user("ada@example.org", "old-password")
	if status, _, _ := do(t, e.browser(), "POST", e.base+"password/forgot", url.Values{"email": {"ada@example.org"}}, nil); status != 200 {
		t.Fatalf("POST /password/forgot: status %d", status)
	}
	e.waitRow(accounting.MailPasswordReset, 30*time.Second, "failed once and queued", func(r outboxRow) bool {
		return r.Attempts >= 1 && r.LastError != "" && r.Status == "queued"
	})
	if m := e.scrape(); m["cobble_mail_queue_depth"] != 1 || m[`cobble_mail_sent_total{kind="password_reset",result="retry"}`] < 1 {
		t.Errorf("metrics while the SMTP server is down: queue depth %v, retries %v",
			m["cobble_mail_queue_depth"], m[`cobble_mail_sent_total{kind="password_reset",result="retry"}`])
	}
	e.relay.Restart(t)
	msgs := e.exactly(1, time.Second)
	if len(msgs[0].To) != 1 || msgs[0].To[0] != "ada@example.org" {
		t.Errorf("delivered to %q", msgs[0].To)
	}
	e.waitRow(accounting.MailPasswordReset, 30*time.Second, "sent", func(r outboxRow) bool { return r.Status == "sent" })
}

// A recipient with a header in it, which only a row written past the
// domain's checks can hold, is refused: nothing reaches the injected
// address, and the message ends failed with the reason.
func TestMailRecipientCannotInjectHeaders(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, nil)
	insert := func(to string) {
		t.Helper()
		_, err := e.pool.Exec(context.Background(), `INSERT INTO mail_outbox (kind, recipient, data)
			VALUES ('email_changed', $1, '{"email": "n@example.org", "old_email": "o@example.org"}')`, to)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.Mail.EnqueueStrayMail(context.Background()); err != nil { // its job, as queueMail would
			t.Fatal(err)
		}
	}
	insert("x@example.org\r\nBcc: evil@example.org")
	r := e.waitRow(accounting.MailEmailChanged, 30*time.Second, "failed", func(r outboxRow) bool { return r.Status == "failed" })
	if r.Attempts != 1 || !strings.Contains(r.LastError, "recipient") {
		t.Errorf("the row ended after %d attempts with %q, want 1 (it can never be sent) and a reason about the recipient",
			r.Attempts, r.LastError)
	}
	insert("ok@example.org") // the sender still works, and this test sees what it sends
	for _, m := range e.exactly(1, 300*time.Millisecond) {
		if strings.Join(m.To, ",") != "ok@example.org" || strings.Contains(string(m.Data), "evil") {
			t.Errorf("a message went to %q:\n%s", m.To, m.Data)
		}
	}
}

package web_test

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/smtptest"
	"github.com/cobble-am/cobble/web"
)

// outage is how long the database stays away in TestMailSentOnceAcrossAnOutage.
const outage = 3 * time.Second

// The relay takes a message, and the database goes away before the
// sender can record it as sent: its connections are cut and new ones
// refused for a few seconds. The sender keeps trying to record the
// delivery while its claim on the message lasts, so the message is
// recorded as sent once the database is back, and arrives exactly once.
func TestMailSentOnceAcrossAnOutage(t *testing.T) {
	t.Parallel()
	direct, proxied, proxy := cuttable(t)
	relay := smtptest.Start(t)
	var once sync.Once
	relay.OnAccept(func(smtptest.Message) {
		once.Do(func() {
			proxy.Outage()
			time.AfterFunc(outage, func() { proxy.Refuse(false) })
		})
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/"
	cfg := web.Config{Site: web.Site{Name: "Cobble Test", BaseURL: base, RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost, Mail: web.MailConfig{SMTPURL: relay.URL(), Poll: 50 * time.Millisecond, RetryAfter: 100 * time.Millisecond,
			Timeout: 2 * time.Second, MaxAttempts: 4}}
	srv, err := web.New(context.Background(), cfg, proxied, quietLog())
	if err != nil {
		l.Close()
		t.Fatalf("web.New: %v", err)
	}
	// The test's own reads and writes go straight to the database.
	e := &env{t: t, pool: direct, store: accounting.NewStore(direct, accounting.Options{PasswordCost: bcrypt.MinCost}),
		srv: srv, http: &httptest.Server{URL: strings.TrimSuffix(base, "/")}}
	e.user("ada@example.org", "ada-password")
	if err := e.store.Accounts.RequestPasswordReset(context.Background(), "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	serve(t, srv, l)

	// Without the retries, the claim (2 × Timeout + a minute) runs out and
	// the message goes again: the wait outlasts it.
	r := e.waitRow(accounting.MailPasswordReset, 90*time.Second, "sent", func(r outboxRow) bool { return r.Status == "sent" })
	took := time.Since(start)
	time.Sleep(time.Second) // time enough for a second delivery under way
	msgs := relay.Messages()
	if len(msgs) != 1 || r.Attempts != 1 {
		t.Errorf("%d messages arrived in %v and the %v, want one message, one attempt", len(msgs), took, r)
	}
	if took < outage {
		t.Errorf("recorded as sent %v after the start, before the database was back", took)
	}
}

package web

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/smtptest"
	"github.com/cobble-am/cobble/internal/testdb"
)

// A password reset asked for while a burst of weekly summaries waits in
// the outbox goes out with the first messages an instance sends, not
// after the burst: a volunteer locked out waits for the mail, nobody
// waits for a summary (issue 44). The summaries and the reset are queued
// before the instance starts, so that its first fetch finds them all; the
// SMTP server holds each message's reply until the test ends, so that the
// first messages to arrive are those of the first fetch, one per mail
// worker.
func TestResetMailGoesBeforeQueuedAlerts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool := testdb.New(t)
	store := accounting.NewStore(pool, accounting.Options{PasswordCost: bcrypt.MinCost})
	const summaries = 3 * mailWorkers
	if _, err := pool.Exec(ctx, `INSERT INTO users (email, name, password_hash, weekly_summary, email_confirmed_at)
		SELECT format('weekly-%s@example.org', i), 'Weekly', 'x', true, now() FROM generate_series(1, $1::int) AS i`,
		summaries); err != nil {
		t.Fatal(err)
	}
	if n, err := store.Mail.QueueAlerts(ctx, time.Now()); err != nil || n != summaries {
		t.Fatalf("queued %d alerts (%v), want %d weekly summaries", n, err, summaries)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO users (email, name, password_hash) VALUES ('locked-out@example.org', 'Ada', 'x')`); err != nil {
		t.Fatal(err)
	}
	if err := store.Accounts.RequestPasswordReset(ctx, "locked-out@example.org"); err != nil {
		t.Fatal(err)
	}

	relay := smtptest.Start(t)
	release := make(chan struct{})
	relay.OnAccept(func(smtptest.Message) { <-release })
	startMailServer(t, pool, relay.URL())
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the server and the relay stop

	wait := 2 * time.Minute
	if d, ok := t.Deadline(); ok {
		wait = min(wait, time.Until(d)/2)
	}
	first := relay.WaitMessages(t, mailWorkers, wait)[:mailWorkers]
	once.Do(func() { close(release) })
	var to []string
	for _, m := range first {
		to = append(to, m.To...)
	}
	if !slices.Contains(to, "locked-out@example.org") {
		t.Errorf("the first %d messages went to %v: the reset waited behind the %d summaries queued before it",
			mailWorkers, to, summaries)
	}
}

// startMailServer serves Cobble on pool, on a loopback port, sending mail
// to smtpURL, until the test ends.
func startMailServer(t *testing.T, pool *pgxpool.Pool, smtpURL string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/"
	srv, err := New(context.Background(), Config{Site: Site{Name: "Cobble Test", BaseURL: base, RepeatSec: 3600},
		MaxProjects: 4, PasswordCost: bcrypt.MinCost, Mail: MailConfig{SMTPURL: smtpURL, Poll: 50 * time.Millisecond}},
		pool, slog.New(slog.DiscardHandler))
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

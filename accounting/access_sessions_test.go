package accounting_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

func TestWebSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	u, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	laptop, err1 := s.Access.StartSession(ctx, u.ID, "Firefox/128.0\x00\x1b[31m", "192.0.2.1")
	phone, err2 := s.Access.StartSession(ctx, u.ID, "CriOS/126 iPhone", "2001:db8::/64")
	desk, err3 := s.Access.StartSession(ctx, u.ID, "Chrome/126", "198.51.100.7")
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Access.SessionUser(ctx, u.ID, laptop, "192.0.2.9"); err != nil || got.ID != u.ID {
		t.Fatalf("SessionUser: %+v %v", got, err)
	}
	if _, err := s.Access.SessionUser(ctx, u.ID+1, laptop, ""); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("another account's session id: %v, want ErrNotFound", err)
	}
	if _, err := s.Access.SessionUser(ctx, u.ID, 0, ""); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("a session without a row: %v, want ErrNotFound", err)
	}
	list, err := s.Access.Sessions(ctx, u.ID)
	if err != nil || len(list) != 3 {
		t.Fatalf("Sessions: %+v %v", list, err)
	}
	for _, w := range list {
		if w.ID == laptop && (w.UserAgent != "Firefox/128.0  [31m" || w.Address != "192.0.2.1") {
			t.Errorf("laptop session %+v: the user agent is not cleaned, or the address changed within a minute", w)
		}
	}

	// Last seen is written at most about once a minute.
	if _, err := pool.Exec(ctx, `UPDATE user_sessions SET started_at = now() - interval '1 hour',
		last_seen_at = now() - interval '2 minutes' WHERE id = $1`, laptop); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Access.SessionUser(ctx, u.ID, laptop, "192.0.2.9"); err != nil {
		t.Fatal(err)
	}
	var seenAgo time.Duration
	var addr string
	pool.QueryRow(ctx, `SELECT now() - last_seen_at, address FROM user_sessions WHERE id = $1`, laptop).Scan(&seenAgo, &addr)
	if seenAgo > time.Second || addr != "192.0.2.9" {
		t.Errorf("after two minutes, a request left last seen %v ago from %q", seenAgo, addr)
	}

	// A password change ends the others, keeping the one it names.
	if err := s.Accounts.ChangePassword(ctx, u.ID, phone, "first-pass", "second-pass"); err != nil {
		t.Fatal(err)
	}
	for id, live := range map[int64]bool{laptop: false, phone: true, desk: false} {
		if _, err := s.Access.SessionUser(ctx, u.ID, id, ""); (err == nil) != live {
			t.Errorf("session %d after a password change: %v, want live %v", id, err, live)
		}
	}
	again, _ := s.Access.StartSession(ctx, u.ID, "", "")
	if n, err := s.Access.EndOtherSessions(ctx, u.ID, again); n != 1 || err != nil {
		t.Errorf("EndOtherSessions: %d ended, %v; want the phone's", n, err)
	}
	if err := s.Access.EndSession(ctx, again); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.Access.Sessions(ctx, u.ID); len(list) != 0 {
		t.Errorf("sessions after ending all: %+v", list)
	}
}

// Expired sessions are not live, not listed, and their rows are removed
// at a later log-in.
func TestExpiredSessionsGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	other, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "bob@example.org", Password: "first-pass"})
	idle, _ := s.Access.StartSession(ctx, u.ID, "", "")
	old, _ := s.Access.StartSession(ctx, u.ID, "", "")
	bobs, _ := s.Access.StartSession(ctx, other.ID, "", "")
	if _, err := pool.Exec(ctx, `UPDATE user_sessions SET started_at = now() - interval '20 days',
		last_seen_at = now() - interval '15 days' WHERE id IN ($1, $2)`, idle, bobs); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE user_sessions SET started_at = now() - interval '31 days',
		last_seen_at = now() - interval '1 hour' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{idle, old} {
		if _, err := s.Access.SessionUser(ctx, u.ID, id, ""); !errors.Is(err, accounting.ErrNotFound) {
			t.Errorf("expired session %d: %v, want ErrNotFound", id, err)
		}
	}
	if list, _ := s.Access.Sessions(ctx, u.ID); len(list) != 0 {
		t.Errorf("expired sessions listed: %+v", list)
	}
	if _, err := s.Access.StartSession(ctx, u.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	var left int
	pool.QueryRow(ctx, `SELECT count(*) FROM user_sessions`).Scan(&left)
	if left != 1 {
		t.Errorf("%d session rows after a log-in, want only the new one (expired rows, Bob's too, removed)", left)
	}
}

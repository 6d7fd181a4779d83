package accounting_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// newestSecret returns the link token of the newest outbox message of kind.
func newestSecret(t *testing.T, s *accounting.Store, kind accounting.MailKind) string {
	t.Helper()
	for _, m := range outbox(t, s) {
		if m.Kind == kind && m.Secret != "" {
			return m.Secret
		}
	}
	t.Fatalf("no %s message with a link in the outbox", kind)
	return ""
}

func outbox(t *testing.T, s *accounting.Store) []accounting.Mail {
	t.Helper()
	ms, err := s.Mail.MailList(context.Background(), accounting.MailFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// countKind counts the outbox messages of kind.
func countKind(t *testing.T, s *accounting.Store, kind accounting.MailKind) int {
	n := 0
	for _, m := range outbox(t, s) {
		if m.Kind == kind {
			n++
		}
	}
	return n
}

func storeAndPool(t *testing.T) (*accounting.Store, *pgxpool.Pool) {
	pool := testdb.New(t)
	return accounting.NewStore(pool, testOptions), pool
}

func TestPasswordReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	u, err := s.Accounts.SignUp(ctx, accounting.NewUser{Email: "ada@example.org", Name: "Ada", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if countKind(t, s, accounting.MailWelcome) != 1 {
		t.Fatal("sign-up queued no welcome")
	}
	res, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "first-pass", "cpid-1"))
	if err != nil {
		t.Fatal(err)
	}
	session, err := s.Access.StartSession(ctx, u.ID, "Firefox/128.0", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"nobody@example.org", "ADA@example.org"} {
		if err := s.Accounts.RequestPasswordReset(ctx, email); err != nil {
			t.Fatal(err)
		}
	}
	if n := countKind(t, s, accounting.MailPasswordReset); n != 1 {
		t.Fatalf("%d reset messages, want 1 (for the known address only)", n)
	}
	first := newestSecret(t, s, accounting.MailPasswordReset)
	if err := s.Accounts.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	second := newestSecret(t, s, accounting.MailPasswordReset)
	if err := s.Accounts.ResetPassword(ctx, first, "new-password"); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("the replaced link: %v, want ErrLinkInvalid", err)
	}
	if err := s.Accounts.ResetPassword(ctx, second, "short"); err == nil || !strings.Contains(err.Error(), "password") {
		t.Errorf("a short password: %v", err)
	}
	if err := s.Accounts.ResetPassword(ctx, second, "new-password"); err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.ResetPassword(ctx, second, "third-password"); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("a used link: %v, want ErrLinkInvalid", err)
	}
	if _, err := s.Accounts.Login(ctx, "ada@example.org", "first-pass"); !errors.Is(err, accounting.ErrBadPassword) {
		t.Errorf("old password: %v", err)
	}
	if _, err := s.Accounts.Login(ctx, "ada@example.org", "new-password"); err != nil {
		t.Errorf("new password: %v", err)
	}
	if _, err := s.Access.SessionUser(ctx, u.ID, session, "192.0.2.1"); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("the reset did not end the account's sessions: %v", err)
	}
	if st, _ := s.Mail.MailState(ctx, u.ID); !st.Confirmed {
		t.Error("a completed reset did not confirm the address")
	}
	if _, err := s.Sync.Sync(ctx, accounting.SyncRequest{Authenticator: res.Authenticator, Now: time.Now()}); err != nil {
		t.Errorf("the computer stops working after a reset: %v", err)
	}
	// A link past its hour does not work.
	if err := s.Accounts.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE user_tokens SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.CheckPasswordReset(ctx, newestSecret(t, s, accounting.MailPasswordReset)); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("an expired link: %v, want ErrLinkInvalid", err)
	}
}

func TestPasswordResetLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	u, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	for range accounting.MailsPerHour + 2 {
		if err := s.Accounts.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
			t.Fatal(err)
		}
	}
	if n := countKind(t, s, accounting.MailPasswordReset); n != accounting.MailsPerHour {
		t.Errorf("%d resets mailed in an hour, want %d", n, accounting.MailsPerHour)
	}
	// The newest link mailed still works: the owner is not locked out.
	if err := s.Accounts.CheckPasswordReset(ctx, newestSecret(t, s, accounting.MailPasswordReset)); err != nil {
		t.Errorf("the newest link mailed: %v", err)
	}
	if err := s.Accounts.AdminSendPasswordReset(ctx, accounting.OSActor("test"), u.ID); !errors.Is(err, accounting.ErrLimited) {
		t.Errorf("an admin's reset over the limit: %v, want ErrLimited", err)
	}
	if _, err := pool.Exec(ctx, `UPDATE mail_outbox SET created_at = now() - interval '2 hours'`); err != nil {
		t.Fatal(err)
	}
	if err := s.Admin.SetUserDisabled(ctx, accounting.OSActor("test"), u.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	if n := countKind(t, s, accounting.MailPasswordReset); n != accounting.MailsPerHour {
		t.Errorf("a disabled account was mailed a reset")
	}
	if err := s.Accounts.CheckPasswordReset(ctx, newestSecret(t, s, accounting.MailPasswordReset)); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("a disabled account's link: %v, want ErrLinkInvalid", err)
	}
}

func TestMailBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	for _, email := range []string{"ada@example.org\r\nBcc: x@example.org", "a\nb@example.org",
		strings.Repeat("a", 290) + "@example.org", "ada\xff@example.org", ""} {
		var invalid *accounting.ValidationError
		if err := s.Accounts.RequestPasswordReset(ctx, email); !errors.As(err, &invalid) || invalid.Fields["email"].IsZero() {
			t.Errorf("reset for %q: %v, want a message on email", email, err)
		}
	}
	for _, token := range []string{"", "short", strings.Repeat("A", 43), strings.Repeat("x", 300), "\xff\xfe",
		"../../etc/passwd"} {
		if err := s.Accounts.CheckPasswordReset(ctx, token); !errors.Is(err, accounting.ErrLinkInvalid) {
			t.Errorf("reset link %q: %v", token, err)
		}
		if _, err := s.Accounts.ConfirmEmail(ctx, token); !errors.Is(err, accounting.ErrLinkInvalid) {
			t.Errorf("confirm link %q: %v", token, err)
		}
		if _, err := s.Mail.Unsubscribe(ctx, token, true); !errors.Is(err, accounting.ErrLinkInvalid) {
			t.Errorf("unsubscribe link %q: %v", token, err)
		}
	}
}

func TestConfirmAndChangeEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, err := s.Accounts.SignUp(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	welcome := newestSecret(t, s, accounting.MailWelcome)
	if err := s.Accounts.SendConfirmation(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accounts.ConfirmEmail(ctx, welcome); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("a replaced confirmation link: %v", err)
	}
	c, err := s.Accounts.ConfirmEmail(ctx, newestSecret(t, s, accounting.MailConfirm))
	if err != nil || c.Changed || c.Email != "ada@example.org" {
		t.Fatalf("confirm: %+v %v", c, err)
	}
	if err := s.Accounts.SendConfirmation(ctx, u.ID); !errors.Is(err, accounting.ErrConflict) {
		t.Errorf("confirming a confirmed address again: %v", err)
	}
	if err := s.Accounts.RequestEmailChange(ctx, u.ID, "first-pass", "ada@new.example.org"); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Mail.MailState(ctx, u.ID); st.PendingEmail != "ada@new.example.org" {
		t.Errorf("pending change %q", st.PendingEmail)
	}
	if got, _ := s.Accounts.User(ctx, u.ID); got.Email != "ada@example.org" {
		t.Error("the email changed before its link was followed")
	}
	c, err = s.Accounts.ConfirmEmail(ctx, newestSecret(t, s, accounting.MailEmailChange))
	if err != nil || !c.Changed {
		t.Fatalf("email change: %+v %v", c, err)
	}
	if _, err := s.Accounts.Login(ctx, "ada@new.example.org", "first-pass"); err != nil {
		t.Errorf("log in with the new address: %v", err)
	}
	told := outbox(t, s)[0]
	if told.Kind != accounting.MailEmailChanged || told.To != "ada@example.org" || told.Data.Email != "ada@new.example.org" {
		t.Errorf("the old address was not told: %+v", told)
	}
}

// A pending change is dropped by a password change: the password hash it
// holds was made with the old password.
func TestEmailChangeDroppedByPasswordChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err := s.Accounts.RequestEmailChange(ctx, u.ID, "first-pass", "ada@new.example.org"); err != nil {
		t.Fatal(err)
	}
	link := newestSecret(t, s, accounting.MailEmailChange)
	if err := s.Accounts.ChangePassword(ctx, u.ID, 0, "first-pass", "second-pass"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accounts.ConfirmEmail(ctx, link); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("a change requested before a password change: %v", err)
	}
}

// Senders taking the messages of one outbox at once never get the same
// message twice within its lease.
func TestTakeMailOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	other := accounting.NewStore(pool, testOptions)
	if _, err := pool.Exec(ctx, `INSERT INTO mail_outbox (kind, recipient, data)
		SELECT 'email_changed', 'v' || i || '@example.org', '{}' FROM generate_series(1, 100) i`); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for _, st := range []*accounting.Store{s, other, s, other} {
		wg.Go(func() {
			for _, q := range outbox(t, s) {
				m, err := st.Mail.TakeMail(ctx, q.ID, time.Minute)
				if errors.Is(err, accounting.ErrNotFound) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[m.ID]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 100 {
		t.Errorf("%d messages claimed, want 100", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("message %d claimed %d times", id, n)
		}
	}
}

func TestMailRetryAndGiveUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Accounts.SignUp(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	id := outbox(t, s)[0].ID
	m, err := s.Mail.TakeMail(ctx, id, time.Minute)
	if err != nil || m.Attempts != 1 || m.Secret == "" {
		t.Fatalf("took %+v (%v)", m, err)
	}
	if _, err := s.Mail.TakeMail(ctx, id, time.Minute); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("a claimed message was taken again within its lease (%v)", err)
	}
	// A job that finds it claimed learns until when (for a dead sender's).
	if until, err := s.Mail.MailClaimedUntil(ctx, id); err != nil || time.Until(until) <= 0 {
		t.Errorf("claimed until %v (%v), want a time to come", until, err)
	}
	if err := s.Mail.MarkMailFailed(ctx, m, "451 4.3.0 try\r\nlater \xff", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Mail.MailClaimedUntil(ctx, id); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("after its failure, the message is claimed (%v), want ErrNotFound", err)
	}
	m, err = s.Mail.TakeMail(ctx, id, time.Minute)
	if err != nil || m.Attempts != 2 || m.LastError != "451 4.3.0 try  later  " {
		t.Fatalf("retried %+v (%v)", m, err)
	}
	if err := s.Mail.MarkMailFailed(ctx, m, "550 5.1.1 no such user", 0); err != nil {
		t.Fatal(err)
	}
	m = outbox(t, s)[0]
	if m.Status != accounting.MailFailed || m.Secret != "" || m.LastError != "550 5.1.1 no such user" {
		t.Errorf("given up: %+v", m)
	}
	q, err := s.Mail.MailQueueState(ctx)
	if err != nil || q.Failed != 1 || q.Queued != 0 {
		t.Errorf("queue %+v %v", q, err)
	}
}

// MailKinds is the list the database allows: each kind has its one name
// in accounting, and nothing else can be queued.
func TestMailKindsMatchTheDatabase(t *testing.T) {
	t.Parallel()
	_, pool := storeAndPool(t)
	var def string
	err := pool.QueryRow(context.Background(), `SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conname = 'mail_outbox_kind_check'`).Scan(&def)
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(def, "'")
	if n != 2*len(accounting.MailKinds) {
		t.Errorf("the CHECK allows %d kinds, MailKinds has %d: %s", n/2, len(accounting.MailKinds), def)
	}
	for _, k := range accounting.MailKinds {
		if !strings.Contains(def, "'"+string(k)+"'") {
			t.Errorf("the CHECK does not allow %s", k)
		}
	}
}

// A sender whose lease ran out, so that another sender claimed the message
// again, cannot record an outcome over the other's: only the sender that
// holds the latest claim marks the message.
func TestOnlyTheLatestClaimMarks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Accounts.SignUp(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	id := outbox(t, s)[0].ID
	first, err1 := s.Mail.TakeMail(ctx, id, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	second, err2 := s.Mail.TakeMail(ctx, id, time.Minute)
	if err1 != nil || err2 != nil || second.Attempts != 2 {
		t.Fatalf("claims %+v (%v) then %+v (%v)", first, err1, second, err2)
	}
	if err := s.Mail.MarkMailFailed(ctx, first, "timed out", 0); !errors.Is(err, accounting.ErrConflict) {
		t.Errorf("the stale claim's outcome: %v, want ErrConflict", err)
	}
	if m := outbox(t, s)[0]; m.Status != accounting.MailQueued || m.Secret == "" {
		t.Errorf("the stale claim gave the message up: %+v", m)
	}
	if err := s.Mail.MarkMailSent(ctx, second, "smtp"); err != nil {
		t.Fatal(err)
	}
	if m := outbox(t, s)[0]; m.Status != accounting.MailSent {
		t.Errorf("the latest claim's outcome was not kept: %+v", m)
	}
}

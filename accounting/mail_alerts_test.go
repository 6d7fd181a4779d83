package accounting_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// Silence alerts: one mail per silence, only to a confirmed address, only
// for connected computers; weekly summaries once a week; unsubscribe
// links turn each off.
func TestAlerts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	u, err := s.Accounts.SignUp(ctx, accounting.NewUser{Email: "ada@example.org", Name: "Ada", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "first-pass", "cpid-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE hosts SET last_rpc_at = now() - interval '4 days', domain_name = 'lab-pc'`); err != nil {
		t.Fatal(err)
	}
	queue := func() int {
		t.Helper()
		n, err := s.Mail.QueueAlerts(ctx, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := s.Mail.SetAlerts(ctx, u.ID, accounting.Alerts{SilenceDays: 3, Weekly: true}); err != nil {
		t.Fatal(err)
	}
	if n := queue(); n != 0 {
		t.Errorf("%d alerts to an unconfirmed address", n)
	}
	if _, err := s.Accounts.ConfirmEmail(ctx, newestSecret(t, s, accounting.MailWelcome)); err != nil {
		t.Fatal(err)
	}
	if n := queue(); n != 2 {
		t.Fatalf("%d alerts queued, want a silence alert and a weekly summary", n)
	}
	if n := queue(); n != 0 {
		t.Errorf("%d more alerts for the same silence and week", n)
	}
	silence := outbox(t, s)
	var alert accounting.Mail
	for _, m := range silence {
		if m.Kind == accounting.MailSilenceAlert {
			alert = m
		}
	}
	if len(alert.Data.Silent) != 1 || alert.Data.Silent[0].Name != "lab-pc" || alert.Data.Days != 3 {
		t.Errorf("silence alert %+v", alert.Data)
	}
	// The computer is back, then silent again: a new silence, a new alert.
	if _, err := pool.Exec(ctx, `UPDATE hosts SET silence_alerted_at = now() - interval '5 days',
		last_rpc_at = now() - interval '3 days 1 hour'`); err != nil {
		t.Fatal(err)
	}
	if n := queue(); n != 1 {
		t.Errorf("%d alerts for a new silence, want 1", n)
	}
	a, err := s.Mail.Unsubscribe(ctx, alert.Secret, true)
	if err != nil || a != accounting.AlertSilence {
		t.Fatalf("unsubscribe: %v %v", a, err)
	}
	if _, err := s.Mail.Unsubscribe(ctx, alert.Secret, true); err != nil {
		t.Errorf("following an unsubscribe link twice: %v", err)
	}
	if st, _ := s.Mail.MailState(ctx, u.ID); st.Alerts.SilenceDays != 0 || !st.Alerts.Weekly {
		t.Errorf("after unsubscribing from silence alerts: %+v", st.Alerts)
	}
	if err := s.Mail.SetAlerts(ctx, u.ID, accounting.Alerts{SilenceDays: 61}); err == nil {
		t.Error("61 days taken")
	}
	if _, err := s.Mail.Unsubscribe(ctx, "no-such-link", false); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("unknown link: %v", err)
	}
}

// A link of another purpose is no confirmation link: an unsubscribe or a
// reset token posted to /email/confirm/ confirms nothing and keeps working.
func TestConfirmTakesOnlyConfirmationLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, err := s.Accounts.SignUp(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	reset := newestSecret(t, s, accounting.MailPasswordReset)
	if _, err := s.Accounts.ConfirmEmail(ctx, reset); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("a reset link as a confirmation: %v, want ErrLinkInvalid", err)
	}
	if st, _ := s.Mail.MailState(ctx, u.ID); st.Confirmed {
		t.Error("a reset link confirmed the address without a reset")
	}
	if err := s.Accounts.CheckPasswordReset(ctx, reset); err != nil {
		t.Errorf("the reset link stopped working: %v", err)
	}
}

package accounting_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// newestOf returns the newest outbox message of kind.
func newestOf(t *testing.T, s *accounting.Store, kind accounting.MailKind) accounting.Mail {
	t.Helper()
	for _, m := range outbox(t, s) {
		if m.Kind == kind {
			return m
		}
	}
	t.Fatalf("no %s message in the outbox", kind)
	return accounting.Mail{}
}

// A message asked for on a page is in the page's language; a sign-up's
// language becomes the account's; alerts are in the account's language.
func TestMailLanguage(t *testing.T) {
	t.Parallel()
	s, pool := storeAndPool(t)
	ctx := context.Background()
	german := locale.With(ctx, locale.Default().Get("de"))
	if err := s.Accounts.RequestSignUp(german, accounting.NewUser{Email: "ada@example.org", Name: "Ada", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	if m := newestOf(t, s, accounting.MailSignup); m.Language != "de" {
		t.Errorf("sign-up link in %q, want de", m.Language)
	}
	// Finished in an English page, the account keeps the sign-up's language.
	u, err := s.Accounts.FinishSignUp(ctx, newestSecret(t, s, accounting.MailSignup), "first-pass")
	if err != nil || u.Language != "de" {
		t.Fatalf("FinishSignUp: language %q, %v", u.Language, err)
	}
	if err := s.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: "ada@example.org", Password: "other-pass"}); err != nil {
		t.Fatal(err)
	}
	// Mail to an account is in the language it chose, whatever the page.
	if m := newestOf(t, s, accounting.MailSignupTaken); m.Language != "de" {
		t.Errorf("note to a German account, asked for on an English page, is in %q", m.Language)
	}
	if err := s.Accounts.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	if m := newestOf(t, s, accounting.MailPasswordReset); m.Language != "de" {
		t.Errorf("reset link to a German account, asked for on an English page, in %q", m.Language)
	}
	// An account that chose none gets the language of the page.
	if err := s.Accounts.SetLanguage(ctx, u.ID, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.RequestPasswordReset(german, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	if m := newestOf(t, s, accounting.MailPasswordReset); m.Language != "de" {
		t.Errorf("reset link asked for on a German page in %q, want de", m.Language)
	}
	if err := s.Accounts.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	if m := newestOf(t, s, accounting.MailPasswordReset); m.Language != "en" {
		t.Errorf("reset link asked for on an English page in %q, want en", m.Language)
	}
	if err := s.Accounts.SetLanguage(ctx, u.ID, "de"); err != nil {
		t.Fatal(err)
	}
	// Alerts, made in the background, are in the account's language.
	if _, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "first-pass", "cpid-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE hosts SET last_rpc_at = now() - interval '4 days', domain_name = 'lab-pc'`); err != nil {
		t.Fatal(err)
	}
	if err := s.Mail.SetAlerts(ctx, u.ID, accounting.Alerts{SilenceDays: 3, Weekly: true}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Mail.QueueAlerts(ctx, time.Now()); err != nil || n != 2 {
		t.Fatalf("QueueAlerts: %d %v, want 2", n, err)
	}
	if m := newestOf(t, s, accounting.MailSilenceAlert); m.Language != "de" {
		t.Errorf("silence alert in %q, want de", m.Language)
	}
	weekly := newestOf(t, s, accounting.MailWeeklySummary)
	if weekly.Language != "de" || len(weekly.Data.Notes) == 0 || !strings.Contains(strings.Join(weekly.Data.Notes, " "), "nicht bei Cobble gemeldet") {
		t.Errorf("weekly summary in %q, notes %q", weekly.Language, weekly.Data.Notes)
	}
}

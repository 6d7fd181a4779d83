package accounting_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

func TestSignUpByLink(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	if err := s.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: " Ada@Example.org ", Name: "Ada", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	first := newestSecret(t, s, accounting.MailSignup)
	if err := s.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: "ada@example.org", Password: "other-pass"}); err != nil {
		t.Fatal(err)
	}
	second := newestSecret(t, s, accounting.MailSignup)
	if _, err := s.Accounts.Login(ctx, "ada@example.org", "first-pass"); !errors.Is(err, accounting.ErrUnknownAccount) {
		t.Errorf("log-in before the link is followed: %v, want ErrUnknownAccount", err)
	}
	if su, err := s.Accounts.CheckSignUp(ctx, first); err != nil || su.Email != "Ada@Example.org" || su.Name != "Ada" {
		t.Errorf("CheckSignUp: %+v %v", su, err)
	}
	var invalid *accounting.ValidationError
	if _, err := s.Accounts.FinishSignUp(ctx, first, "other-pass"); !errors.As(err, &invalid) || invalid.Fields["password"].IsZero() {
		t.Errorf("finishing with another password: %v", err)
	}
	u, err := s.Accounts.FinishSignUp(ctx, first, "first-pass")
	if err != nil || u.Email != "Ada@Example.org" || u.Name != "Ada" {
		t.Fatalf("FinishSignUp: %+v %v", u, err)
	}
	if _, err := s.Accounts.Login(ctx, "ada@example.org", "first-pass"); err != nil {
		t.Errorf("log-in after the link: %v", err)
	}
	if st, _ := s.Mail.MailState(ctx, u.ID); !st.Confirmed {
		t.Error("the address is not confirmed by following the link")
	}
	for name, token := range map[string]string{"used": first, "another of the address": second, "malformed": "x'--"} {
		if _, err := s.Accounts.FinishSignUp(ctx, token, "other-pass"); !errors.Is(err, accounting.ErrLinkInvalid) {
			t.Errorf("the %s link: %v, want ErrLinkInvalid", name, err)
		}
		if _, err := s.Accounts.CheckSignUp(ctx, token); !errors.Is(err, accounting.ErrLinkInvalid) {
			t.Errorf("checking the %s link: %v, want ErrLinkInvalid", name, err)
		}
	}
	// An expired link does not work, and is cleaned up.
	if err := s.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: "bob@example.org", Password: "bobs-pass"}); err != nil {
		t.Fatal(err)
	}
	bobs := newestSecret(t, s, accounting.MailSignup)
	pool.Exec(ctx, `UPDATE signups SET expires_at = now() - interval '1 second'`)
	if _, err := s.Accounts.FinishSignUp(ctx, bobs, "bobs-pass"); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("an expired link: %v", err)
	}
	if n, err := s.Accounts.DeleteExpiredTokens(ctx); err != nil || n != 1 {
		t.Errorf("DeleteExpiredTokens: %d %v, want the expired sign-up", n, err)
	}
	// A link whose address got an account meanwhile (in another letter
	// case) makes no second one.
	if err := s.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: "carol@example.org", Password: "carols-pass"}); err != nil {
		t.Fatal(err)
	}
	carols := newestSecret(t, s, accounting.MailSignup)
	if _, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "Carol@Example.org", Password: "admins-pass"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accounts.FinishSignUp(ctx, carols, "carols-pass"); !errors.Is(err, accounting.ErrLinkInvalid) {
		t.Errorf("a link of an address with an account by now: %v, want ErrLinkInvalid", err)
	}
}

// Each kind of sign-up message goes to an address at most MailsPerHour
// times an hour; the answer stays the same.
func TestSignUpMailsAreLimited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "taken@example.org", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	for range accounting.MailsPerHour + 2 {
		for _, email := range []string{"taken@example.org", "new@example.org"} {
			if err := s.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: email, Password: "some-pass"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := countKind(t, s, accounting.MailSignupTaken); n != accounting.MailsPerHour {
		t.Errorf("%d notes to the owner, want %d", n, accounting.MailsPerHour)
	}
	if n := countKind(t, s, accounting.MailSignup); n != accounting.MailsPerHour {
		t.Errorf("%d sign-up links, want %d", n, accounting.MailsPerHour)
	}
}

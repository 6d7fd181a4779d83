package accounting_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// Every way of choosing a password applies the one password rule: a
// control character (C0 or C1) is refused at sign-up, on a change and on a
// reset alike.
func TestEveryPasswordFollowsTheRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := storeAndPool(t)
	u, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	choose := []struct {
		name string
		set  func(password string) error
	}{
		{"CreateUser", func(p string) error {
			_, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "bob@example.org", Password: p})
			return err
		}},
		{"SignUp", func(p string) error {
			_, err := s.Accounts.SignUp(ctx, accounting.NewUser{Email: "cy@example.org", Password: p})
			return err
		}},
		{"ChangePassword", func(p string) error { return s.Accounts.ChangePassword(ctx, u.ID, 0, "first-pass", p) }},
		{"ResetPassword", func(p string) error {
			if err := s.Accounts.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
				return err
			}
			return s.Accounts.ResetPassword(ctx, newestSecret(t, s, accounting.MailPasswordReset), p)
		}},
	}
	for _, c := range choose {
		for _, bad := range []string{"\x01-control-first", "c1\u0085-control", "bad\xff-bytes-here"} {
			var invalid *accounting.ValidationError
			if err := c.set(bad); !errors.As(err, &invalid) || invalid.Fields["password"].IsZero() {
				t.Errorf("%s(%q): %v, want a ValidationError on password", c.name, bad, err)
			}
		}
	}
}

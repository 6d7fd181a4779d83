package accounting

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/internal/testdb"
)

// The operations that check a volunteer's password do their bcrypt work
// (a tenth of a second of CPU each, ten times that in a race build) with
// no connection of the pool held and the volunteer's row free: under load,
// a transaction open across it kept a connection and the row from others
// and ran the request past its deadline.
func TestPasswordWorkHoldsNoTransaction(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, s, u := passwordVolunteer(t)
	var held []string
	var during string
	var compares int
	check := func() {
		if n := pool.Stat().AcquiredConns(); n != 0 {
			held = append(held, during+": a connection held")
		}
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		tx, err := pool.Begin(lctx)
		if err != nil {
			t.Error(err)
			return
		}
		defer tx.Rollback(lctx)
		if _, err := tx.Exec(lctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE NOWAIT`, u.ID); err != nil {
			held = append(held, during+": the row locked")
		}
	}
	s.comparePassword = func(h, p []byte) error { compares++; check(); return bcrypt.CompareHashAndPassword(h, p) }
	s.generatePassword = func(p []byte, cost int) ([]byte, error) { check(); return bcrypt.GenerateFromPassword(p, cost) }
	for _, c := range []struct {
		name string
		do   func() error
	}{
		{"ChangePassword", func() error { return s.Accounts.ChangePassword(ctx, u.ID, 0, "first-pass", "second-pass") }},
		{"RequestEmailChange", func() error { return s.Accounts.RequestEmailChange(ctx, u.ID, "second-pass", "ada@new.example.org") }},
		{"DisableTwoFactor", func() error {
			err := s.Access.DisableTwoFactor(ctx, u.ID, "second-pass", "123456", time.Now())
			if err == nil {
				t.Error("DisableTwoFactor without two-factor sign-in: no error")
			}
			return nil
		}},
		{"DeleteUser", func() error { return s.Accounts.DeleteUser(ctx, u.ID, "second-pass") }},
	} {
		during = c.name
		if err := c.do(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	for _, h := range held {
		t.Errorf("during bcrypt, %s", h)
	}
	if compares != 4 {
		t.Errorf("%d passwords compared, want one for each of the 4 operations", compares)
	}
}

// A password changed between the check and the transaction (by another
// request or instance) makes the operation a conflict that saves nothing.
func TestPasswordChangedMeanwhileIsAConflict(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, s, u := passwordVolunteer(t)
	other := NewStore(pool, Options{PasswordCost: bcrypt.MinCost})
	s.comparePassword = func(h, p []byte) error {
		err := bcrypt.CompareHashAndPassword(h, p)
		if err := other.Accounts.ChangePassword(ctx, u.ID, 0, "first-pass", "other-pass"); err != nil {
			t.Fatalf("the change meanwhile: %v", err)
		}
		return err
	}
	if err := s.Accounts.ChangePassword(ctx, u.ID, 0, "first-pass", "second-pass"); !errors.Is(err, ErrConflict) {
		t.Errorf("ChangePassword after a change meanwhile: %v, want ErrConflict", err)
	}
	if _, err := other.Accounts.Login(ctx, "ada@example.org", "other-pass"); err != nil {
		t.Errorf("the password changed meanwhile no longer works: %v", err)
	}
}

// passwordVolunteer returns a pool on a new database, a store over it that
// hashes at the least cost, and Ada, whose password is "first-pass".
func passwordVolunteer(t *testing.T) (*pgxpool.Pool, *Store, User) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := NewStore(pool, Options{PasswordCost: bcrypt.MinCost})
	u, err := s.Accounts.CreateUser(t.Context(), NewUser{Email: "ada@example.org", Name: "Ada", Password: "first-pass"})
	if err != nil {
		t.Fatal(err)
	}
	return pool, s, u
}

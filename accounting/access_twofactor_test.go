package accounting_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/cobble-am/cobble/accounting"
)

// totpCode is the code an authenticator app shows for secret at t.
func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrolled returns a store and an account with two factors on, its
// secret, its recovery codes and the time it enrolled at.
func enrolled(t *testing.T) (*accounting.Store, accounting.User, string, []string, time.Time) {
	t.Helper()
	s := newStore(t)
	u, err := s.Accounts.CreateUser(context.Background(), accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := accounting.NewTwoFactorKey("Cobble", u.Email)
	if err != nil || !accounting.ValidSecret(key.Secret) {
		t.Fatalf("key %+v, %v", key, err)
	}
	now := time.Unix(1_800_000_000, 0) // the start of a time step
	codes, err := s.Access.EnableTwoFactor(context.Background(), u.ID, 0, key.Secret, totpCode(t, key.Secret, now), now)
	if err != nil || len(codes) != accounting.RecoveryCodes {
		t.Fatalf("enable: %d codes, %v", len(codes), err)
	}
	return s, u, key.Secret, codes, now
}

func TestEnableTwoFactor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "bob@example.org", Password: "long-enough"})
	here, _ := s.Access.StartSession(ctx, u.ID, "", "")
	there, _ := s.Access.StartSession(ctx, u.ID, "", "")
	key, _ := accounting.NewTwoFactorKey("Cobble", u.Email)
	now := time.Now()
	var invalid *accounting.ValidationError
	for _, bad := range []string{"", "12345", "1234567", "12a456", "１２３４５６"} {
		if _, err := s.Access.EnableTwoFactor(ctx, u.ID, here, key.Secret, bad, now); !errors.As(err, &invalid) || invalid.Fields["code"].IsZero() {
			t.Errorf("malformed code %q: %v", bad, err)
		}
	}
	wrong := totpCode(t, key.Secret, now.Add(-5*time.Minute))
	if _, err := s.Access.EnableTwoFactor(ctx, u.ID, here, key.Secret, wrong, now); !errors.As(err, &invalid) {
		t.Errorf("an old code: %v", err)
	}
	if on, err := s.Access.TwoFactorOn(ctx, u.ID); on || err != nil {
		t.Fatalf("refused codes turned two factors on: %v %v", on, err)
	}
	codes, err := s.Access.EnableTwoFactor(ctx, u.ID, here, key.Secret, " "+totpCode(t, key.Secret, now)[:3]+" "+totpCode(t, key.Secret, now)[3:], now)
	if err != nil || len(codes) != 10 {
		t.Fatalf("enable: %v %v", codes, err)
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if len(c) != 19 || seen[c] {
			t.Errorf("recovery code %q (seen before: %v)", c, seen[c])
		}
		seen[c] = true
	}
	if on, _ := s.Access.TwoFactorOn(ctx, u.ID); !on {
		t.Error("two factors are not on")
	}
	if _, err := s.Access.SessionUser(ctx, u.ID, there, ""); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("another session after enabling two factors: %v, want ended (ErrNotFound)", err)
	}
	if _, err := s.Access.SessionUser(ctx, u.ID, here, ""); err != nil {
		t.Errorf("the session that enabled two factors: %v, want it kept", err)
	}
	// The same code again, even to enable again: refused, nothing changed.
	if _, err := s.Access.EnableTwoFactor(ctx, u.ID, here, key.Secret, totpCode(t, key.Secret, now.Add(30*time.Second)), now.Add(30*time.Second)); !errors.Is(err, accounting.ErrConflict) {
		t.Errorf("enabling twice: %v, want ErrConflict", err)
	}
}

// A code is accepted once, within a step either side of now; a code of
// an older step than the last accepted one is refused too.
func TestCodesAreAcceptedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, u, secret, _, now := enrolled(t)
	// The code enrolment used is spent.
	if err := s.Access.CheckCode(ctx, u.ID, totpCode(t, secret, now), now); !errors.Is(err, accounting.ErrCodeUsed) {
		t.Errorf("the enrolment's code again: %v, want ErrCodeUsed", err)
	}
	later := now.Add(5 * time.Minute)
	code := totpCode(t, secret, later)
	if err := s.Access.CheckCode(ctx, u.ID, code, later); err != nil {
		t.Fatalf("a fresh code: %v", err)
	}
	if err := s.Access.CheckCode(ctx, u.ID, code, later.Add(10*time.Second)); !errors.Is(err, accounting.ErrCodeUsed) {
		t.Errorf("replayed code: %v, want ErrCodeUsed", err)
	}
	// The step before the accepted one, still within the skew: refused.
	if err := s.Access.CheckCode(ctx, u.ID, totpCode(t, secret, later.Add(-30*time.Second)), later); !errors.Is(err, accounting.ErrCodeUsed) {
		t.Errorf("an older step's code: %v, want ErrCodeUsed", err)
	}
	// The next step's code, typed a little early: accepted.
	if err := s.Access.CheckCode(ctx, u.ID, totpCode(t, secret, later.Add(30*time.Second)), later); err != nil {
		t.Errorf("next step's code: %v", err)
	}
	// Two steps off: wrong.
	if err := s.Access.CheckCode(ctx, u.ID, totpCode(t, secret, later.Add(3*time.Minute)), later); !errors.Is(err, accounting.ErrBadCode) {
		t.Errorf("a code of minutes ahead: %v, want ErrBadCode", err)
	}
	var invalid *accounting.ValidationError
	if err := s.Access.CheckCode(ctx, u.ID, "12345x", later); !errors.As(err, &invalid) {
		t.Errorf("malformed: %v", err)
	}
	other, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "eve@example.org", Password: "long-enough"})
	if err := s.Access.CheckCode(ctx, other.ID, "123456", later); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("an account without two factors: %v, want ErrNotFound", err)
	}
}

// Many checks of one code at once, as from several instances: exactly one
// is accepted.
func TestReplayRaceAcceptsOne(t *testing.T) {
	t.Parallel()
	s, u, secret, _, now := enrolled(t)
	at := now.Add(time.Hour)
	code := totpCode(t, secret, at)
	var wg sync.WaitGroup
	var mu sync.Mutex
	results := map[string]int{}
	for range 16 {
		wg.Go(func() {
			err := s.Access.CheckCode(context.Background(), u.ID, code, at)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				results["ok"]++
			case errors.Is(err, accounting.ErrCodeUsed):
				results["used"]++
			default:
				results[err.Error()]++
			}
		})
	}
	wg.Wait()
	if results["ok"] != 1 || results["used"] != 15 {
		t.Errorf("results %v, want 1 ok and 15 used", results)
	}
}

func TestRecoveryCodesWorkOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, u, _, codes, _ := enrolled(t)
	left, err := s.Access.UseRecoveryCode(ctx, u.ID, codes[3])
	if err != nil || left != 9 {
		t.Fatalf("first use: %d left, %v", left, err)
	}
	if _, err := s.Access.UseRecoveryCode(ctx, u.ID, codes[3]); !errors.Is(err, accounting.ErrCodeUsed) {
		t.Errorf("second use: %v, want ErrCodeUsed", err)
	}
	// Any letter case, without dashes: the same code.
	upper := []byte(codes[4])
	for i, c := range upper {
		if c >= 'a' && c <= 'z' {
			upper[i] = c - 32
		}
	}
	if left, err := s.Access.UseRecoveryCode(ctx, u.ID, string(upper)); err != nil || left != 8 {
		t.Errorf("upper case: %d left, %v", left, err)
	}
	if _, err := s.Access.UseRecoveryCode(ctx, u.ID, "aaaa-bbbb-cccc-dddd"); !errors.Is(err, accounting.ErrBadCode) {
		t.Errorf("unknown code: %v, want ErrBadCode", err)
	}
	var invalid *accounting.ValidationError
	for _, bad := range []string{"", "abc", "0000-1111-8888-9999", "aaaa-bbbb-cccc-dddd-eeee"} {
		if _, err := s.Access.UseRecoveryCode(ctx, u.ID, bad); !errors.As(err, &invalid) || invalid.Fields["recovery_code"].IsZero() {
			t.Errorf("malformed %q: %v", bad, err)
		}
	}
}

func TestDisableTwoFactor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, u, secret, codes, now := enrolled(t)
	at := now.Add(time.Hour)
	var invalid *accounting.ValidationError
	if err := s.Access.DisableTwoFactor(ctx, u.ID, "", totpCode(t, secret, at), at); !errors.As(err, &invalid) || invalid.Fields["password"].IsZero() {
		t.Errorf("no password: %v", err)
	}
	if err := s.Access.DisableTwoFactor(ctx, u.ID, "wrong-password", totpCode(t, secret, at), at); !errors.As(err, &invalid) || invalid.Fields["password"].IsZero() {
		t.Errorf("wrong password: %v", err)
	}
	if err := s.Access.DisableTwoFactor(ctx, u.ID, "long-enough", "", at); !errors.As(err, &invalid) || invalid.Fields["code"].IsZero() {
		t.Errorf("no code: %v", err)
	}
	if err := s.Access.DisableTwoFactor(ctx, u.ID, "long-enough", totpCode(t, secret, at.Add(time.Hour)), at); !errors.Is(err, accounting.ErrBadCode) {
		t.Errorf("wrong code: %v", err)
	}
	if on, _ := s.Access.TwoFactorOn(ctx, u.ID); !on {
		t.Fatal("a refused disable turned two factors off")
	}
	// The code of a refused attempt (wrong password) was not spent.
	if err := s.Access.DisableTwoFactor(ctx, u.ID, "long-enough", codes[0], at); err != nil {
		t.Fatalf("with a recovery code: %v", err)
	}
	if on, _ := s.Access.TwoFactorOn(ctx, u.ID); on {
		t.Error("two factors still on")
	}
	if err := s.Access.ConfirmPassword(ctx, u.ID, "long-enough"); err != nil {
		t.Errorf("confirm password: %v", err)
	}
	if err := s.Access.ConfirmPassword(ctx, u.ID, "wrong"); !errors.Is(err, accounting.ErrBadPassword) {
		t.Errorf("confirm a wrong password: %v", err)
	}
}

func TestResetTwoFactorIsAudited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, u, _, _, _ := enrolled(t)
	who := accounting.OSActor("operator")
	got, removed, err := s.Access.ResetTwoFactor(ctx, who, "ADA@example.org")
	if err != nil || !removed || got.ID != u.ID {
		t.Fatalf("reset: %+v %v %v", got, removed, err)
	}
	if on, _ := s.Access.TwoFactorOn(ctx, u.ID); on {
		t.Error("two factors still on")
	}
	if _, removed, err := s.Access.ResetTwoFactor(ctx, who, u.Email); removed || err != nil {
		t.Errorf("second reset: %v %v", removed, err)
	}
	if _, _, err := s.Access.ResetTwoFactor(ctx, who, "nobody@example.org"); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("unknown email: %v", err)
	}
	entries, err := s.Admin.Audit(ctx, accounting.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Kind == accounting.AuditTwoFactorReset {
			n++
			if e.Actor != "os:operator" || e.Subject == "" {
				t.Errorf("audit row %+v", e)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d audit rows of two_factor_reset, want 1: %+v", n, entries)
	}
}

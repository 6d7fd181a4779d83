package main

import (
	"errors"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testport"
	"github.com/cobble-am/cobble/web"
)

// serve's --admin-two-factor is required unless told otherwise.
func TestAdminTwoFactorFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, web.AdminTwoFactorRequired},
		{map[string]string{"COBBLE_ADMIN_TWO_FACTOR": "optional"}, nil, web.AdminTwoFactorOptional},
		{nil, []string{"--admin-two-factor", "optional"}, web.AdminTwoFactorOptional},
		{map[string]string{"COBBLE_ADMIN_TWO_FACTOR": "optional"}, []string{"--admin-two-factor", "required"}, web.AdminTwoFactorRequired},
	} {
		cfg, err := serverConfig(t, c.env, c.args...)
		if err != nil || cfg.AdminTwoFactor != c.want {
			t.Errorf("env %v args %q: %q %v, want %q", c.env, c.args, cfg.AdminTwoFactor, err, c.want)
		}
	}
	if _, err := serverConfig(t, nil, "--admin-two-factor", "sometimes"); !errors.Is(err, errUsage) ||
		!strings.Contains(err.Error(), "--admin-two-factor") {
		t.Errorf("--admin-two-factor sometimes: %v", err)
	}
}

// An admin without two factors who opens an admin page of 'cobble serve'
// (its default) is sent to enrol, with a word why; once enrolled the
// admin pages open; 'cobble user reset-two-factor' removes the second
// factor, audited, and the admin is sent to enrol again.
func TestServeSendsAdminToEnrolAndResetTwoFactor(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	if _, _, err := runCobble(t.Context(), env, "user", "create", "--email", "root@example.org",
		"--password", "long-enough", "--admin"); err != nil {
		t.Fatal(err)
	}
	addr := testport.FreeAddr(t)
	done, stop, stderr := startServe(t, env, "--addr", addr)
	defer stop()
	base := "http://" + addr
	waitHealthy(t, base+"/", done, stderr)
	c := login(t, base, "root@example.org", "long-enough")
	if loc := adminRedirect(t, c, base); loc != "/settings/two-factor?for=admin" {
		t.Fatalf("an admin without two factors opening /admin/overview is sent to %q", loc)
	}
	if page := fetch(t, c, base+"/settings/two-factor?for=admin"); !strings.Contains(page, "Administrators must use two-factor sign-in") ||
		!strings.Contains(page, "otpauth://totp/") {
		t.Errorf("the enrolment page does not say why, or has no key:\n%s", page)
	}

	// Enrolled (through the store, as the web tests do it in full), the
	// admin pages open to a new session.
	pool, err := pgxpool.New(t.Context(), env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := accounting.NewStore(pool, accounting.Options{})
	u, err := store.Accounts.Login(t.Context(), "root@example.org", "long-enough")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := accounting.NewTwoFactorKey("Cobble", u.Email)
	code, _ := totp.GenerateCodeCustom(key.Secret, time.Now(), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix})
	if _, err := store.Access.EnableTwoFactor(t.Context(), u.ID, 0, key.Secret, code, time.Now()); err != nil {
		t.Fatal(err)
	}
	c = loginTwoFactor(t, base, "root@example.org", "long-enough", key.Secret)
	if loc := adminRedirect(t, c, base); loc != "" {
		t.Fatalf("an admin with two factors is sent to %q", loc)
	}

	out, _, err := runCobble(t.Context(), env, "user", "reset-two-factor", "--email", "ROOT@example.org")
	if err != nil || !strings.Contains(out, "removed two-factor sign-in") || !strings.Contains(out, "root@example.org") {
		t.Fatalf("reset-two-factor: %q %v", out, err)
	}
	var kind, actor, subject string
	query(t, env["DATABASE_URL"], []any{&kind, &actor, &subject}, `SELECT kind, actor, subject FROM audit_log ORDER BY id DESC LIMIT 1`)
	if kind != "two_factor_reset" || !strings.HasPrefix(actor, "os:") || !strings.Contains(subject, "root@example.org") {
		t.Errorf("audit row %s %s %s", kind, actor, subject)
	}
	if on, _ := store.Access.TwoFactorOn(t.Context(), u.ID); on {
		t.Error("two factors still on after the reset")
	}
	c = login(t, base, "root@example.org", "long-enough") // the password alone again
	if loc := adminRedirect(t, c, base); loc != "/settings/two-factor?for=admin" {
		t.Errorf("after the reset the admin is sent to %q", loc)
	}
	out, _, err = runCobble(t.Context(), env, "user", "reset-two-factor", "--email", "root@example.org")
	if err != nil || !strings.Contains(out, "nothing changed") {
		t.Errorf("second reset: %q %v", out, err)
	}
	if _, _, err := runCobble(t.Context(), env, "user", "reset-two-factor", "--email", "nobody@example.org"); err == nil ||
		!strings.Contains(err.Error(), "no account") {
		t.Errorf("unknown email: %v", err)
	}
	if _, _, err := runCobble(t.Context(), env, "user", "reset-two-factor"); !errors.Is(err, errUsage) {
		t.Errorf("no --email: %v", err)
	}
}

// adminRedirect GETs the admin overview and returns where it redirects
// ("" for a 200).
func adminRedirect(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	resp, err := c.Get(base + "/admin/overview")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return ""
	case http.StatusSeeOther:
		return resp.Header.Get("Location")
	}
	t.Fatalf("/admin/overview: status %d", resp.StatusCode)
	return ""
}

// loginTwoFactor logs in with the password and a code of secret.
func loginTwoFactor(t *testing.T, base, email, password, secret string) *http.Client {
	t.Helper()
	c := login(t, base, email, password)
	// The code of the next step: the enrolment spent this one.
	code, _ := totp.GenerateCodeCustom(secret, time.Now().Add(30*time.Second), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix})
	resp, err := c.PostForm(base+"/login/two-factor", map[string][]string{"code": {code}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("second factor: status %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return c
}

// cobble dev lets admins choose (so that make run stays one command),
// unless the flag or the environment asks for required.
func TestDevAdminTwoFactorIsOptional(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, web.AdminTwoFactorOptional},
		{map[string]string{"COBBLE_ADMIN_TWO_FACTOR": "required"}, nil, web.AdminTwoFactorRequired},
		{nil, []string{"--admin-two-factor", "required"}, web.AdminTwoFactorRequired},
	} {
		e := environment{getenv: envMap(c.env), stdout: io.Discard, stderr: io.Discard}
		fs := flag.NewFlagSet("dev", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var sf serverFlags
		if err := sf.register(fs, e); err != nil {
			t.Fatal(err)
		}
		if err := parseFlags(fs, c.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := sf.config()
		if err != nil {
			t.Fatal(err)
		}
		devDefaults(fs, e, &cfg)
		if cfg.AdminTwoFactor != c.want {
			t.Errorf("dev with env %v args %q: %q, want %q", c.env, c.args, cfg.AdminTwoFactor, c.want)
		}
	}
}

package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A name the volunteer did not type is never printed: an account made
// without a name has none, and one whose stored name is its email's local
// part (as accounts made before got) is treated as having none. The
// certificate form then asks for the name instead of printing it, and the
// dashboard greets by the email, privately.
func TestDerivedNameIsNotPublished(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	fresh := e.user("mkfreshq8@example.org", "fresh-password")
	if fresh.Name != "" {
		t.Errorf("an account made without a name has the name %q", fresh.Name)
	}
	old := e.user("mkoldz5@example.org", "old-password")
	if _, err := e.pool.Exec(ctx, `UPDATE users SET name = 'mkoldz5' WHERE id = $1`, old.ID); err != nil {
		t.Fatal(err)
	}
	today := e.store.Ledger.Today(time.Now(), "UTC").Format(time.DateOnly)
	for _, c := range []struct{ email, password, local string }{
		{fresh.Email, "fresh-password", "mkfreshq8"},
		{old.Email, "old-password", "mkoldz5"},
	} {
		s := e.session(t, c.email, c.password)
		_, form, _ := do(t, s, "GET", e.http.URL+"/certificates", nil, nil)
		if strings.Contains(strings.ReplaceAll(form, c.email, ""), c.local) {
			t.Errorf("%s: the certificate form offers the name %q", c.email, c.local)
		}
		status, body, _ := do(t, s, "POST", e.http.URL+"/certificates", url.Values{"from": {today}, "to": {today}}, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, `class="field-error"`) {
			t.Errorf("%s: a certificate without a name: %d, want 422 asking for the name", c.email, status)
		}
		_, dash, _ := do(t, s, "GET", e.http.URL+"/", nil, nil)
		if !strings.Contains(html.UnescapeString(dash), "Welcome, "+c.email) {
			t.Errorf("%s: the dashboard does not greet by the email", c.email)
		}
	}
}

package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Stored preferences that cannot be read (hand-edited, or written by a
// buggy older version) show an error page that says so, never the
// standard values in their place; and a save refuses to write over them,
// so that nobody loses what the row held without being told.
func TestUnreadableStoredPrefsAreShownAndKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login("vol@example.org", false)
	base := e.http.URL
	if status, _, _ := do(t, c, "POST", base+"/settings/locations", url.Values{"name": {"Work"}}, nil); status != http.StatusSeeOther {
		t.Fatalf("adding a location: status %d", status)
	}
	const bad = `{"max_ncpus_pct": 500}`
	for _, k := range []struct{ name, corrupt, read, mend, location string }{
		{"Default", `INSERT INTO compute_prefs (user_id, preset, prefs) SELECT id, 'custom', $1 FROM users`,
			`SELECT prefs::text FROM compute_prefs`, `DELETE FROM compute_prefs`, ""},
		{"a named location", `UPDATE locations SET preset = 'custom', prefs = $1`,
			`SELECT prefs::text FROM locations`, `DELETE FROM locations`, "Work"},
	} {
		e.exec(t, k.corrupt, bad)
		for _, path := range []string{"/settings", "/settings/compute?location=Work", "/settings/science"} {
			status, page, _ := do(t, c, "GET", base+path, nil, nil)
			if status != http.StatusInternalServerError || !strings.Contains(page, "could not be read") {
				t.Errorf("%s unreadable, GET %s: status %d, want 500 and a page that says why", k.name, path, status)
			}
		}
		form := url.Values{"preset": {"low_power"}, "location": {k.location}}
		if status, page, _ := do(t, c, "POST", base+"/settings/compute", form, nil); status != http.StatusInternalServerError ||
			!strings.Contains(page, "could not be read") {
			t.Errorf("%s unreadable, saving over it: status %d, want 500 and a page that says why", k.name, status)
		}
		var stored string
		if err := e.pool.QueryRow(context.Background(), k.read).Scan(&stored); err != nil || stored != bad {
			t.Errorf("%s: stored %q (%v), want the unreadable row kept: %s", k.name, stored, err, bad)
		}
		e.exec(t, k.mend)
	}
}

// exec runs a statement on the test database, failing the test on error.
func (e *env) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/web"
)

// The build's version, as the command passes it, is on /readyz and the
// admin overview; without one, /readyz says only whether it is ready and
// which server is the primary.
func TestReadyAndOverviewShowTheVersion(t *testing.T) {
	t.Parallel()
	const version = "v9.8.7 (commit 0a0e494abcde, go1.26.8)"
	e := newEnvWith(t, func(c *web.Config) { c.Version = version })
	status, body, _ := do(t, e.browser(), "GET", e.http.URL+"/readyz", nil, nil)
	if want := "ready\nCobble " + version + "\nprimary database "; status != http.StatusOK || !strings.HasPrefix(body, want) {
		t.Errorf("readyz: %d %q, want 200 and a body beginning %q", status, body, want)
	}
	admin := e.login("admin@example.org", true)
	status, page, _ := do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil)
	if status != http.StatusOK || !strings.Contains(page, `<p class="muted" id="version">Cobble `+version+`</p>`) {
		t.Errorf("overview: status %d, no version line:\n%s", status, page)
	}

	bare := newEnv(t)
	if status, body, _ := do(t, bare.browser(), "GET", bare.http.URL+"/readyz", nil, nil); status != http.StatusOK ||
		!strings.HasPrefix(body, "ready\nprimary database ") {
		t.Errorf("readyz without a version: %d %q, want 200 and a body beginning %q", status, body, "ready\nprimary database ")
	}
	admin = bare.login("admin@example.org", true)
	if _, page, _ := do(t, admin, "GET", bare.http.URL+"/admin/overview", nil, nil); strings.Contains(page, `id="version"`) {
		t.Errorf("overview without a version shows a version line")
	}
}

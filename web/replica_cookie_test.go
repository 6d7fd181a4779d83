package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// A change (any unsafe method but logging in) sets the cookie that sends
// the browser's reads to the primary, and the request's own reads go
// there too; a plain GET without the cookie may read the replica.
func TestReadYourWrites(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		method, path, cookie string
		setsCookie, primary  bool
	}{
		{"GET", "/admin/lookup", "", false, false},
		{"GET", "/admin/lookup", "cobble_wrote=1", false, true},
		{"POST", "/admin/users/3/disable", "", true, true},
		{"POST", "/login", "", false, false},
	} {
		var primary bool
		h := readYourWrites(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			primary = accounting.ReadsPrimary(r.Context())
		}))
		req := httptest.NewRequest(c.method, c.path, nil)
		if c.cookie != "" {
			req.Header.Set("Cookie", c.cookie)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get("Set-Cookie") != ""; got != c.setsCookie {
			t.Errorf("%s %s: sets the cookie %v, want %v", c.method, c.path, got, c.setsCookie)
		}
		if primary != c.primary {
			t.Errorf("%s %s (cookie %q): reads the primary %v, want %v", c.method, c.path, c.cookie, primary, c.primary)
		}
	}
}

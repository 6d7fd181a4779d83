package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// Bad input on the public side gets a clear answer, never a 500: odd
// handles and codes are 404, odd forms 422, and a volunteer who keeps
// MaxCertificates is refused the next.
func TestPublicBadInput(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	e.setPublic(t, everything("ada-l"), http.StatusSeeOther)
	visitor := e.browser()
	long := strings.Repeat("a", 5000)
	for _, path := range []string{"/v/ADA-L", "/v/ad", "/v/" + long, "/v/%00", "/v/ada%2Fl", "/v/%ff%fe",
		"/v/admin/badge.svg", "/v/" + long + "/badge.png", "/certificates/" + long, "/certificates/%ff.pdf",
		"/certificates/.pdf", "/certificates/" + strings.Repeat("A", 26)} {
		if status, _, _ := do(t, visitor, "GET", e.http.URL+path, nil, nil); status != http.StatusNotFound {
			t.Errorf("GET %.60s: status %d, want 404", path, status)
		}
	}
	for _, form := range []url.Values{
		{"handle": {"ada\xff"}, "public": {"1"}},
		{"handle": {"ada\x00l"}, "public": {"1"}},
		{"handle": {long}, "public": {"1"}},
	} {
		e.setPublic(t, form, http.StatusUnprocessableEntity)
	}
	for _, form := range []url.Values{
		{"name": {"Ada\xff"}, "from": {"2026-01-01"}, "to": {"2026-01-02"}},
		{"name": {"Ada"}, "from": {long}, "to": {"2026-01-02"}},
		{"name": {strings.Repeat("Ada ", 30)}, "from": {"2026-01-01"}, "to": {"2026-01-02"}},
		{"name": {" "}, "from": {"2026-01-01"}, "to": {"2026-01-02"}},
	} {
		if status, _, _ := do(t, e.client, "POST", e.http.URL+"/certificates", form, nil); status != http.StatusUnprocessableEntity {
			t.Errorf("POST /certificates %.80v: status %d, want 422", form, status)
		}
	}
	ctx := context.Background()
	today := e.store.Ledger.Today(time.Now(), "UTC")
	settled, err := e.store.Ledger.RolledThrough(ctx) // a certificate's first day is settled
	if err != nil {
		t.Fatal(err)
	}
	for range accounting.MaxCertificates - 1 {
		if _, err := e.store.Public.IssueCertificate(ctx, e.ada.ID, accounting.CertificateRequest{Name: "Ada",
			From: settled, To: settled, Language: "en"}, today); err != nil {
			t.Fatal(err)
		}
	}
	day := settled.Format(time.DateOnly)
	e.issue(t, day, day) // the last one allowed
	status, _, _ := do(t, e.client, "POST", e.http.URL+"/certificates",
		url.Values{"name": {"Ada"}, "from": {day}, "to": {day}}, nil)
	if status != http.StatusTooManyRequests {
		t.Errorf("certificate %d: status %d, want 429", accounting.MaxCertificates+1, status)
	}
}

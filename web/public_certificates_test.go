package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A certificate's page and PDF answer anyone with the code, whether or
// not the profile is public; bad dates are 422 naming the field; a
// guessed code is the one 404, and a withdrawn certificate is 410 saying
// so, which a verifier can tell from a forgery (issue 45, item 17).
func TestCertificateJourney(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	today := e.store.Ledger.Today(time.Now(), "UTC")
	day := func(d int) string { return today.AddDate(0, 0, d).Format(time.DateOnly) }
	for _, tt := range []struct {
		from, to, field string
	}{
		{day(0), day(-1), "from"}, {day(-1), day(1), "to"}, {"2026-02-30", day(0), "from"},
		{day(-1), "tomorrow", "to"}, {day(-11 * 366), day(0), "from"},
	} {
		status, body, _ := do(t, e.client, "POST", e.http.URL+"/certificates",
			url.Values{"name": {"Ada"}, "from": {tt.from}, "to": {tt.to}}, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, `id="`+tt.field+`-error"`) {
			t.Errorf("from %s to %s: status %d, want 422 naming %s", tt.from, tt.to, status, tt.field)
		}
	}
	// The fields of the contract alone: the certificate bears the account's name.
	status, _, h := do(t, e.client, "POST", e.http.URL+"/certificates", url.Values{"from": {day(-3)}, "to": {day(0)}}, nil)
	if _, named, _ := do(t, e.browser(), "GET", e.http.URL+h.Get("Location"), nil, nil); status != http.StatusSeeOther ||
		!strings.Contains(named, "Ada contributed") {
		t.Errorf("from and to alone: status %d, then %q", status, h.Get("Location"))
	}
	cert := e.issue(t, day(-30), day(0))
	visitor := e.browser()
	status, page, _ := do(t, visitor, "GET", e.http.URL+cert, nil, nil)
	if status != http.StatusOK || !strings.Contains(page, "Ada Lovelace") || strings.Contains(page, `id="withdraw"`) {
		t.Fatalf("a visitor's view of %s: status %d", cert, status)
	}
	if _, mine, _ := do(t, e.client, "GET", e.http.URL+cert, nil, nil); !strings.Contains(mine, `id="withdraw"`) {
		t.Error("Ada is not offered the withdrawal of her certificate")
	}
	guess := "/certificates/" + strings.Repeat("a", 26)
	if status, _, _ := do(t, visitor, "GET", e.http.URL+guess, nil, nil); status != http.StatusNotFound {
		t.Errorf("guessed code: status %d", status)
	}
	e.user("bob@example.org", "bob-password")
	bobs := e.session(t, "bob@example.org", "bob-password")
	if status, _, _ := do(t, bobs, "POST", e.http.URL+cert+"/withdraw", url.Values{}, nil); status != http.StatusNotFound {
		t.Errorf("Bob withdrawing Ada's certificate: status %d", status)
	}
	if status, _, h := do(t, e.client, "POST", e.http.URL+cert+"/withdraw", url.Values{}, nil); status != http.StatusSeeOther ||
		h.Get("Location") != "/certificates?withdrawn=1" {
		t.Fatalf("withdraw: status %d", status)
	}
	for _, path := range []string{cert, cert + ".pdf"} {
		status, body, _ := do(t, visitor, "GET", e.http.URL+path, nil, nil)
		if status != http.StatusGone || !strings.Contains(body, "This certificate was withdrawn") || strings.Contains(body, "Ada Lovelace") {
			t.Errorf("withdrawn %s: status %d, want 410 saying it was withdrawn (and nothing of it):\n%s", path, status, body)
		}
	}
}

// A volunteer who reads German gets the certificate's PDF in German, its
// umlauts read back by pdftotext.
func TestCertificatePDFInGerman(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	if err := e.store.Accounts.SetLanguage(context.Background(), e.ada.ID, "de"); err != nil {
		t.Fatal(err)
	}
	today := e.store.Ledger.Today(time.Now(), "UTC")
	cert := e.issue(t, today.AddDate(0, 0, -6).Format(time.DateOnly), today.Format(time.DateOnly))
	status, pdf, h := do(t, e.browser(), "GET", e.http.URL+cert+".pdf", nil, nil)
	if status != http.StatusOK || h.Get("Content-Type") != "application/pdf" {
		t.Fatalf("PDF: status %d, %s", status, h.Get("Content-Type"))
	}
	text := strings.Join(strings.Fields(pdfText(t, []byte(pdf))), " ")
	for _, want := range []string{"Urkunde über einen Beitrag", "bestätigte Cobblestones", "die Projekte", "Prüfcode"} {
		if !strings.Contains(text, want) {
			t.Errorf("the German PDF lacks %q:\n%s", want, text)
		}
	}
}

// A badge carries an ETag and is cached; the same ETag again is 304.
func TestBadgeCaching(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	e.setPublic(t, everything("ada-l"), http.StatusSeeOther)
	for _, path := range []string{"/v/ada-l/badge.svg", "/v/ada-l/badge.png"} {
		status, _, h := do(t, e.browser(), "GET", e.http.URL+path, nil, nil)
		tag := h.Get("ETag")
		if status != http.StatusOK || tag == "" || !strings.Contains(h.Get("Cache-Control"), "max-age=") {
			t.Fatalf("%s: status %d, ETag %q, Cache-Control %q", path, status, tag, h.Get("Cache-Control"))
		}
		status, body, _ := do(t, e.browser(), "GET", e.http.URL+path, nil, http.Header{"If-None-Match": {tag}})
		if status != http.StatusNotModified || body != "" {
			t.Errorf("%s with its ETag: status %d, %d bytes", path, status, len(body))
		}
		if status, _, _ := do(t, e.browser(), "GET", e.http.URL+path, nil, http.Header{"If-None-Match": {`"other"`}}); status != http.StatusOK {
			t.Errorf("%s with another ETag: status %d", path, status)
		}
	}
}

// A certificate's name is one its PDF can print: a character the PDF's
// font has no glyph for (an emoji or another character outside the Basic
// Multilingual Plane, Chinese, Hebrew, a zero-width space) is a 422
// naming the name, whether typed or the account's; a letter typed as a
// base and a combining accent is the one letter. A certificate stored
// with such a character before (or a project's name) still gives a PDF.
func TestCertificateNamesThePDFCanPrint(t *testing.T) {
	t.Parallel()
	e := newPublicEnv(t)
	ctx := context.Background()
	today := e.store.Ledger.Today(time.Now(), "UTC")
	from, to := today.AddDate(0, 0, -6).Format(time.DateOnly), today.Format(time.DateOnly)
	for _, name := range []string{"Ada 😀", "Ada \U0001D400", "艾达", "אדה", "Ada\u200bL", "Ǆ"} {
		status, body, _ := do(t, e.client, "POST", e.http.URL+"/certificates",
			url.Values{"name": {name}, "from": {from}, "to": {to}}, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, `id="name-error"`) ||
			!strings.Contains(body, "PDF cannot print") {
			t.Errorf("name %q: status %d, want 422 naming the name and why", name, status)
		}
	}
	if _, err := e.pool.Exec(ctx, `UPDATE users SET name = 'Ada 🚀' WHERE id = $1`, e.ada.ID); err != nil {
		t.Fatal(err)
	}
	status, body, _ := do(t, e.client, "POST", e.http.URL+"/certificates", url.Values{"from": {from}, "to": {to}}, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, `id="name-error"`) {
		t.Errorf("the account's name with an emoji: status %d, want 422 naming the name", status)
	}
	status, _, h := do(t, e.client, "POST", e.http.URL+"/certificates",
		url.Values{"name": {"Jose\u0301 Ελένη Жанна"}, "from": {from}, "to": {to}}, nil)
	if status != http.StatusSeeOther {
		t.Fatalf("a name in Latin, Greek and Cyrillic: status %d", status)
	}
	status, pdf, _ := do(t, e.browser(), "GET", e.http.URL+h.Get("Location")+".pdf", nil, nil)
	if text := pdfText(t, []byte(pdf)); status != http.StatusOK || !strings.Contains(text, "José Ελένη Жанна") {
		t.Errorf("its PDF: status %d, text %q", status, text)
	}
	// As stored before the form refused them.
	if _, err := e.pool.Exec(ctx, `UPDATE certificates SET name = 'Ada 😀 艾达', projects = '{"Bio 🧬"}'`); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := do(t, e.browser(), "GET", e.http.URL+h.Get("Location")+".pdf", nil, nil); status != http.StatusOK {
		t.Errorf("the PDF of a name stored with an emoji: status %d", status)
	}
}

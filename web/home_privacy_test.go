package web_test

import (
	"html"
	"net/http"
	"strings"
	"testing"
)

// The home page's privacy paragraph does not claim that Cobble has no
// leaderboards or publishes nothing, in either language: it says what a
// volunteer can publish, and that it is published only by choice.
func TestHomePrivacyIsTrue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		lang, must string
		never      []string
	}{
		{"en", "only if you choose", []string{"no leaderboards", "publishes nothing"}},
		{"de", "nur, wenn du", []string{"keine Ranglisten", "keine Bestenlisten", "veröffentlicht nichts"}},
	} {
		status, body, _ := do(t, e.browser(), "GET", e.http.URL+"/", nil, http.Header{"Accept-Language": {c.lang}})
		body = html.UnescapeString(body)
		if status != http.StatusOK {
			t.Fatalf("GET / (%s): status %d", c.lang, status)
		}
		for _, s := range c.never {
			if strings.Contains(body, s) {
				t.Errorf("GET / (%s) says %q", c.lang, s)
			}
		}
		if !strings.Contains(body, c.must) {
			t.Errorf("GET / (%s) does not say %q", c.lang, c.must)
		}
	}
}

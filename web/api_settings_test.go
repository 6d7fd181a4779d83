package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// countTokens is how many API tokens a volunteer holds.
func (e *env) countTokens(userID int64) int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM api_tokens WHERE user_id = $1`, userID).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// Making a token needs a recent authentication; the page then shows the
// secret once, and lists when and from where each token was last used.
func TestAPITokenNeedsRecentAuth(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, nil)
	ada := e.user("ada@example.org", "long-enough")
	c := e.session(t, "ada@example.org", "long-enough")
	clk.advance(11 * time.Minute)
	status, page, _ := do(t, c, "POST", e.http.URL+"/settings/api", url.Values{"name": {"laptop"}}, nil)
	carried := confirmPage(t, "token creation", status, page)
	if carried.Get("name") != "laptop" || e.countTokens(ada.ID) != 0 || strings.Contains(page, `id="new-token"`) {
		t.Fatalf("a stale session made a token, or the name was not carried (%v)", carried)
	}
	carried.Set("reauth_password", "long-enough")
	status, _, _ = do(t, c, "POST", e.http.URL+"/settings/api", carried, nil)
	if status != http.StatusSeeOther || e.countTokens(ada.ID) != 1 {
		t.Fatalf("after confirming: %d, %d tokens", status, e.countTokens(ada.ID))
	}
	secret := shownToken(t, c, e.http.URL)
	newAPIClient(t, e.http.URL, secret).get("/api/v1/me")
	_, list, _ := do(t, c, "GET", e.http.URL+"/settings/api", nil, nil)
	if strings.Contains(list, secret) || !strings.Contains(list, "laptop") || strings.Contains(list, "Never") {
		t.Errorf("the list shows the secret again, or not the token's last use:\n%s", list)
	}
}

// Names are checked; at most 10 tokens are held; revoking another's token
// is 404; and making tokens in a loop is refused after the hour's limit,
// with never more than 10 stored.
func TestAPITokenLimits(t *testing.T) {
	t.Parallel()
	e := newVolunteerEnv(t)
	base := e.http.URL
	for _, name := range []string{"", "   ", "<script>", strings.Repeat("n", 101), "tab\there"} {
		status, page, _ := do(t, e.adaClient, "POST", base+"/settings/api", url.Values{"name": {name}}, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(page, `id="name-error"`) ||
			strings.Contains(page, `id="new-token"`) {
			t.Errorf("name %q: %d, want 422 with the field's message", name, status)
		}
	}
	for range 10 {
		makeToken(t, e.adaClient, base, "one of ten")
	}
	status, page, _ := do(t, e.adaClient, "POST", base+"/settings/api", url.Values{"name": {"eleventh"}}, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, `id="tokens-full"`) || e.countTokens(e.ada.ID) != 10 {
		t.Errorf("an 11th token: %d, %d stored", status, e.countTokens(e.ada.ID))
	}
	adaToken := regexp.MustCompile(`/settings/api/(\d+)/revoke`).FindStringSubmatch(page)[1]
	if status, _, _ := do(t, e.bobClient, "POST", base+"/settings/api/"+adaToken+"/revoke", url.Values{}, nil); status != http.StatusNotFound {
		t.Errorf("Bob revoking Ada's token: %d, want 404", status)
	}
	for _, id := range []string{"0", "x", "99999999999999999999"} {
		if status, _, _ := do(t, e.bobClient, "POST", base+"/settings/api/"+id+"/revoke", url.Values{}, nil); status != http.StatusNotFound {
			t.Errorf("revoking token %q: %d, want 404", id, status)
		}
	}
	if e.countTokens(e.ada.ID) != 10 {
		t.Fatal("Bob's attempts revoked Ada's token")
	}

	made, refused := 0, 0
	for range 100 {
		status, page, _ := do(t, e.bobClient, "POST", base+"/settings/api", url.Values{"name": {"churn"}}, nil)
		switch status {
		case http.StatusSeeOther:
			made++
			_, page, _ = do(t, e.bobClient, "GET", base+"/settings/api", nil, nil)
			id := regexp.MustCompile(`/settings/api/(\d+)/revoke`).FindStringSubmatch(page)[1]
			do(t, e.bobClient, "POST", base+"/settings/api/"+id+"/revoke", url.Values{}, nil)
		case http.StatusTooManyRequests:
			refused++
			if !strings.Contains(page, `id="name-error"`) || !strings.Contains(page, "in the last hour") {
				t.Fatalf("a refused creation does not say why on the tokens page:\n%s", page)
			}
		default:
			t.Fatalf("creation: %d", status)
		}
		if n := e.countTokens(e.bob.ID); n > 10 {
			t.Fatalf("%d tokens stored", n)
		}
	}
	if made != 30 || refused != 70 {
		t.Errorf("100 creations in a loop: %d made, %d refused; want 30 and 70", made, refused)
	}
}

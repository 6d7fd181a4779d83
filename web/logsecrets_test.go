package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// secretLinks makes one live link of each kind whose path holds a secret
// (a mailed token, the notices feed's name), and returns each path, with
// the secret it holds, by the route it should be logged as.
func secretLinks(t *testing.T, e *env) map[string][2]string {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	ada := e.user("ada@example.org", "ada-password")
	links := map[string][2]string{}
	link := func(route, prefix, secret, suffix string) {
		links[route] = [2]string{prefix + secret + suffix, secret}
	}
	must(e.store.Accounts.RequestPasswordReset(ctx, "ada@example.org"))
	link("/password/reset/{token}", "/password/reset/", lastSecret(t, e.store, accounting.MailPasswordReset), "")
	must(e.store.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: "bob@example.org", Password: "bob-password"}))
	link("/signup/finish/{token}", "/signup/finish/", lastSecret(t, e.store, accounting.MailSignup), "")
	_, err := e.store.Accounts.SignUp(ctx, accounting.NewUser{Email: "carol@example.org", Password: "carol-password"})
	must(err)
	link("/email/confirm/{token}", "/email/confirm/", lastSecret(t, e.store, accounting.MailWelcome), "")
	must(e.store.Accounts.RequestEmailChange(ctx, ada.ID, "ada-password", "ada.new@example.org"))
	link("/email/confirm/{token} (change)", "/email/confirm/", lastSecret(t, e.store, accounting.MailEmailChange), "")
	feed, err := e.store.Accounts.FeedToken(ctx, ada.ID)
	must(err)
	link("/notices/{file}", "/notices/", feed, ".rss")
	must(e.store.Mail.SetAlerts(ctx, ada.ID, accounting.Alerts{Weekly: true}))
	_, err = e.pool.Exec(ctx, `UPDATE users SET email_confirmed_at = now() WHERE id = $1`, ada.ID)
	must(err)
	_, err = e.store.Mail.QueueAlerts(ctx, time.Now())
	must(err)
	link("/unsubscribe/{token}", "/unsubscribe/", lastSecret(t, e.store, accounting.MailWeeklySummary), "")
	return links
}

// Opening a live link logs its route, never its secret: not the request
// line, not any other line, whatever the method, and not when a
// mistyped link matches no route. Paths without a secret are still
// logged as they are.
func TestLogHoldsNoSecretFromALink(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	e := newEnvLogged(t, testdb.New(t), nil, slog.New(slog.NewTextHandler(logs, nil)))
	links := secretLinks(t, e)
	get := func(method, path string) int {
		t.Helper()
		req, err := http.NewRequest(method, e.http.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for route, l := range links {
		if status := get("GET", l[0]); status != http.StatusOK {
			t.Errorf("GET %s: status %d, want 200 (the link is live)", route, status)
		}
		get("PUT", l[0])
		get("GET", l[0]+"/more")
		get("GET", l[0]+"%2Fmore")
		get("GET", "/"+l[1])
		route, _, _ = strings.Cut(route, " ")
		if !logged(logs.String(), "msg=request", "method=GET", "route="+route, "path="+route, "status=200") {
			t.Errorf("no request line for GET %s with its route for path:\n%s", route, logs)
		}
	}
	get("GET", "/login")
	if !logged(logs.String(), "msg=request", "route=/login", "path=/login ", "status=200") {
		t.Errorf("no request line for GET /login with its path:\n%s", logs)
	}
	for route, l := range links {
		if strings.Contains(logs.String(), l[1]) {
			t.Errorf("the log holds the secret of %s:\n%s", route, logs)
		}
	}
}

package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// signupSecrets returns the tokens of every sign-up link to email in the
// outbox.
func signupSecrets(t *testing.T, store *accounting.Store, email string) []string {
	t.Helper()
	ms, err := store.Mail.MailList(context.Background(), accounting.MailFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		if m.Kind == accounting.MailSignup && m.To == email && m.Secret != "" {
			out = append(out, m.Secret)
		}
	}
	return out
}

// Two browsers finish two sign-up links of one address at the same
// moment: one gets the account (303 to the dashboard), the other the page
// that says the link no longer works (410), never a 500.
func TestSignUpLinksFinishedAtOnceInTwoBrowsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for round := range 10 {
		email := fmt.Sprintf("twice%d@example.org", round)
		for range 2 {
			if err := e.store.Accounts.RequestSignUp(ctx, accounting.NewUser{Email: email, Password: "same-password"}); err != nil {
				t.Fatal(err)
			}
		}
		tokens := signupSecrets(t, e.store, email)
		if len(tokens) != 2 {
			t.Fatalf("%d sign-up links to %s, want 2", len(tokens), email)
		}
		statuses := make([]int, 2)
		errs := make([]error, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, token := range tokens {
			c := e.browser()
			wg.Go(func() {
				<-start
				statuses[i], errs[i] = finishSignUp(c, e.http.URL+"/signup/finish/"+token)
			})
		}
		close(start)
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatal(errs)
		}
		won, gone := 0, 0
		for _, s := range statuses {
			won += boolInt(s == http.StatusSeeOther)
			gone += boolInt(s == http.StatusGone)
		}
		if won != 1 || gone != 1 {
			t.Fatalf("round %d: statuses %v, want one 303 and one 410", round, statuses)
		}
	}
}

// finishSignUp posts a sign-up link's form as a browser does.
func finishSignUp(c *http.Client, link string) (int, error) {
	req, err := http.NewRequest("POST", link, strings.NewReader(url.Values{"password": {"same-password"}}.Encode()))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

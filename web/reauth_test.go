package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)

// confirmPage checks that a POST answered the confirmation page and
// returns the fields it carries.
func confirmPage(t *testing.T, what string, status int, page string) url.Values {
	t.Helper()
	if status != http.StatusForbidden || !strings.Contains(page, "Confirm it is you") {
		t.Fatalf("%s with a stale session: status %d, want 403 and the confirmation\n%s", what, status, page)
	}
	form := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(page, -1) {
		form.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	return form
}

func TestStaleSessionMustConfirm(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, nil)
	ada := e.user("ada@example.org", "long-enough")
	c := e.session(t, "ada@example.org", "long-enough")
	ctx := context.Background()
	base := e.http.URL
	clk.advance(11 * time.Minute)

	// A password change: refused, nothing changed, the form carried.
	status, page, _ := do(t, c, "POST", base+"/settings/password",
		url.Values{"current_password": {"long-enough"}, "password": {"brand-new-pass"}}, nil)
	carried := confirmPage(t, "password change", status, page)
	if carried.Get("password") != "brand-new-pass" || carried.Get("current_password") != "long-enough" {
		t.Errorf("carried %v", carried)
	}
	if _, err := e.store.Accounts.Login(ctx, "ada@example.org", "long-enough"); err != nil {
		t.Fatalf("a refused change changed the password: %v", err)
	}
	wrong := url.Values{"reauth_password": {"not-my-password"}}
	for k, v := range carried {
		wrong[k] = v
	}
	status, page, _ = do(t, c, "POST", base+"/settings/password", wrong, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "Confirm it is you") {
		t.Errorf("a wrong confirmation: status %d", status)
	}
	if _, err := e.store.Accounts.Login(ctx, "ada@example.org", "long-enough"); err != nil {
		t.Fatalf("a wrong confirmation changed the password: %v", err)
	}
	carried.Set("reauth_password", "long-enough")
	status, _, h := do(t, c, "POST", base+"/settings/password", carried, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/settings?saved=password" {
		t.Fatalf("confirmed change: status %d to %q", status, h.Get("Location"))
	}
	if _, err := e.store.Accounts.Login(ctx, "ada@example.org", "brand-new-pass"); err != nil {
		t.Errorf("the confirmed change did not set the password: %v", err)
	}
	// Fresh now: the email change goes through at once.
	status, _, _ = do(t, c, "POST", base+"/settings/email", url.Values{"email": {"ada2@example.org"}, "email_password": {"brand-new-pass"}}, nil)
	if status != http.StatusSeeOther {
		t.Errorf("email change in a fresh session: status %d", status)
	}

	// Stale again: deleting the account is refused and deletes nothing.
	clk.advance(11 * time.Minute)
	status, page, _ = do(t, c, "POST", base+"/settings/delete", url.Values{"confirm": {"yes"}, "password": {"brand-new-pass"}}, nil)
	confirmPage(t, "delete", status, page)
	if _, err := e.store.Accounts.User(ctx, ada.ID); err != nil {
		t.Fatalf("a refused delete deleted the account: %v", err)
	}
	status, page, _ = do(t, c, "POST", base+"/settings/email", url.Values{"email": {"ada3@example.org"}, "email_password": {"brand-new-pass"}}, nil)
	confirmPage(t, "email change", status, page)

	// The two-factor page asks for the password inline, so the code is
	// not spent waiting; enabling without it is refused.
	secret, page := enrolPage(t, c, base)
	if !strings.Contains(page, `name="reauth_password"`) {
		t.Error("the stale enrolment page does not ask for the password")
	}
	status, page, _ = do(t, c, "POST", base+"/settings/two-factor/enable", url.Values{"code": {clk.code(t, secret)}}, nil)
	confirmPage(t, "enable", status, page)
	if on, _ := e.store.Access.TwoFactorOn(ctx, ada.ID); on {
		t.Fatal("a refused enable turned two factors on")
	}
	status, _, _ = do(t, c, "POST", base+"/settings/two-factor/enable",
		url.Values{"code": {clk.code(t, secret)}, "reauth_password": {"brand-new-pass"}}, nil)
	if on, _ := e.store.Access.TwoFactorOn(ctx, ada.ID); status != http.StatusOK || !on {
		t.Fatalf("enable with the password inline: status %d, on %v", status, on)
	}

	// With two factors, a code confirms as well as the password.
	clk.advance(11 * time.Minute)
	form := url.Values{"email": {"ada4@example.org"}, "email_password": {"brand-new-pass"}, "reauth_code": {"000000"}}
	if status, _, _ = do(t, c, "POST", base+"/settings/email", form, nil); status != http.StatusUnprocessableEntity {
		t.Errorf("a wrong code as confirmation: status %d", status)
	}
	form.Set("reauth_code", clk.code(t, secret))
	if status, _, _ = do(t, c, "POST", base+"/settings/email", form, nil); status != http.StatusSeeOther {
		t.Errorf("a code as confirmation: status %d", status)
	}
}

func TestStaleAdminMustConfirm(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, nil)
	ctx := context.Background()
	base := e.http.URL
	vol := e.user("vol@example.org", "long-enough")
	p := e.project(accounting.Project{URL: "https://einstein.example.org/", Name: "Einstein", Authenticator: "acct-key",
		Resources: []string{"CPU", "NVIDIA"}})
	admin := e.login("admin@example.org", true)
	clk.advance(11 * time.Minute)

	status, page, _ := do(t, admin, "POST", base+"/admin/users/"+itoa(vol.ID)+"/disable", url.Values{}, nil)
	confirmPage(t, "disable", status, page)
	if _, err := e.store.Accounts.User(ctx, vol.ID); err != nil {
		t.Fatalf("a refused disable disabled the account: %v", err)
	}

	edit := base + "/admin/projects/" + itoa(p.ID)
	// A change of name, share or keywords needs no confirmation.
	form := projectForm("url", p.URL, "authenticator", "", "name", "Einstein@Home", "description", "line one\nline two")
	if status, _, _ := do(t, admin, "POST", edit, form, nil); status != http.StatusSeeOther {
		t.Fatalf("renaming with a stale session: status %d", status)
	}
	// The URL, the account key or the account email: refused, unchanged.
	for _, change := range [][]string{{"url", "https://evil.example.org/"}, {"authenticator", "other-key"},
		{"account_email", "am@example.org"}} {
		f := projectForm("url", p.URL, "authenticator", "", "name", "Einstein@Home", change[0], change[1])
		status, page, _ := do(t, admin, "POST", edit, f, nil)
		carried := confirmPage(t, "changing "+change[0], status, page)
		if carried.Get(change[0]) != change[1] || len(carried["resources"]) != 2 {
			t.Errorf("carried %v", carried)
		}
		got, err := e.store.Catalog.Project(ctx, p.ID)
		if err != nil || got.URL != p.URL || got.Authenticator != "acct-key" || got.AccountEmail != "" || got.Name != "Einstein@Home" {
			t.Fatalf("a refused change of %s changed the project: %+v %v", change[0], got, err)
		}
	}

	// An import: refused, nothing imported; the page asks for the file again.
	data, err := os.ReadFile("../accounting/testdata/all_projects_list.xml")
	if err != nil {
		t.Fatal(err)
	}
	status, page = upload(t, admin, base+"/admin/projects/import", data)
	confirmPage(t, "import", status, page)
	if !strings.Contains(page, `type="file"`) || !strings.Contains(page, `enctype="multipart/form-data"`) {
		t.Errorf("the import's confirmation does not ask for the file again:\n%s", page)
	}
	if rows, _ := e.store.Catalog.Catalog(ctx); len(rows) != 1 {
		t.Errorf("a refused import left %d projects, want 1", len(rows))
	}

	// Confirmed, the disable goes through as sent.
	status, _, _ = do(t, admin, "POST", base+"/admin/users/"+itoa(vol.ID)+"/disable", url.Values{"reauth_password": {"long-enough"}}, nil)
	if _, err := e.store.Accounts.User(ctx, vol.ID); status != http.StatusSeeOther || err == nil {
		t.Errorf("confirmed disable: status %d, user %v", status, err)
	}
	// And the session is fresh again for a URL change.
	f := projectForm("url", "https://einstein2.example.org/", "authenticator", "", "name", "Einstein@Home")
	if status, _, _ := do(t, admin, "POST", edit, f, nil); status != http.StatusSeeOther {
		t.Errorf("URL change in a fresh session: status %d", status)
	}
}

// The forms that check the volunteer's password (changing it or the
// email, deleting the account) count wrong ones as logging in does: a
// session, even a fresh one, does not buy unlimited guesses. Past the
// limit even the right password is refused, with 429 and why on the
// password's field, and nothing changes.
func TestSettingsPasswordGuessesAreLimited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	e.user("ada@example.org", "long-enough")
	c := e.session(t, "ada@example.org", "long-enough")
	base := e.http.URL
	forms := []struct {
		path string
		form func(password string) url.Values
	}{
		{"/settings/password", func(p string) url.Values {
			return url.Values{"current_password": {p}, "password": {"brand-new-pass"}}
		}},
		{"/settings/email", func(p string) url.Values {
			return url.Values{"email": {"ada2@example.org"}, "email_password": {p}}
		}},
		{"/settings/delete", func(p string) url.Values { return url.Values{"confirm": {"yes"}, "password": {p}} }},
	}
	refused := 0
	for i := range 12 {
		f := forms[i%len(forms)]
		status, page, _ := do(t, c, "POST", base+f.path, f.form("guess-"+strconv.Itoa(i)), nil)
		if status == http.StatusTooManyRequests {
			refused = i
			if !strings.Contains(page, "Too many wrong passwords") {
				t.Errorf("%s refused without saying why:\n%s", f.path, page)
			}
			break
		}
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("wrong guess %d at %s: status %d", i, f.path, status)
		}
	}
	if refused == 0 {
		t.Fatal("12 wrong passwords through the settings forms, none refused")
	}
	for _, f := range forms {
		if status, _, _ := do(t, c, "POST", base+f.path, f.form("long-enough"), nil); status != http.StatusTooManyRequests {
			t.Errorf("%s with the right password past the limit: status %d, want 429", f.path, status)
		}
	}
	if _, err := e.store.Accounts.Login(ctx, "ada@example.org", "long-enough"); err != nil {
		t.Errorf("the account changed while its guesses were refused: %v", err)
	}
}

package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// A disabled account's notices feed is not found, like an unknown one; it
// serves again once the account is enabled.
func TestDisabledAccountsFeedIsNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	u := e.user("vol@example.org", "secret-pass")
	token, err := e.store.Accounts.FeedToken(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	feed := e.http.URL + "/notices/" + token + ".rss"
	if status, _, _ := do(t, e.browser(), "GET", feed, nil, nil); status != http.StatusOK {
		t.Fatalf("feed of an enabled account: status %d", status)
	}
	if err := e.store.Admin.SetUserDisabled(ctx, accounting.OSActor("test"), u.ID, true); err != nil {
		t.Fatal(err)
	}
	if status, body, _ := do(t, e.browser(), "GET", feed, nil, nil); status != http.StatusNotFound || strings.Contains(body, "<rss") {
		t.Errorf("feed of a disabled account: status %d, want 404", status)
	}
	if err := e.store.Admin.SetUserDisabled(ctx, accounting.OSActor("test"), u.ID, false); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := do(t, e.browser(), "GET", feed, nil, nil); status != http.StatusOK {
		t.Errorf("feed after enabling: status %d", status)
	}
}

// An admin cannot disable their own account: the page says why, with 422,
// and the account stays enabled and logged in.
func TestAdminCannotDisableThemselves(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.login("admin@example.org", true)
	other := e.login("other@example.org", true)
	me, err := e.store.Accounts.Login(context.Background(), "admin@example.org", "long-enough")
	if err != nil {
		t.Fatal(err)
	}
	status, page, _ := do(t, admin, "POST", e.http.URL+"/admin/users/"+itoa(me.ID)+"/disable", url.Values{}, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "You cannot disable your own account") {
		t.Errorf("self-disable: status %d, want 422 with the reason", status)
	}
	if status, _, _ := do(t, admin, "GET", e.http.URL+"/admin/overview", nil, nil); status != http.StatusOK {
		t.Errorf("the admin after refusing: status %d", status)
	}
	log, _ := e.store.Admin.Audit(context.Background(), accounting.AuditFilter{Kind: accounting.AuditUserDisable})
	if len(log) != 0 {
		t.Errorf("a refused disable was audited: %+v", log)
	}
	// Another admin may disable this one.
	if status, _, _ := do(t, other, "POST", e.http.URL+"/admin/users/"+itoa(me.ID)+"/disable", url.Values{}, nil); status != http.StatusSeeOther {
		t.Errorf("another admin disabling: status %d, want 303", status)
	}
}

// The last enabled admin cannot delete their account: the confirmation
// says why, with 422, and the account stays. Once another admin exists,
// the deletion goes through.
func TestLastAdminCannotDeleteTheirAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	admin := e.login("admin@example.org", true)
	remove := url.Values{"confirm": {"yes"}, "password": {"long-enough"}}
	status, page, _ := do(t, admin, "POST", e.http.URL+"/settings/delete", remove, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "last enabled administrator") {
		t.Errorf("the last admin deleting their account: status %d, want 422 with the reason", status)
	}
	if _, err := e.store.Accounts.Login(ctx, "admin@example.org", "long-enough"); err != nil {
		t.Fatalf("the last admin's account after a refused deletion: %v", err)
	}
	e.login("other@example.org", true)
	if status, _, _ := do(t, admin, "POST", e.http.URL+"/settings/delete", remove, nil); status != http.StatusSeeOther {
		t.Errorf("an admin deleting their account beside another admin: status %d, want 303", status)
	}
	if _, err := e.store.Accounts.Login(ctx, "admin@example.org", "long-enough"); err == nil {
		t.Error("the account is still there after its deletion")
	}
}
